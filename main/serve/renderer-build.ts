// Builds the renderer (out/renderer) for browser mode when it is missing or older than its
// sources, with the same Vite config the desktop build uses (electron.vite.config.ts).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Newest modification time (ms) of the files under `dirs` (recursively). */
export function newestMtime(dirs: string[]): number {
  let newest = 0;
  const walk = (p: string) => {
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p)) if (name !== 'node_modules') walk(join(p, name));
    } else newest = Math.max(newest, st.mtimeMs);
  };
  for (const d of dirs) if (existsSync(d)) walk(d);
  return newest;
}

/** True when `outDir/index.html` is missing or older than any source under `srcDirs`. */
export function rendererIsStale(outDir: string, srcDirs: string[]): boolean {
  const index = join(outDir, 'index.html');
  return !existsSync(index) || statSync(index).mtimeMs < newestMtime(srcDirs);
}

/**
 * Builds the renderer into `root/out/renderer` unless it is up to date.
 * @returns whether a build ran
 */
export async function ensureRendererBuilt(root: string, log: (line: string) => void = console.log): Promise<boolean> {
  const outDir = join(root, 'out', 'renderer');
  const sources = [join(root, 'renderer'), join(root, 'common'), join(root, 'electron.vite.config.ts'), join(root, 'package.json')];
  if (!rendererIsStale(outDir, sources)) return false;
  log('building the renderer (out/renderer)...');
  const [{ build }, { rendererConfig }] = await Promise.all([import('vite'), import('../../electron.vite.config.ts')]);
  await build({ ...rendererConfig, configFile: false, logLevel: 'warn' });
  return true;
}
