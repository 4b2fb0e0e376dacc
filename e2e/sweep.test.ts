// End-to-end test of the Sweep view in browser mode (issue 25 item 3): a tiny sweep (4 trials x 2
// seeds) run to its end by `npm run sweep` into the served runs folder is listed under Sweeps;
// opened, it shows its four trials ranked on validation with the best marked and its test-span
// figure (the table inside its panel at 1280 px too), and a trial opens on the charts as its seed
// group. Screenshots in test-results/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SweepViewSchema } from '../common/sweep-state.ts';
import { TINY_SWEEP, writeTinySweep } from '../main/testing/tiny-sweep.ts';
import { statsText } from '../renderer/sweep-view.ts';
import { RESULTS, ROOT, TINY_TRADING } from './flow.ts';
import { skip, withServedPage } from './served-page.ts';

const LONG = { timeout: 90_000 };

test('browser mode: the Sweep view of a finished tiny sweep lists its trials ranked on validation, marks the best with its test figure, and opens a trial as its seed group', { skip, timeout: 300_000 }, async () => {
  await withServedPage('e2e-trading', TINY_TRADING, async ({ page, server, tmp }) => {
    const runs = join(tmp, 'runs');
    const cli = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'main', 'cli', 'sweep.ts'), '--config', writeTinySweep(tmp), '--runs-dir', runs], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
    assert.equal(cli.status, 0, `the CLI ran the sweep: ${cli.stderr.slice(-2000)}`);
    const sweep = SweepViewSchema.parse(JSON.parse(readFileSync(join(runs, 'tiny-sweep', 'sweep.json'), 'utf8')));
    const best = sweep.trials.find((t) => t.index === sweep.ranking[0])!;

    await page.goto(server.url);
    await page.getByRole('button', { name: 'Open sweep tiny' }).click(LONG);
    const panel = page.getByRole('region', { name: 'Sweep tiny' });
    await panel.waitFor(LONG);
    const rows = panel.getByRole('table', { name: 'Trials' }).locator('tbody tr');
    assert.equal(await rows.count(), 4);
    assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => Number((tr as HTMLElement).dataset.trial))), sweep.ranking, 'best first, as ranked');
    const top = rows.first();
    assert.match((await top.textContent()) ?? '', /★ best/);
    assert.equal(await top.getAttribute('class'), 'best');
    assert.equal(await top.locator('[data-col=validation]').textContent(), statsText('return', best.validation!));
    assert.equal(await top.locator('[data-col=test]').textContent(), `${statsText('return', sweep.test!.stats!)} (n = 2)`);
    assert.equal(await rows.nth(1).locator('[data-col=test]').textContent(), '', 'only the top trial is shown on the test span');
    mkdirSync(RESULTS, { recursive: true });
    await page.evaluate(() => window.scrollTo(0, 0)); // the Sweep view heads the charts; the list beside the run history scrolled the page
    await page.screenshot({ path: join(RESULTS, 'sweep-view.png') });
    // At 1280 px the table fits its panel: the test figure was cut at "(" behind a scroll bar.
    await page.setViewportSize({ width: 1280, height: 800 });
    const wrap = panel.locator('.sweep-table-wrap');
    const widths = await wrap.evaluate((w) => ({ table: w.scrollWidth, panel: w.clientWidth }));
    await page.screenshot({ path: join(RESULTS, 'sweep-view-1280.png') });
    assert.ok(widths.table <= widths.panel, `the Trials table is ${widths.table} px wide in a ${widths.panel} px panel at 1280 px`);
    await page.setViewportSize({ width: 1500, height: 1000 });

    await top.getByRole('button', { name: `Open trial ${best.index}` }).click();
    await page.getByText('showing a seed group').waitFor(LONG);
    await page.getByRole('region', { name: 'Seed group' }).locator('code', { hasText: best.group }).waitFor(LONG);
  });
});

// The walkthrough of issue 26: a sweep of one seed per trial read "2 trials x 1 seeds (3)" and
// "-6.6% ± 0%" with "[-6.6%, -6.6%]" (an interval of zero width that one seed cannot give), and a
// trial opened from it (a CLI run) said it "was recorded before runs kept" system readings.
test('browser mode: a 1-seed sweep says it has no interval, and its trial, a CLI run, says why it has no system readings', { skip, timeout: 300_000 }, async () => {
  await withServedPage('e2e-trading', TINY_TRADING, async ({ page, server, tmp }) => {
    const runs = join(tmp, 'runs');
    const file = writeTinySweep(tmp, { ...TINY_SWEEP, seeds: 1, params: { 'optim.lr': TINY_SWEEP.params['optim.lr'] } });
    const cli = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'main', 'cli', 'sweep.ts'), '--config', file, '--runs-dir', runs], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
    assert.equal(cli.status, 0, `the CLI ran the sweep: ${cli.stderr.slice(-2000)}`);
    const sweep = SweepViewSchema.parse(JSON.parse(readFileSync(join(runs, 'tiny-sweep', 'sweep.json'), 'utf8')));

    await page.goto(server.url);
    await page.getByRole('button', { name: 'Open sweep tiny' }).click(LONG);
    const panel = page.getByRole('region', { name: 'Sweep tiny' });
    await panel.waitFor(LONG);
    assert.match((await panel.locator('p.muted').first().textContent()) ?? '', new RegExp(`^grid search, 2 trials x 1 seed \\(seed ${sweep.seeds[0]}\\), ranked`));
    const top = panel.getByRole('table', { name: 'Trials' }).locator('tbody tr').first();
    assert.match((await top.locator('[data-col=validation]').textContent()) ?? '', /^-?\d+(\.\d+)?% \(1 seed: no interval\)$/);
    assert.doesNotMatch((await top.textContent()) ?? '', /± 0%/);
    assert.match((await top.locator('[data-col=test]').textContent()) ?? '', /^-?\d+(\.\d+)?% \(n = 1: no interval\)$/);
    // The run history lists each trial as a group of one seed: no zero-width "95% CI a–a" there either.
    const groupRow = page.getByRole('table', { name: 'Runs' }).locator(`tr.run-group[data-group="${sweep.trials[0]!.group}"]`);
    await groupRow.waitFor(LONG);
    assert.match((await groupRow.textContent()) ?? '', /-?\d+\.\d( bp)? \(1 seed: no interval\)/);
    assert.doesNotMatch((await groupRow.textContent()) ?? '', /95% CI/);
    mkdirSync(RESULTS, { recursive: true });
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(RESULTS, 'sweep-view-1-seed.png') });

    // One seed: the trial opens as its one run, trained by the CLI, which samples no system readings.
    await top.getByRole('button', { name: /^Open trial / }).click();
    await page.getByText('showing a past run').waitFor(LONG);
    const note = page.getByRole('region', { name: 'System', exact: true }).getByRole('note');
    await note.filter({ hasText: /runs trained by the CLI \(npm run train, npm run sweep\)/ }).waitFor(LONG);
    assert.doesNotMatch((await note.textContent()) ?? '', /^No system readings for this run: it was recorded before/);
  });
});
