// The harness of the browser-mode end-to-end tests: `npm run serve` (trainer host under Node,
// WebSocket bridge) on a free loopback port with a temporary data and runs folder, driven by
// Debian's Chromium through playwright-core. Builds the renderer if needed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { ensureRendererBuilt } from '../main/serve/renderer-build.ts';
import { loadFromEnv, startCpuLoad } from './cpu-load.ts';
import { CHROMIUM_FLAGS, ROOT, trainerMissing } from './flow.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Why the browser tests cannot run here (no Chromium, no trainer), or undefined. */
export const skip = !existsSync(CHROMIUM) ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)` : await trainerMissing();
if (skip) console.log(`# browser e2e skipped: ${skip}`);
/** DQN_E2E_CPU_LOAD=N runs N busy processes beside the test (a busy machine: issue 16, item 3). */
const loadWorkers = loadFromEnv();

/** Starts `npm run serve`'s program on a free port; resolves with the printed URL. */
export function serve(dataDir: string, runsDir: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'main', 'serve', 'cli.ts'), '--port', '0', '--data-dir', dataDir, '--runs-dir', runsDir, '--no-build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no URL within 60 s:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /DQN Console: (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited with code ${code}:\n${out}`)));
  });
}

/** What a served page may be given besides its first preset. */
export interface ServedPageOptions {
  /** The browser window's size in CSS pixels (default 1500 x 1000). */
  viewport?: { width: number; height: number };
  /** More user presets, by name. */
  presets?: Record<string, unknown>;
}

/**
 * One served dashboard for a test: an optional CPU load beside it, a temporary data folder with
 * `preset` saved as `<presetName>.json` (and `options.presets`), `npm run serve` on loopback and
 * Chromium with a fresh profile (--user-data-dir); `body` gets the page (not yet navigated), the
 * server and the folder. Everything is stopped and removed afterwards, whatever the body did.
 */
export async function withServedPage(
  presetName: string,
  preset: unknown,
  body: (ctx: { page: Page; server: Awaited<ReturnType<typeof serve>>; tmp: string }) => Promise<void>,
  options: ServedPageOptions = {},
): Promise<void> {
  await ensureRendererBuilt(ROOT);
  const load = loadWorkers ? startCpuLoad(loadWorkers) : undefined;
  if (load) console.log(`${loadWorkers} busy processes beside the test: ${load.pids.join(', ')}`);
  const tmp = mkdtempSync(join(tmpdir(), 'dqn-e2e-'));
  mkdirSync(join(tmp, 'data', 'presets'), { recursive: true });
  for (const [name, config] of Object.entries({ [presetName]: preset, ...options.presets })) writeFileSync(join(tmp, 'data', 'presets', `${name}.json`), JSON.stringify(config));
  const server = await serve(join(tmp, 'data'), join(tmp, 'runs'));
  const browser = await chromium.launchPersistentContext(join(tmp, 'chromium'), { executablePath: CHROMIUM, args: CHROMIUM_FLAGS, viewport: options.viewport ?? { width: 1500, height: 1000 } });
  try {
    await body({ page: browser.pages()[0] ?? (await browser.newPage()), server, tmp });
  } finally {
    await browser.close();
    server.child.kill('SIGTERM');
    await new Promise((r) => server.child.once('exit', r));
    rmSync(tmp, { recursive: true, force: true });
    await load?.stop();
  }
}

