// End-to-end test of the desktop app through Playwright's Electron driver: the same flow as
// browser mode. It needs the Electron binary, which `npm install` does not download (electron
// has no postinstall); where it is missing the test is skipped and says so. Nothing here
// imports electron: the binary is found as `npm start` finds it (scripts/electron-binary.ts).
import { test } from 'node:test';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron } from 'playwright-core';
import { findElectron } from '../scripts/electron-binary.ts';
import { openDashboard, rejectNegativeLearningRate, ROOT, startAndWatch, stop, TINY_CARTPOLE, trainerMissing } from './flow.ts';

/** The Electron executable, or why there is none. */
function electronBinary(): { path?: string; why?: string } {
  if (process.env.ELECTRON_PATH) return existsSync(process.env.ELECTRON_PATH) ? { path: process.env.ELECTRON_PATH } : { why: `ELECTRON_PATH=${process.env.ELECTRON_PATH} does not exist` };
  const found = findElectron(ROOT, process.env);
  return 'path' in found ? found : { why: `the Electron binary is not installed (missing ${found.missing}; run \`npx install-electron\` where downloads are allowed, or set ELECTRON_PATH)` };
}

const bin = electronBinary();
const skip = bin.why ?? (await trainerMissing());
if (skip) console.log(`# electron e2e skipped: ${skip}`);

test('desktop app: start a CartPole run, see Loss and Epoch time points, reject a bad value, stop', { skip, timeout: 300_000 }, async () => {
  const { build } = await import('electron-vite');
  await build({ configFile: join(ROOT, 'electron.vite.config.ts'), logLevel: 'warn' });
  const tmp = mkdtempSync(join(tmpdir(), 'dqn-e2e-electron-'));
  mkdirSync(join(tmp, 'user', 'presets'), { recursive: true });
  writeFileSync(join(tmp, 'user', 'presets', 'e2e-cartpole.json'), JSON.stringify(TINY_CARTPOLE));
  const app = await _electron.launch({
    executablePath: bin.path!,
    args: ['--no-sandbox', '--disable-gpu', ROOT],
    cwd: ROOT,
    env: { ...process.env, DQN_USER_DATA: join(tmp, 'user'), DQN_RUNS_DIR: join(tmp, 'runs') } as Record<string, string>,
  });
  try {
    const page = await app.firstWindow();
    await openDashboard(page, 'e2e-cartpole (user)');
    await rejectNegativeLearningRate(page);
    await startAndWatch(page, 'electron-running.png');
    await stop(page);
  } finally {
    await app.close();
    rmSync(tmp, { recursive: true, force: true });
  }
});
