// Asking the host again on a timer while something it reports can still change (a running sweep):
// the Sweeps list and the Sweep view refresh themselves instead of waiting for a click.

/** How often a running sweep's table and the Sweeps list are asked for again, ms. */
export const SWEEP_POLL_MS = 5000;

/**
 * Calls `tick` every `ms` milliseconds while `active`, from now on; returns the cleanup that
 * stops it (for a React effect). Nothing runs when not active.
 */
export function pollWhile(active: boolean, ms: number, tick: () => void): () => void {
  if (!active) return () => undefined;
  const timer = setInterval(tick, ms);
  return () => clearInterval(timer);
}
