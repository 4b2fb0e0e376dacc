// End-to-end test of seed groups in browser mode (issue 27 item 4): a tiny CPU group trained by
// the CLI (`--seeds 3`) into the served runs folder is one row of the run history, expands to its
// members and opens as the members' mean with a band on every chart, members drawn on demand.
// Screenshots at 1280x800 and 1920x1080 (and 1920x1080 on the light theme) land in test-results/.
// A group of trading runs shows its members' evaluations and the curves of a member picked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { RUN_COLORS, SERIES_COLORS } from '../renderer/lib/palette.ts';
import { runTitle } from '../renderer/lib/run-table.ts';
import { ink, THEMES } from '../renderer/lib/theme.ts';
import { legend, RESULTS, ROOT, TINY_CARTPOLE, TINY_TRADING, waitForPoints } from './flow.ts';
import { skip, withServedPage } from './served-page.ts';
import { hexOf } from './views.ts';

const LONG = { timeout: 90_000 };

/**
 * With the group open and member seed 4 drawn: member seed 3 drawn too and a past run (`overlaid`)
 * ticked as an overlay; the three dashed Loss curves take three run colours, none of them the
 * mean's (one allocator for overlays and members: the overlay took the first member's colour).
 * Screenshot test-results/seed-group-overlay-colours.png; then both are taken off again.
 */
async function runColoursApart(page: Page, overlaid: string): Promise<void> {
  const members = page.getByRole('group', { name: 'Members drawn over the mean' });
  await members.getByRole('checkbox', { name: 'seed 3' }).check();
  await page.getByRole('table', { name: 'Runs' }).getByRole('checkbox', { name: `Overlay ${overlaid}`, exact: true }).check();
  await page.evaluate(() => window.scrollTo(0, 0)); // back to the charts, which draw only on screen
  const loss = page.getByRole('region', { name: 'Loss' });
  await page.getByRole('list', { name: 'Loss legend' }).locator(`li[title="${overlaid}: losses/td_loss"]`).waitFor(LONG);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=chart-loss] path.recharts-curve[stroke-dasharray]').length === 3, undefined, LONG);
  const dashed = await loss.locator('path.recharts-curve[stroke-dasharray]').evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke')));
  const mean = await loss.locator('path.recharts-curve:not([stroke-dasharray])').first().getAttribute('stroke');
  assert.equal(new Set(dashed).size, 3, `seed 3, seed 4 and the overlaid run in three colours: ${dashed.join(', ')}`);
  assert.ok(!dashed.includes(mean), `none in the mean's colour ${mean}`);
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'seed-group-overlay-colours.png') });
  await members.getByRole('checkbox', { name: 'seed 3' }).uncheck();
  await page.getByRole('table', { name: 'Runs' }).getByRole('checkbox', { name: `Overlay ${overlaid}`, exact: true }).uncheck();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=chart-loss] path.recharts-curve[stroke-dasharray]').length === 1, undefined, LONG);
}
/** Three epochs of 100 steps: a few seconds per seed on the CPU. */
const GROUP_CONFIG = { ...TINY_CARTPOLE, name: 'e2e-group', schedule: { ...TINY_CARTPOLE.schedule, epochs: 3, steps_per_epoch: 100 } };

test('browser mode: a --seeds 3 group is one history row that expands to its members, and opens as the mean with a min-max or 95% band and members on demand', { skip, timeout: 300_000 }, async () => {
  await withServedPage(
    'e2e-cartpole',
    TINY_CARTPOLE,
    async ({ page, server, tmp }) => {
      const runs = join(tmp, 'runs');
      writeFileSync(join(tmp, 'group.json'), JSON.stringify(GROUP_CONFIG));
      const cli = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'main', 'cli', 'train.ts'), '--config', join(tmp, 'group.json'), '--seeds', '3', '--runs-dir', runs, '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
      assert.equal(cli.status, 0, `the CLI trained the group: ${cli.stderr.slice(-2000)}`);
      const summaryFile = readdirSync(runs).find((n) => n.endsWith('-seeds.json'))!;
      const group = summaryFile.slice(0, -'.json'.length);
      const summary = JSON.parse(readFileSync(join(runs, summaryFile), 'utf8')) as { eval_mean_return: { mean: number; mean_ci95: [number, number] } };
      const members = readdirSync(runs).filter((n) => /-seed\d+$/.test(n)).sort();
      assert.equal(members.length, 3);

      await page.goto(server.url);
      const table = page.getByRole('table', { name: 'Runs' });
      const row = table.locator(`tr.run-group[data-group="${group}"]`);
      await row.waitFor(LONG);
      const cell = (col: string) => row.locator(`[data-col=${col}]`).textContent();
      assert.match((await cell('name')) ?? '', new RegExp(`^${runTitle(group)} · 3 seeds$`));
      assert.equal(await cell('state'), 'finished');
      const f = (v: number) => v.toFixed(1);
      assert.equal(await cell('lastEvalReturn'), `${f(summary.eval_mean_return.mean)} (95% CI ${f(summary.eval_mean_return.mean_ci95[0])} to ${f(summary.eval_mean_return.mean_ci95[1])})`);
      assert.equal(await table.getByRole('button', { name: `Open ${members[0]}`, exact: true }).count(), 0, 'members hidden until the group is expanded');
      await row.getByRole('button', { name: `Members of ${group}` }).click();
      for (const m of members) await table.getByRole('button', { name: `Open ${m}`, exact: true }).waitFor(LONG);
      mkdirSync(RESULTS, { recursive: true });
      await page.getByRole('region', { name: 'Run history' }).screenshot({ path: join(RESULTS, 'seed-group-history.png') });
      await page.evaluate(() => window.scrollTo(0, 0)); // back to the charts, which draw only on screen

      await row.getByRole('button', { name: `Open group ${group}` }).click();
      await page.getByText('showing a seed group').waitFor(LONG);
      // The click scrolled the row into view: back to the charts, which draw only on screen.
      await page.evaluate(() => window.scrollTo(0, 0));
      await waitForPoints(page, 'Loss', 2);
      const lossLegend = async () => (await legend(page, 'Loss')).map(([l]) => l);
      assert.deepEqual(await lossLegend(), ['TD loss: min–max over seeds', 'TD loss (raw)', 'TD loss (EMA 0.60)']);
      const loss = page.getByRole('region', { name: 'Loss' });
      assert.equal(await loss.locator('.recharts-area-area').count(), 1, 'one band behind the mean');
      const minMaxBand = await loss.locator('.recharts-area-area').getAttribute('d');
      mkdirSync(RESULTS, { recursive: true });
      await page.screenshot({ path: join(RESULTS, 'seed-group-1280x800.png') });

      await page.getByRole('combobox', { name: 'Group band' }).selectOption({ label: '95% t-interval of the mean' });
      await page.getByRole('list', { name: 'Loss legend' }).getByText('TD loss: 95% t-interval of the mean').waitFor(LONG);
      await page.waitForFunction((d) => document.querySelector('[data-testid=chart-loss] .recharts-area-area')?.getAttribute('d') !== d, minMaxBand, LONG);

      const member = page.getByRole('group', { name: 'Members drawn over the mean' }).getByRole('checkbox', { name: 'seed 4' });
      await member.check();
      await page.getByRole('list', { name: 'Loss legend' }).getByText('seed 4', { exact: true }).waitFor(LONG);
      assert.equal(await loss.locator('path.recharts-curve[stroke-dasharray]').count(), 1, 'the member drawn over the mean');
      await runColoursApart(page, members[2]!);
      await page.setViewportSize({ width: 1920, height: 1080 });
      await page.screenshot({ path: join(RESULTS, 'seed-group-1920x1080.png') });
      // The light theme: the band, the mean and the member are drawn in the theme's inks (legible on white), the member picker's swatch too.
      await page.getByRole('button', { name: /Light theme/ }).click();
      await page.waitForFunction(() => document.documentElement.dataset.theme === 'light', undefined, LONG);
      const light = (c: string) => ink(THEMES.light, c);
      await page.waitForFunction((fill) => document.querySelector('[data-testid=chart-loss] .recharts-area-area')?.getAttribute('fill') === fill, light(SERIES_COLORS.amber), LONG);
      const memberStroke = await loss.locator('path.recharts-curve[stroke-dasharray]').getAttribute('stroke');
      assert.ok(RUN_COLORS.map(light).includes(memberStroke ?? ''), `the member in a run colour inked for the light theme, not ${memberStroke}`);
      const swatch = page.getByRole('group', { name: 'Members drawn over the mean' }).locator('label', { hasText: 'seed 4' }).locator('.swatch');
      assert.equal(hexOf(await swatch.evaluate((e) => getComputedStyle(e).backgroundColor)), memberStroke, "the picker's swatch matches the member's line");
      await page.screenshot({ path: join(RESULTS, 'seed-group-1920x1080-light.png') });
      await page.getByRole('region', { name: 'Run history' }).screenshot({ path: join(RESULTS, 'seed-group-history-light.png') });
      await page.evaluate(() => window.scrollTo(0, 0)); // back to the charts, which draw only on screen
      await page.getByRole('button', { name: /Dark theme/ }).click();
      await member.uncheck();
      await page.getByRole('list', { name: 'Loss legend' }).getByText('seed 4', { exact: true }).waitFor({ state: 'detached', ...LONG });
    },
    { viewport: { width: 1280, height: 800 } },
  );
});

test('browser mode at 1280 x 800: a seed group of trading runs shows an evaluation table with a row per member, their mean and the band\'s interval, and the curves of the member picked', { skip, timeout: 300_000 }, async () => {
  await withServedPage(
    'e2e-trading',
    TINY_TRADING,
    async ({ page, server, tmp }) => {
      const runs = join(tmp, 'runs');
      writeFileSync(join(tmp, 'group.json'), JSON.stringify({ ...TINY_TRADING, name: 'e2e-trading-group' }));
      const cli = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'main', 'cli', 'train.ts'), '--config', join(tmp, 'group.json'), '--seeds', '2', '--runs-dir', runs, '--json'], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
      assert.equal(cli.status, 0, `the CLI trained the group: ${cli.stderr.slice(-2000)}`);
      const group = readdirSync(runs).find((n) => n.endsWith('-seeds.json'))!.slice(0, -'.json'.length);
      await page.goto(server.url);
      const row = page.getByRole('table', { name: 'Runs' }).locator(`tr.run-group[data-group="${group}"]`);
      await row.waitFor(LONG);
      await row.getByRole('button', { name: `Open group ${group}` }).click();
      await page.getByText('showing a seed group').waitFor(LONG);

      for (const [name, span] of [['Evaluation on the validation span', 'validation'], ['Test span: held out', 'test']] as const) {
        const table = page.getByRole('region', { name: new RegExp(`^${name}.*: 2 of 2 seeds$`) });
        await table.waitFor(LONG);
        const names = (await table.locator('tbody tr td:first-child').allTextContents()).map((t) => t.replace(/ \(trades on .*\)$/, ''));
        assert.deepEqual(names, ['agent, seed 3', 'agent, seed 4', 'mean over 2 seeds', 'min–max over seeds', 'buy and hold'], `${span}: a row per member, their mean, the band's interval, buy and hold`);
        assert.match((await table.locator('tbody tr').nth(3).locator('td').nth(1).textContent()) ?? '', /^-?\d+\.\d\d% – -?\d+\.\d\d%$/, `${span}: the interval of the returns`);
        await table.scrollIntoViewIfNeeded();
        const box = (await table.boundingBox())!;
        const costs = (await table.getByRole('columnheader', { name: 'Costs' }).boundingBox())!;
        assert.ok(costs.x + costs.width <= box.x + box.width, `${span}: the Costs column ends at x ${(costs.x + costs.width).toFixed(0)}, past its panel's ${(box.x + box.width).toFixed(0)}`);
      }
      await page.getByRole('combobox', { name: 'Group band' }).selectOption({ label: '95% t-interval of the mean' });
      await page.getByRole('region', { name: /^Evaluation on the validation span/ }).getByRole('cell', { name: '95% t-interval of the mean' }).waitFor(LONG);

      const curves = page.getByTestId('trading-curves');
      await curves.getByRole('heading', { name: 'Evaluation curves of seed 3' }).waitFor(LONG);
      const equity = curves.getByRole('figure', { name: 'Equity' });
      await equity.and(page.locator('[title*="epoch 2 at step 400"]')).waitFor(LONG);
      await equity.locator('path.recharts-curve').nth(1).waitFor(LONG);
      const seed3 = await equity.locator('path.recharts-curve').first().getAttribute('d');
      await curves.getByRole('combobox', { name: 'group member' }).selectOption({ label: 'seed 4' });
      await curves.getByRole('heading', { name: 'Evaluation curves of seed 4' }).waitFor(LONG);
      await page.waitForFunction((d) => document.querySelector('[data-testid=trading-curves] figure[aria-label=Equity] path.recharts-curve')?.getAttribute('d') !== d, seed3, LONG);
      mkdirSync(RESULTS, { recursive: true });
      await page.getByRole('region', { name: /^Evaluation on the validation span/ }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(RESULTS, 'seed-group-trading.png'), fullPage: true });
    },
    { viewport: { width: 1280, height: 800 } },
  );
});
