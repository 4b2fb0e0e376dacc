// End-to-end tests of browser mode: `npm run serve` (trainer host under Node, WebSocket bridge)
// driven by Debian's Chromium through playwright-core (harness: served-page.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { configShowsLiveRun, openDashboard, overlayTwoRuns, renameThenDeleteRun, runHistoryTable, tradingViews, TINY_TRADING, switchXAxis, rejectNegativeLearningRate, reloadKeepsHistory, RESULTS, startAndWatch, stop, systemPanel, TINY_CARTPOLE, waitForPoints, waitForState, waitForSystemSample } from './flow.ts';
import { skip, withServedPage } from './served-page.ts';

test('browser mode: start a CartPole run, see Loss and Epoch time points and the legends, reload mid-run and keep the points, reject a bad value, survive a host kill, stop', { skip, timeout: 300_000 }, async () => {
  await withServedPage('e2e-cartpole', TINY_CARTPOLE, async ({ page, server, tmp }) => {
    const cspErrors: string[] = [];
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/, 'loopback by default, with a token');
    const refused = await fetch(server.url.replace(/\?token=.*/, '?token=wrong'));
    assert.equal(refused.status, 401, 'the page is refused with a wrong token');

    page.on('console', (m) => /Content Security Policy/i.test(m.text()) && cspErrors.push(m.text()));
    await page.goto(server.url);
    await openDashboard(page, 'e2e-cartpole (user)');
    await rejectNegativeLearningRate(page);
    await startAndWatch(page, 'dashboard-running.png');
    await systemPanel(page);
    await reloadKeepsHistory(page);
    await configShowsLiveRun(page);
    await switchXAxis(page);

    // Kill the trainer host: the reason is shown, the run is halted, a new host comes up.
    const pid = Number(await page.getByTestId('host-pid').getAttribute('data-pid'));
    assert.ok(pid > 0);
    process.kill(pid, 'SIGKILL');
    const notice = page.getByTestId('host-exit');
    await notice.waitFor({ timeout: 30_000 });
    assert.match((await notice.textContent()) ?? '', new RegExp(`pid ${pid}\\) killed by SIGKILL; a new host was started`));
    await waitForState(page, 'Halted');
    await page.waitForFunction((old) => {
      const p = document.querySelector('[data-testid=host-pid]')?.getAttribute('data-pid');
      return !!p && p !== String(old);
    }, pid, { timeout: 60_000 });

    // Start again on the new host.
    await page.getByRole('button', { name: 'Start' }).click();
    await waitForState(page, 'Running');
    await waitForPoints(page, 'Loss', 2);
    // A system sample of this run before Stop (its two rates make two points): the run keeps it for
    // its past view below. Waited for in the store's state: the off-screen Throughput chart still
    // counts the killed run's points until it is redrawn.
    await waitForSystemSample(page);
    await page.getByRole('region', { name: 'Throughput', exact: true }).scrollIntoViewIfNeeded();
    await waitForPoints(page, 'Throughput', 2);
    await page.evaluate(() => window.scrollTo(0, 0));
    await stop(page);
    // Stop keeps a checkpoint: the newest run folder has a stop-step-N checkpoint.
    const runs = readdirSync(join(tmp, 'runs')).sort();
    const checkpoints = readdirSync(join(tmp, 'runs', runs.at(-1)!, 'checkpoints'));
    assert.ok(checkpoints.some((c) => /^stop-step-\d+$/.test(c)), `a stop checkpoint in ${checkpoints.join(', ')}`);
    // The run history lists both runs once they ended.
    await page.getByRole('region', { name: 'Run history' }).getByRole('button', { name: /^Resume / }).nth(1).waitFor({ timeout: 30_000 });
    await runHistoryTable(page);
    await overlayTwoRuns(page, [runs.at(-2)!, runs.at(-1)!]);
    // A bookmark without the token (the page keeps it in its origin's storage) that names a run opens it.
    await page.goto(`${server.url.replace(/\?token=.*/, '')}?run=${runs.at(-1)}`);
    await page.getByText('showing a past run').waitFor({ timeout: 60_000 });
    assert.match((await page.getByRole('region', { name: 'Run history' }).locator('.viewing').textContent()) ?? '', new RegExp(`Viewing ${runs.at(-1)}`));
    await waitForPoints(page, 'Loss', 2);
    // Its system panel draws the steps/s it recorded (metrics.jsonl system records), not a blank chart.
    await page.getByRole('region', { name: 'Throughput', exact: true }).scrollIntoViewIfNeeded();
    await waitForPoints(page, 'Throughput', 2);
    await page.evaluate(() => window.scrollTo(0, 0));
    // Rename the run whose host was killed, then move it to the trash.
    const killed = runs.at(-2)!;
    await renameThenDeleteRun(page, killed, 'e2e-killed-run');
    assert.deepEqual(readdirSync(join(tmp, 'runs', '.trash')), ['e2e-killed-run'], 'the deleted run waits in the trash');
    assert.ok(!readdirSync(join(tmp, 'runs')).includes(killed));
    assert.deepEqual(cspErrors, [], 'no Content-Security-Policy violations');
  });
});

test('browser mode: a C51 run with an ensemble trains on the CPU saying why and shows the Heads panel with its parts only; the config editor shows the heads fields', { skip, timeout: 300_000 }, async () => {
  const preset = { ...TINY_CARTPOLE, name: 'e2e-heads', backend: 'auto', heads: { main: 'c51', c51: { v_min: 0, v_max: 100 }, ensemble: { heads: 2 } } };
  await withServedPage('e2e-heads', preset, async ({ page, server }) => {
    await page.goto(server.url);
    await openDashboard(page, 'e2e-heads (user)');
    assert.equal(await page.getByRole('region', { name: 'Heads', exact: true }).count(), 0, 'no run yet: no Heads panel');
    const field = (path: string) => page.locator(`#cfg-${path.replace(/\./g, '-')}`);
    assert.equal(await field('heads.main').inputValue(), 'c51');
    assert.match((await page.locator('#cfg-heads-iqn-share-help').textContent()) ?? '', /^default 0\.2 fraction of grad_clip · range \[0, 1\)$/);
    await page.keyboard.press('Control+Enter');
    await waitForState(page, 'Running');
    assert.match((await page.getByTestId('compute-badge').textContent()) ?? '', /^Compute: CPU \(the GPU learner has no C51 head or ensemble yet \(heads\.main = c51, heads\.ensemble\.heads = 2\)(; .+)?\)$/);
    const panel = page.getByRole('region', { name: 'Heads', exact: true });
    await panel.waitFor({ timeout: 90_000 });
    const titles = await panel.locator('section h2').allTextContents();
    assert.deepEqual(titles, ['Head losses', 'Gradient norm: main head (C51)', 'Gradient norm: ensemble', 'Ensemble disagreement', 'C51 greedy-action distribution']);
    await page.getByRole('region', { name: 'Head losses', exact: true }).scrollIntoViewIfNeeded();
    await waitForPoints(page, 'Head losses', 2);
    assert.deepEqual((await page.getByRole('list', { name: 'Head losses legend' }).locator('li').allTextContents()).filter((l) => !l.includes('raw')), ['main head (C51: cross-entropy) (EMA 0.60)', 'ensemble (mean masked Huber) (EMA 0.60)']);
    mkdirSync(RESULTS, { recursive: true });
    await panel.screenshot({ path: join(RESULTS, 'heads-panel.png') });
    await page.evaluate(() => window.scrollTo(0, 0));
    await stop(page);
  });
});

test('browser mode: a trading run shows its evaluation curves (equity beside buy-and-hold, position, drawdown) and per-epoch return, Sharpe and drawdown charts', { skip, timeout: 300_000 }, async () => {
  await withServedPage('e2e-trading', TINY_TRADING, async ({ page, server, tmp }) => {
    await page.goto(server.url);
    await tradingViews(page, 'e2e-trading (user)');
    const [run] = readdirSync(join(tmp, 'runs')).filter((n) => !n.startsWith('.'));
    assert.deepEqual(readdirSync(join(tmp, 'runs', run!, 'eval')).sort(), ['epoch-1.json', 'epoch-2.json'], 'one curves file per evaluation');
  });
});
