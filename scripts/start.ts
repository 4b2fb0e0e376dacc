// `npm start [-- electron-vite preview options]`: builds and opens the desktop app with
// electron-vite preview, after checking that Electron's binary is installed (passing the one found
// on as $ELECTRON_EXEC_PATH, which electron-vite honours). When it is missing, prints one line
// that says what is missing and what to do, and exits 1.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findElectron, INSTALL_HINT } from './electron-binary.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const found = findElectron(ROOT, process.env);
if ('missing' in found) {
  console.error(`npm start: the Electron binary is not installed (missing ${found.missing}): ${INSTALL_HINT}`);
  process.exit(1);
}
const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'preview', ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, ELECTRON_EXEC_PATH: found.path },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
