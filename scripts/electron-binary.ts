// Finds Electron's executable without loading the electron package (its index.js downloads the
// binary as a side effect, and no code run under Node may import electron): the same lookup
// electron-vite and the electron package make, from node_modules/electron/path.txt.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

/** What to do when the binary is missing. */
export const INSTALL_HINT = 'run `npx install-electron` where downloads are allowed, or `npm run serve` for the dashboard in a browser';

/**
 * The Electron executable for the project at `root`, looked up as electron-vite does:
 * `env.ELECTRON_EXEC_PATH` if set; else the name in <electron package>/path.txt, under
 * `env.ELECTRON_OVERRIDE_DIST_PATH` if set (where the name defaults to "electron", as in the
 * electron package) or else under <electron package>/dist. Returns `{ path }` of an existing file,
 * or `{ missing }`: what is not there (paths relative to `root`). Throws nothing.
 */
export function findElectron(root: string, env: NodeJS.ProcessEnv): { path: string } | { missing: string } {
  const show = (p: string) => relative(root, p) || p;
  const check = (p: string, what = show(p)) => (existsSync(p) ? { path: p } : { missing: what });
  if (env.ELECTRON_EXEC_PATH) return check(env.ELECTRON_EXEC_PATH, `${env.ELECTRON_EXEC_PATH} ($ELECTRON_EXEC_PATH)`);
  let pkgDir: string;
  try {
    pkgDir = dirname(createRequire(join(root, 'package.json')).resolve('electron/package.json'));
  } catch {
    return { missing: 'the electron package (run `npm install`)' };
  }
  const pathFile = join(pkgDir, 'path.txt');
  const name = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(env.ELECTRON_OVERRIDE_DIST_PATH, name || 'electron');
    return check(p, `${p} ($ELECTRON_OVERRIDE_DIST_PATH)`);
  }
  if (!name) return { missing: `${show(pathFile)}, so no binary in ${show(join(pkgDir, 'dist'))}` };
  return check(join(pkgDir, 'dist', name));
}
