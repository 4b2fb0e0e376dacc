// The page's address names the past run it shows (`?run=NAME`), so a reload or a copied link
// opens that run again (App reads the parameter once connected); the live view has no parameter.

/**
 * The address to show for the current view: `href` with its `run` parameter set to `runDir`
 * (a past run is open) or removed (undefined: the live view, a seed group); every other part of
 * the address is kept. Returns undefined when the address is already right (nothing to replace).
 */
export function addressForRun(href: string, runDir: string | undefined): string | undefined {
  const url = new URL(href);
  if ((url.searchParams.get('run') ?? undefined) === runDir) return undefined;
  if (runDir === undefined) url.searchParams.delete('run');
  else url.searchParams.set('run', runDir);
  return url.toString();
}
