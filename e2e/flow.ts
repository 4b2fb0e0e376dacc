// The dashboard flow both end-to-end tests drive (browser mode and the Electron app): load a
// tiny CartPole preset, reject a negative learning rate, start, see Loss points and an Epoch
// time point, screenshot, stop. Playwright (playwright-core) only; nothing here imports electron.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

export const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..');
export const RESULTS = join(ROOT, 'test-results');

/** A CartPole config whose first epoch ends within seconds on the CPU backend. */
export const TINY_CARTPOLE = {
  name: 'e2e-cartpole',
  backend: 'cpu',
  seed: 3,
  env: { kind: 'cartpole', num_envs: 4 },
  network: { hidden: [32, 32] },
  replay: { capacity: 4096 },
  optim: { batch_size: 32 },
  exploration: { eps_decay_steps: 2000 },
  // Far more epochs than a test waits for, so the run is still going when the test stops it.
  schedule: { epochs: 100_000, steps_per_epoch: 500, learning_starts: 64, eval_episodes: 1, q_stats_interval: 10, causal_interval: 50 },
};

/** Chromium flags for a quiet, reproducible headless run. */
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const LONG = { timeout: 90_000 };

/** Number shown in a chart's "N points" caption. */
export async function chartPoints(page: Page, title: string): Promise<number> {
  const text = await page.getByRole('region', { name: title }).locator('.chart-count').textContent();
  return Number(/(\d+) points/.exec(text ?? '')?.[1] ?? NaN);
}

export async function waitForPoints(page: Page, title: string, atLeast: number): Promise<void> {
  await page.waitForFunction(
    ([t, n]) => {
      const region = [...document.querySelectorAll('section.chart')].find((s) => s.querySelector('h2')?.textContent === t);
      const m = /(\d+) points/.exec(region?.querySelector('.chart-count')?.textContent ?? '');
      return m !== null && Number(m[1]) >= Number(n) && region!.querySelector('path.recharts-curve') !== null;
    },
    [title, atLeast] as const,
    LONG,
  );
}

export async function runState(page: Page): Promise<string> {
  return (await page.getByRole('status', { name: 'Run state' }).textContent()) ?? '';
}

export async function waitForState(page: Page, state: string): Promise<void> {
  await page.getByRole('status', { name: 'Run state' }).filter({ hasText: new RegExp(`^${state}$`) }).waitFor(LONG);
}

/** Header, chart regions and the preset list are there; the tiny preset gets loaded. */
export async function openDashboard(page: Page, presetLabel: string): Promise<void> {
  await page.getByRole('button', { name: 'Start' }).waitFor(LONG);
  assert.equal(await runState(page), 'Idle');
  for (const title of ['Loss', 'Epoch time', 'Q-values', 'Causal sensitivity', 'Replay', 'Episodic return']) await page.getByRole('region', { name: title }).waitFor();
  assert.match((await page.getByTestId('compute-badge').textContent()) ?? '', /^Compute:/);
  assert.match((await page.getByTestId('replay-badge').textContent()) ?? '', /^Replay:/);
  await page.getByRole('combobox', { name: 'Preset' }).locator('option', { hasText: presetLabel }).waitFor({ state: 'attached', ...LONG });
  await page.getByRole('combobox', { name: 'Preset' }).selectOption({ label: presetLabel });
  assert.equal(await page.getByLabel('schedule.steps_per_epoch').inputValue(), String(TINY_CARTPOLE.schedule.steps_per_epoch));
}

/** A negative learning rate is shown as an error beside the field and disables Start; fixing it enables Start. */
export async function rejectNegativeLearningRate(page: Page): Promise<void> {
  const lr = page.getByLabel('optim.lr');
  await lr.fill('-0.001');
  const field = page.locator('.field', { has: lr });
  await field.getByRole('alert').waitFor();
  assert.match((await field.getByRole('alert').textContent()) ?? '', />0/);
  assert.equal(await lr.getAttribute('aria-invalid'), 'true');
  assert.equal(await page.getByRole('button', { name: 'Start' }).isDisabled(), true);
  assert.match((await page.getByLabel('Changes against the preset').textContent()) ?? '', /optim\.lr/);
  await lr.fill('0.001');
  await page.getByRole('button', { name: 'Start' }).and(page.locator(':enabled')).waitFor();
}

/** Starts a run and waits for Loss points and, after the first epoch, an Epoch time point. */
export async function startAndWatch(page: Page, screenshot?: string): Promise<void> {
  await page.getByRole('button', { name: 'Start' }).click();
  await waitForState(page, 'Running');
  await waitForPoints(page, 'Loss', 2);
  await waitForPoints(page, 'Epoch time', 1);
  assert.match((await page.getByTestId('compute-badge').textContent()) ?? '', /^Compute: CPU/);
  assert.ok((await chartPoints(page, 'Loss')) >= 2);
  if (screenshot) {
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, screenshot), fullPage: true });
  }
}

export async function stop(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Stop' }).click();
  await waitForState(page, 'Idle');
  assert.equal(await page.getByRole('button', { name: 'Start' }).isEnabled(), true);
}

/** Why the end-to-end tests cannot run here, or undefined when they can. */
export async function trainerMissing(): Promise<string | undefined> {
  try {
    const { loadAddon } = await import('../native/addon.ts');
    if (typeof loadAddon().Trainer !== 'function') return 'the native addon has no Trainer binding yet (build the learner: npm run build:native)';
  } catch (e) {
    return `the native addon does not load: ${(e as Error).message}`;
  }
  return undefined;
}
