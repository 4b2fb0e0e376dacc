// The dashboard flow both end-to-end tests drive (browser mode and the Electron app): load a
// tiny CartPole preset, reject a negative learning rate, focus the config / start / stop by
// keyboard, see Loss points and an Epoch time point, check the chart legends, screenshot, stop.
// Playwright (playwright-core) only; nothing here imports electron.
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
  return Number(/(\d+) points?/.exec(text ?? '')?.[1] ?? NaN);
}

/**
 * Waits until the chart titled `title` shows at least `atLeast` points (summed over its lines)
 * and draws them, from the series book the page shows now (`dqnProbe.shownBook()`): a curve, or
 * for a line of one point its dot (recharts draws no curve through a single point; a past run
 * stopped a second after its first system sample has one a line). An off-screen chart is not
 * redrawn: scroll it into view first.
 */
export async function waitForPoints(page: Page, title: string, atLeast: number): Promise<void> {
  try {
    await page.waitForFunction(
      ([t, n]) => {
        const region = [...document.querySelectorAll<HTMLElement>('section.chart')].find((s) => s.querySelector('h2')?.textContent === t);
        // Only a chart drawn from the book shown now counts: an off-screen one keeps its last count.
        const shown = (window as unknown as { dqnProbe: { shownBook(): number } }).dqnProbe.shownBook();
        if (region?.dataset.book !== String(shown)) return false;
        const m = /(\d+) points?/.exec(region.querySelector('.chart-count')?.textContent ?? '');
        return m !== null && Number(m[1]) >= Number(n) && region.querySelector('path.recharts-curve, .recharts-line-dot') !== null;
      },
      [title, atLeast] as const,
      LONG,
    );
  } catch (e) {
    // Say what the chart showed when the wait ended, so that a timeout on a loaded machine can be read.
    const seen = await page
      .evaluate((t) => {
        const region = [...document.querySelectorAll<HTMLElement>('section.chart')].find((s) => s.querySelector('h2')?.textContent === t);
        const shown = (window as unknown as { dqnProbe: { shownBook(): number } }).dqnProbe.shownBook();
        return `chart ${region ? `book ${region.dataset.book}, caption '${region.querySelector('.chart-count')?.textContent ?? ''}', curve ${region.querySelector('path.recharts-curve') !== null}, dots ${region.querySelectorAll('.recharts-line-dot').length}` : 'not found'}; shown book ${shown}; view '${document.querySelector('.viewing')?.textContent ?? 'live'}'`;
      }, title)
      .catch((err: unknown) => `(the page could not be read: ${String(err)})`);
    throw new Error(`waiting for ${atLeast} points on '${title}': ${(e as Error).message}; ${seen}`, { cause: e });
  }
}

/**
 * Waits until the live run has sent its first system sample: the system panel stops saying it
 * waits for one. A state of the store, unlike an off-screen chart's point count, which keeps the
 * last run's figure until the chart is scrolled into view and redrawn.
 */
export async function waitForSystemSample(page: Page): Promise<void> {
  await page.getByRole('region', { name: 'System', exact: true }).getByText(/waiting for the first system sample/).waitFor({ state: 'detached', ...LONG });
}

export async function runState(page: Page): Promise<string> {
  return (await page.getByRole('status', { name: 'Run state' }).textContent()) ?? '';
}

export async function waitForState(page: Page, state: string): Promise<void> {
  await page.getByRole('status', { name: 'Run state' }).filter({ hasText: new RegExp(`^${state}$`) }).waitFor(LONG);
}

/**
 * Waits until a run started from the page has ended at epoch `epoch` of `epochs`: the header
 * counts `epoch E / N` and the state is Idle again. Both last once the run is over, unlike
 * Running, which a short run on a busy machine can leave before the page draws it (the host's
 * state messages then reach React in one batch).
 */
export async function waitForRunEnd(page: Page, epoch: number, epochs: number): Promise<void> {
  await page.locator('header.top .metric').filter({ hasText: new RegExp(`^epoch ${epoch} / ${epochs}$`) }).waitFor(LONG);
  await waitForState(page, 'Idle');
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
  assert.equal(await page.getByLabel('schedule.steps_per_epoch', { exact: true }).inputValue(), String(TINY_CARTPOLE.schedule.steps_per_epoch));
}

/** A negative learning rate is shown as an error beside the field and disables Start; fixing it enables Start. */
export async function rejectNegativeLearningRate(page: Page): Promise<void> {
  // Ctrl+, focuses the first config field (DESIGN section 8: keyboard), and says so.
  const fields = page.getByRole('group', { name: 'Config fields' });
  assert.equal(await fields.getAttribute('aria-keyshortcuts'), 'Control+,');
  await page.getByRole('button', { name: 'Start' }).focus();
  await page.keyboard.press('Control+,');
  assert.equal(await page.evaluate(() => document.activeElement?.id), await fields.locator('input, select').first().getAttribute('id'));
  const lr = page.getByLabel('optim.lr', { exact: true });
  await lr.fill('-0.001');
  const field = page.locator('.field', { has: lr });
  await field.getByRole('alert').waitFor();
  assert.equal(await field.getByRole('alert').textContent(), 'must be in (0, 1] 1/step (got -0.001): raise it above 0');
  assert.equal(await lr.getAttribute('aria-invalid'), 'true');
  assert.equal(await page.getByRole('button', { name: 'Start' }).isDisabled(), true);
  assert.match((await page.getByLabel('Changes against the preset').textContent()) ?? '', /optim\.lr/);
  await lr.fill('0.001');
  await page.getByRole('button', { name: 'Start' }).and(page.locator(':enabled')).waitFor();
}

/** Legend entries of a chart region: [label, scalar name] pairs. */
export async function legend(page: Page, title: string): Promise<[string, string][]> {
  const items = page.getByRole('list', { name: `${title} legend` }).getByRole('listitem');
  return Promise.all((await items.all()).map(async (li) => [((await li.textContent()) ?? '').trim(), (await li.getAttribute('title')) ?? ''] as [string, string]));
}

/** Every chart with several curves names them (label in the DOM, scalar name as its title). */
export async function checkLegends(page: Page): Promise<void> {
  assert.deepEqual(await legend(page, 'Replay'), [
    ['total priority', 'replay/total_priority'],
    ['max priority', 'replay/max_priority'],
    ['mean IS weight', 'replay/is_weight_mean'],
    ['beta', 'replay/beta'],
  ]);
  assert.deepEqual(await legend(page, 'Loss'), [
    ['TD loss (raw)', 'losses/td_loss'],
    ['TD loss (EMA 0.60)', 'losses/td_loss'],
  ]);
  assert.deepEqual((await legend(page, 'Q-values')).map(([l]) => l), ['Q min–max', 'Q mean (raw)', 'Q mean (EMA 0.60)', 'mean max-Q']);
  // CartPole's features in the environment's order, after the mean over them.
  assert.deepEqual((await legend(page, 'Causal sensitivity')).slice(2), [
    ['x', 'causal/x'],
    ['x_dot', 'causal/x_dot'],
    ['theta', 'causal/theta'],
    ['theta_dot', 'causal/theta_dot'],
  ]);
  assert.deepEqual((await legend(page, 'Episodic return')).map(([l]) => l), ['training episodes (raw)', 'training episodes (EMA 0.60)', 'evaluation mean']);
}

/** Starts a run with Ctrl+Enter and waits for Loss points and, after the first epoch, an Epoch time point. */
export async function startAndWatch(page: Page, screenshot?: string): Promise<void> {
  const start = page.getByRole('button', { name: 'Start' });
  assert.equal(await start.getAttribute('aria-keyshortcuts'), 'Control+Enter');
  assert.match((await start.getAttribute('title')) ?? '', /Ctrl\+Enter/);
  await page.keyboard.press('Control+Enter');
  await waitForState(page, 'Running');
  await waitForPoints(page, 'Loss', 2);
  await waitForPoints(page, 'Epoch time', 1);
  await waitForPoints(page, 'Causal sensitivity', 5);
  await checkLegends(page);
  assert.match((await page.getByTestId('compute-badge').textContent()) ?? '', /^Compute: CPU/);
  assert.doesNotMatch((await page.getByTestId('replay-badge').textContent()) ?? '', /envs/, 'environments on the host, as env.collector auto asks: the badge says nothing of them');
  assert.ok((await chartPoints(page, 'Loss')) >= 2);
  if (screenshot) {
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, screenshot), fullPage: true });
  }
}

/**
 * The system panel of a live CPU run (issue 16 item 6): the Throughput chart draws steps/s and
 * env steps/s (dashed, on top: here they coincide), the host CPU and memory charts fill, and in
 * place of the GPU charts a note: on a machine without the NVIDIA driver one saying so (NVML's
 * reason in its title), where the driver is there but NVML fails one with the reason. Waits for
 * states (samples come about once a second), never for a fixed time. Screenshot
 * test-results/system-panel.png.
 */
export async function systemPanel(page: Page): Promise<void> {
  const panel = page.getByRole('region', { name: 'System', exact: true });
  await panel.waitFor(LONG);
  // Charts redraw only while on screen: bring each into view before waiting for its points.
  for (const title of ['Throughput', 'Host memory']) {
    await page.getByRole('region', { name: title, exact: true }).scrollIntoViewIfNeeded();
    await waitForPoints(page, title, 2);
  }
  const legendText = (await legend(page, 'Throughput')).map(([label]) => label);
  assert.deepEqual(legendText, ['steps/s', 'env steps/s']);
  // This run takes one env step per gradient step, so the two rates coincide: env steps/s is drawn
  // dashed over the solid steps/s, both visible (one solid line over the other hid it).
  const rates = await page.getByRole('region', { name: 'Throughput', exact: true }).locator('path.recharts-line-curve').evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke-dasharray')));
  assert.deepEqual(rates, [null, '6 4'], 'steps/s solid, env steps/s dashed on top');
  const note = panel.getByRole('note');
  const gpuChart = page.getByRole('region', { name: 'GPU utilisation', exact: true });
  await note.filter({ hasText: /^(GPU readings hidden: |No NVIDIA GPU driver )/ }).or(gpuChart).first().waitFor(LONG);
  if (await gpuChart.count()) {
    await gpuChart.scrollIntoViewIfNeeded();
    await waitForPoints(page, 'GPU utilisation', 2); // a machine with the NVIDIA driver
  } else if ((await note.getAttribute('title')) !== null) {
    // No driver (NVML's library would not load): said plainly, NVML's reason in the title.
    assert.equal(await note.textContent(), 'No NVIDIA GPU driver on this machine: no GPU readings (training runs on the CPU)');
    assert.match((await note.getAttribute('title')) ?? '', /^NVML not found \(libnvidia-ml\.so\.1: /);
  } else {
    // A driver that is there but fails: the reason, which is not the missing library's.
    assert.match((await note.textContent()) ?? '', /^GPU readings hidden: (?!NVML not found)/);
  }
  mkdirSync(RESULTS, { recursive: true });
  await panel.scrollIntoViewIfNeeded();
  await panel.screenshot({ path: join(RESULTS, 'system-panel.png') });
  await page.evaluate(() => window.scrollTo(0, 0)); // the flows after this one start at the top
}

/** Stops the run with Ctrl+. and waits for Idle. */
export async function stop(page: Page): Promise<void> {
  const button = page.getByRole('button', { name: 'Stop' });
  assert.equal(await button.getAttribute('aria-keyshortcuts'), 'Control+.');
  await page.keyboard.press('Control+.');
  await waitForState(page, 'Idle');
  assert.equal(await page.getByRole('button', { name: 'Start' }).isEnabled(), true);
}

/**
 * Reloads the page mid-run: the charts come back with the run's earlier points (the host's
 * liveHistory), not only the points that arrive after the reconnect.
 */
export async function reloadKeepsHistory(page: Page): Promise<void> {
  await waitForPoints(page, 'Loss', 15);
  const before = await chartPoints(page, 'Loss');
  await page.reload();
  await waitForState(page, 'Running');
  // The first count the Loss chart shows after the reload: without the history it would be the
  // one or two points of the first frame.
  const first = await page.waitForFunction(() => {
    const region = [...document.querySelectorAll('section.chart')].find((s) => s.querySelector('h2')?.textContent === 'Loss');
    const n = Number(/(\d+) points?/.exec(region?.querySelector('.chart-count')?.textContent ?? '')?.[1] ?? 0);
    return n > 0 ? n : false;
  }, undefined, LONG);
  const after = Number(await first.jsonValue());
  assert.ok(after >= before, `the Loss chart shows ${after} points right after the reload, ${before} before it`);
}

/**
 * While a run is live the config panel shows that run's config (here: after a reload, which
 * resets the editor's draft to the defaults), read-only with the reason; "Edit a copy" makes it
 * the draft, so the next Start runs the same config.
 */
export async function configShowsLiveRun(page: Page): Promise<void> {
  const note = page.getByRole('note', { name: 'Config shown' });
  await note.waitFor(LONG);
  assert.match((await note.textContent()) ?? '', /Config of the live run \S+, read-only while it runs\./);
  const spe = page.getByLabel('schedule.steps_per_epoch', { exact: true });
  assert.equal(await spe.inputValue(), String(TINY_CARTPOLE.schedule.steps_per_epoch), 'the run\'s own value, not the default');
  assert.equal(await spe.isDisabled(), true);
  assert.equal(await page.getByLabel('network.hidden', { exact: true }).inputValue(), '32, 32');
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'config-of-live-run.png') });
  await note.getByRole('button', { name: 'Edit a copy' }).click();
  await note.waitFor({ state: 'detached', ...LONG });
  assert.equal(await spe.inputValue(), String(TINY_CARTPOLE.schedule.steps_per_epoch), 'the copy is the run\'s config');
  assert.match((await page.getByLabel('Changes against the preset').textContent()) ?? '', /\(copy\) \(0\)/);
}

/** The numbers under a chart's x axis. */
async function xTicks(page: Page, title: string): Promise<number[]> {
  const texts = await page.getByRole('region', { name: title }).locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
  return texts.map(Number).filter((v) => Number.isFinite(v));
}

/** Waits until chart `title` labels its x axis `label`. */
async function waitForXLabel(page: Page, title: string, label: string): Promise<void> {
  await page.getByRole('region', { name: title }).locator('.recharts-label', { hasText: new RegExp(`^${label.replace(/[()]/g, '\\$&')}$`) }).waitFor(LONG);
}

/**
 * The x-axis choice: wall time since the start turns the step charts' axis into seconds (ticks
 * far below the step numbers), the episodic returns' too; back to step restores the steps.
 */
export async function switchXAxis(page: Page): Promise<void> {
  await waitForXLabel(page, 'Loss', 'step');
  const steps = await xTicks(page, 'Loss');
  await page.getByRole('combobox', { name: 'x axis' }).selectOption({ label: 'wall time' });
  await waitForXLabel(page, 'Loss', 'wall time (s)');
  await waitForXLabel(page, 'Episodic return', 'wall time (s)');
  const seconds = await xTicks(page, 'Loss');
  assert.ok(seconds.length > 0 && steps.length > 0);
  assert.ok(Math.max(...seconds) * 10 < Math.max(...steps), `wall-time ticks ${seconds} are seconds, step ticks ${steps} are steps`);
  await waitForXLabel(page, 'Epoch time', 'epoch'); // epoch times keep their epoch axis
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'x-axis-wall-time.png') });
  await page.getByRole('combobox', { name: 'x axis' }).selectOption({ label: 'step' });
  await waitForXLabel(page, 'Loss', 'step');
}

/**
 * The run history is a table of key results: after a run killed with its host and a stopped
 * one, the newest (stopped) row shows its state, backend, final loss, steps/s and wall time; the
 * filter keeps the matching rows; a heading click sorts by that column.
 */
export async function runHistoryTable(page: Page): Promise<void> {
  const table = page.getByRole('table', { name: 'Runs' });
  const rows = table.locator('tbody tr:not(.run-group)');
  await rows.nth(1).waitFor(LONG);
  const cell = (row: number, col: string) => (col === 'name' ? rows.nth(row).getAttribute('data-name') : rows.nth(row).locator(`[data-col=${col}]`).textContent());
  // The host announces 'idle' before the run's lock is released: a listing asked for then still
  // says 'live'; the listing sent once the run has ended says 'stopped'.
  await page.waitForFunction(
    () => document.querySelector('table[aria-label=Runs] tbody tr:not(.run-group) [data-col=state]')?.textContent === 'stopped',
    undefined,
    LONG,
  );
  assert.equal(await cell(0, 'state'), 'stopped');
  assert.equal(await cell(0, 'backend'), 'cpu');
  assert.match((await rows.nth(0).getByRole('button', { name: /^Open / }).textContent()) ?? '', /^e2e-cartpole$/, 'the name without its folder stamp');
  assert.ok(Number.isFinite(Number(await cell(0, 'finalLoss'))), 'a final loss');
  assert.ok(Number(await cell(0, 'stepsPerSec')) > 0, 'a steps/s');
  assert.match((await cell(0, 'wallS')) ?? '', /^\d+ s$|min/);
  assert.equal(await cell(1, 'state'), 'incomplete', 'the run whose host was killed never ended');
  const newest = await cell(0, 'name');
  const filter = page.getByRole('searchbox', { name: 'Filter runs' });
  await filter.fill('incomplete');
  await page.waitForFunction(() => document.querySelectorAll('table[aria-label=Runs] tbody tr:not(.run-group)').length === 1, undefined, LONG);
  assert.notEqual(await cell(0, 'name'), newest);
  await filter.fill('');
  await rows.nth(1).waitFor(LONG);
  await table.getByRole('button', { name: /^Run( [▲▼])?$/ }).click();
  await table.locator('th[aria-sort=ascending]').waitFor(LONG);
  const order = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-name') ?? ''));
  assert.deepEqual(order, [...order].sort(), `${order.join(', ')}: sorted by name, ascending after a click on Run (newest first before)`);
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'run-history-table.png'), fullPage: true });
}

/**
 * Overlays two past runs, the second of them the last run, which the charts show: the first's
 * TD-loss curve joins the Loss chart, named by its run in the legend, the shown one is not drawn a
 * second time, and the config diff of the runs on the charts appears (the same tiny config here:
 * no difference but the name); unticking removes them again.
 */
export async function overlayTwoRuns(page: Page, names: [string, string]): Promise<void> {
  const table = page.getByRole('table', { name: 'Runs' });
  for (const n of names) await table.getByRole('checkbox', { name: `Overlay ${n}`, exact: true }).check();
  await page.evaluate(() => window.scrollTo(0, 0)); // the ticks were scrolled to; charts draw only on screen
  const legendList = page.getByRole('list', { name: 'Loss legend' });
  await legendList.locator(`li[title="${names[0]}: losses/td_loss"]`).waitFor(LONG);
  const diff = page.getByLabel('Config diff');
  await diff.waitFor(LONG);
  assert.match((await diff.textContent()) ?? '', /^Config diff of the 2 runs on the charts \(0 fields differ\)the same config \(names aside\)$/);
  assert.equal(await legendList.locator(`li[title="${names[1]}: losses/td_loss"]`).count(), 0, 'the shown run is not overlaid on itself');
  assert.equal(await page.getByRole('region', { name: 'Loss' }).locator('path.recharts-curve[stroke-dasharray="5 3"]').count(), 1, 'one dashed overlay curve');
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'overlay-two-runs.png'), fullPage: true });
  for (const n of names) await table.getByRole('checkbox', { name: `Overlay ${n}`, exact: true }).uncheck();
  await diff.waitFor({ state: 'detached', ...LONG });
  await page.evaluate(() => window.scrollTo(0, 0)); // back to the charts, which draw only on screen
  await legendList.locator(`li[title="${names[0]}: losses/td_loss"]`).waitFor({ state: 'detached', ...LONG });
}

/** Clicks `action` (Resume, Rename or Delete) in the action menu of run `name`'s row of the run history. */
async function rowAction(page: Page, action: 'Resume' | 'Rename' | 'Delete', name: string): Promise<void> {
  const row = page.getByRole('table', { name: 'Runs' }).locator(`tr[data-name="${name}"]`);
  await row.locator(`summary[aria-label="Actions for ${name}"]`).click();
  await row.getByRole('button', { name: `${action} ${name}`, exact: true }).click();
}

/**
 * Renames the run `from` to `to` (answering the prompt), then deletes it (accepting the
 * confirmation): the table shows the new name, then no longer lists it.
 */
export async function renameThenDeleteRun(page: Page, from: string, to: string): Promise<void> {
  const table = page.getByRole('table', { name: 'Runs' });
  page.once('dialog', (d) => void d.accept(to));
  await rowAction(page, 'Rename', from);
  const renamed = table.locator(`tr[data-name="${to}"]`);
  await renamed.waitFor(LONG);
  const before = await table.locator('tbody tr:not(.run-group)').count();
  let question = '';
  page.once('dialog', (d) => {
    question = d.message();
    void d.accept();
  });
  await rowAction(page, 'Delete', to);
  await renamed.waitFor({ state: 'detached', ...LONG });
  assert.match(question, new RegExp(`Move run ${to} to the trash\\?`));
  assert.equal(await table.locator('tbody tr:not(.run-group)').count(), before - 1);
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

/** A trading config (daily SPY) whose two epochs end within seconds on the CPU backend. */
export const TINY_TRADING = {
  name: 'e2e-trading',
  backend: 'cpu',
  seed: 3,
  env: { kind: 'trading', data: 'resources/data/spy_1d_1999-2020.csv', num_envs: 4, episode_length: 32, test_fraction: 0.15 },
  network: { hidden: [16] },
  replay: { capacity: 4096 },
  optim: { batch_size: 32 },
  schedule: { epochs: 2, steps_per_epoch: 200, learning_starts: 64, eval_episodes: 1, q_stats_interval: 50, causal_interval: 100 },
};

/**
 * Trading views (issue 16 item 5): runs the tiny trading preset to its end, then checks what a
 * person sees: the latest evaluation's equity (agent beside buy-and-hold), position and drawdown,
 * an earlier epoch picked, and per-epoch return, Sharpe (tooltip with the bars per year) and max
 * drawdown charts with the agent beside buy-and-hold. Waits for states only.
 */
export async function tradingViews(page: Page, presetLabel: string): Promise<void> {
  await page.getByRole('button', { name: 'Start' }).waitFor(LONG);
  await page.getByRole('combobox', { name: 'Preset' }).locator('option', { hasText: presetLabel }).waitFor({ state: 'attached', ...LONG });
  await page.getByRole('combobox', { name: 'Preset' }).selectOption({ label: presetLabel });
  await page.getByRole('button', { name: 'Start' }).and(page.locator(':enabled')).click();
  // The panel appears with the first evaluation and names the latest epoch; the run ends after two.
  const panel = page.getByTestId('trading-curves');
  const pick = panel.getByRole('combobox', { name: 'evaluation epoch' });
  await pick.locator('option', { hasText: 'latest (2)' }).waitFor({ state: 'attached', ...LONG });
  await waitForState(page, 'Idle');
  const equity = panel.getByRole('figure', { name: 'Equity' });
  await equity.and(page.locator('[title*="epoch 2 at step 400"]')).waitFor(LONG);
  assert.match((await equity.locator('figcaption').textContent()) ?? '', /Equity.*agent \d+\.\d\d.*buy and hold \d+\.\d\d/);
  assert.match((await panel.getByRole('figure', { name: 'Position' }).locator('figcaption').textContent()) ?? '', /agent -?\d+\.\d\d/);
  assert.match((await panel.getByRole('figure', { name: 'Drawdown' }).locator('figcaption').textContent()) ?? '', /agent \d+(\.\d)?%.*buy and hold \d+(\.\d)?%/);
  // The curves are drawn as wide as a chart (not 270 px), and a hover names the values at that bar.
  await equity.scrollIntoViewIfNeeded();
  const curves = equity.locator('path.recharts-curve');
  await curves.nth(1).waitFor(LONG);
  assert.equal(await curves.count(), 2, 'agent and buy and hold');
  assert.ok(((await curves.first().getAttribute('d')) ?? '').length > 100, 'the equity curve is drawn');
  const plot = (await equity.locator('svg.recharts-surface').boundingBox())!;
  assert.ok(plot.width >= 400 && plot.height >= 180, `the equity plot is ${plot.width.toFixed(0)} x ${plot.height.toFixed(0)} px`);
  await page.mouse.move(plot.x + plot.width * 0.6, plot.y + plot.height / 2);
  const tip = equity.locator('.recharts-tooltip-wrapper');
  await tip.filter({ hasText: /bar \d+/ }).waitFor(LONG);
  assert.match((await tip.textContent()) ?? '', /^bar \d+agent : \d+\.\d{2,}buy and hold : \d+\.\d{2,}$/);
  // Each plot's y ticks are round values whose labels differ and step evenly (an equity within 1 % read "1.00" at every tick).
  for (const name of ['Equity', 'Position', 'Drawdown']) {
    const labels = await panel.getByRole('figure', { name }).locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
    const values = labels.map(Number.parseFloat);
    const steps = values.slice(1).map((v, i) => v - values[i]!);
    assert.ok(values.length >= 3 && steps.every((d) => d > 0 && Math.abs(d - steps[0]!) <= 1e-9 + 1e-6 * Math.abs(steps[0]!)), `${name} y tick labels ${labels.join(', ')}: not distinct and evenly stepped`);
  }
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'trading-curves-hover.png') });
  // The evaluation tables (the validation span's, and the test span's once the run has ended) show every column inside their panels (Sharpe, drawdown, turnover and costs included).
  for (const name of ['Evaluation on the validation span', 'Test span: held out']) {
    const table = page.getByRole('region', { name });
    await table.scrollIntoViewIfNeeded(LONG);
    const tableBox = (await table.boundingBox())!;
    for (const head of ['Sharpe ± SE', 'Max drawdown', 'Turnover', 'Costs']) {
      const b = (await table.getByRole('columnheader', { name: head }).boundingBox())!;
      assert.ok(b.x + b.width <= tableBox.x + tableBox.width, `${name}: ${head} ends at x ${(b.x + b.width).toFixed(0)}, past its panel's ${(tableBox.x + tableBox.width).toFixed(0)}`);
    }
    assert.match((await table.locator('tbody tr').first().textContent()) ?? '', /^agent \(trades on [\d.]+% of decisions\)-?\d+\.\d\d%/, `${name}: returns in percent`);
  }
  // An earlier evaluation, picked.
  await pick.selectOption('1');
  await equity.and(page.locator('[title*="epoch 1 at step 200"]')).waitFor(LONG);
  for (const title of ['Evaluation return', 'Evaluation Sharpe', 'Evaluation max drawdown']) {
    await page.getByRole('region', { name: title }).scrollIntoViewIfNeeded(); // charts draw only while on screen
    await waitForPoints(page, title, 2);
    assert.deepEqual((await legend(page, title)).map(([l]) => l), ['agent', 'buy and hold']);
  }
  // Returns and drawdowns in percent, as in the evaluation table.
  for (const title of ['Evaluation return', 'Evaluation max drawdown']) {
    const ticks = await page.getByRole('region', { name: title }).locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
    assert.ok(ticks.length > 0 && ticks.every((t) => /^-?\d+(\.\d+)?%$/.test(t)), `${title} ticks ${ticks.join(', ')} in percent`);
    // The ticks are evenly spaced, so their labels step evenly (to their 0.01 % rounding): a label
    // printed with its tick's index as the decimals read "0%" under "-0.2%" (recharts passes the index).
    const steps = ticks.map(Number.parseFloat).slice(1).map((v, i) => v - Number.parseFloat(ticks[i]!));
    assert.ok(steps.every((d) => Math.abs(d - steps[0]!) <= 0.011), `${title} tick labels ${ticks.join(', ')} do not step evenly`);
  }
  // The episodic returns are the training episodes', in bps of equity per episode of the config's length; the evaluation walk is not on that axis.
  const returns = page.getByRole('region', { name: 'Episodic return' });
  await returns.scrollIntoViewIfNeeded();
  await waitForPoints(page, 'Episodic return', 2);
  await returns.getByText(`bps of equity per ${TINY_TRADING.env.episode_length}-bar episode`).waitFor(LONG);
  assert.deepEqual((await legend(page, 'Episodic return')).map(([l]) => l), ['training episodes (raw)', 'training episodes (EMA 0.60)']);
  const sharpe = page.locator('div[title]', { has: page.getByRole('region', { name: 'Evaluation Sharpe' }) });
  assert.match((await sharpe.getAttribute('title')) ?? '', /√\(\d+ bars per year \(the validation span's bars per 365\.25-day calendar year\)/);
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'trading-views.png'), fullPage: true });
}
