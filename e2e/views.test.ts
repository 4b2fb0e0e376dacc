// Browser test of the comparison and presentation views (issue 26 items 12 and 13): two past runs
// and a live one, the tooltip, overlays and the config diff of three runs, the hyperparameter
// table, All scalars, chart export, the shortcut overlay and the light theme; then screenshots of
// the dashboard at 1280x800 and 1920x1080 in both themes (test-results/walk-*.png).
import { test } from 'node:test';
import { TINY_CARTPOLE, openDashboard, waitForPoints, waitForState } from './flow.ts';
import { skip, withServedPage } from './served-page.ts';
import { allScalars, exportLossChart, hyperparameterTable, lightTheme, liveRunName, overlaysAndDiff, pastRun, shortcutOverlay, shot, tooltipReads } from './views.ts';

test('browser mode: a legible tooltip, overlaid runs in their own colours with a config diff of three runs, the hyperparameter table, all scalars, chart export, the shortcut list and the light theme', { skip, timeout: 600_000 }, async () => {
  await withServedPage('e2e-cartpole', TINY_CARTPOLE, async ({ page, server }) => {
    page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
    await page.goto(server.url);
    await openDashboard(page, 'e2e-cartpole (user)');
    const runs = [
      { name: await pastRun(page, '0.001'), lr: '0.001' },
      { name: await pastRun(page, '0.0005'), lr: '0.0005' },
    ];
    await page.getByLabel('optim.lr', { exact: true }).fill('0.002');
    await page.getByRole('button', { name: 'Start' }).and(page.locator(':enabled')).click();
    await waitForState(page, 'Running');
    await waitForPoints(page, 'Loss', 3);
    const live = { name: await liveRunName(page), lr: '0.002' };
    await tooltipReads(page, 'dark', 'tooltip-dark.png');
    await overlaysAndDiff(page, runs, live);
    await hyperparameterTable(page, runs);
    await allScalars(page);
    await exportLossChart(page, 'dark');
    await shortcutOverlay(page);
    await lightTheme(page);
    await tooltipReads(page, 'light', 'tooltip-light.png');
    await exportLossChart(page, 'light');
    // The walk: what a new user sees at two window sizes in both themes, two runs overlaid.
    for (const r of runs) await page.getByRole('table', { name: 'Runs' }).getByRole('checkbox', { name: `Overlay ${r.name}`, exact: true }).check();
    for (const theme of ['light', 'dark'] as const) {
      if (theme === 'dark') await page.getByRole('button', { name: /Dark theme/ }).click();
      for (const [width, height] of [[1280, 800], [1920, 1080]] as const) {
        await page.setViewportSize({ width, height });
        await page.evaluate(() => window.scrollTo(0, 0));
        await waitForPoints(page, 'Loss', 3);
        await shot(page, `walk-${width}x${height}-${theme}.png`);
        await shot(page, `walk-${width}x${height}-${theme}-full.png`, undefined, true);
      }
      await page.getByRole('button', { name: 'Hyperparameters' }).click();
      await shot(page, `walk-hyperparameters-${theme}.png`);
      await page.keyboard.press('Escape');
    }
  });
});
