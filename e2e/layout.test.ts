// Browser-mode test of the layout a new user meets while a run is running (issue 26 items 2 and
// 10): the header on one line at 1280 x 800 and 1920 x 1080, the longest badges (a CPU fallback,
// and environments kept on the host, each with its reason) cut short with their text in a title,
// badges no wider than their text, x tick labels inside their charts, chart heads on one row at
// 1920 px and the live run's history row counting its epochs (walkthrough after issue 26), and the Loss chart's y ticks following
// the data as points arrive (flows in layout-flow.ts, harness in served-page.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDashboard, stop, TINY_CARTPOLE, waitForState } from './flow.ts';
import { badgesFitTheirText, chartHeadsOnOneRow, headerOnOneLine, liveRowFollowsEpochs, lossTicksFollowTheData, xTickLabelsInside } from './layout-flow.ts';
import { skip, withServedPage } from './served-page.ts';

/**
 * The tiny CartPole run with a C51 head and an ensemble: the GPU learner has neither, so the
 * compute badge carries a long reason; and environments asked on the device, which the CPU
 * backend cannot give, so the replay badge carries one too.
 */
const LONG_BADGE = {
  ...TINY_CARTPOLE,
  name: 'e2e-layout',
  backend: 'auto',
  env: { ...TINY_CARTPOLE.env, collector: 'device' },
  heads: { main: 'c51', c51: { v_min: 0, v_max: 100 }, ensemble: { heads: 2 } },
};

test('browser mode: while a run is running the header is one line at 1280 x 800 and 1920 x 1080 with badges no wider than their text, x tick labels and chart heads stay inside their charts and rows, the live run row counts its epochs, and the Loss ticks follow the data as it grows', { skip, timeout: 300_000 }, async () => {
  await withServedPage(
    'e2e-layout',
    LONG_BADGE,
    async ({ page, server }) => {
      await page.goto(server.url);
      await openDashboard(page, 'e2e-layout (user)');
      // Before any run the badges read "Compute: – (no run yet)" and "Replay: – (no run yet)", whole and no wider.
      await badgesFitTheirText(page);
      // Before any run: the All scalars button says nothing is logged, not "Show all 0 logged scalars".
      const scalars = page.getByRole('region', { name: 'All scalars' }).getByRole('button', { name: 'No scalars logged yet' });
      await scalars.waitFor();
      assert.equal(await scalars.isDisabled(), true);
      // An empty chart says how to fill it before any run, not only "No data yet.".
      await page.getByRole('region', { name: 'Loss', exact: true }).getByText('No data yet: press Start, or open a past run from the run history.').waitFor();
      // Every text the live indicator shows while the state reads Running (the walkthrough saw
      // "Running ... ○ not live" before the first update, which reads as a dead run).
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { liveSeen: string[] }).liveSeen = seen;
        const header = document.querySelector('header')!;
        // An anonymous callback: tsx names a `const f = () => ...` with a helper the page lacks.
        new MutationObserver(() => {
          const live = header.querySelector('.live')?.textContent ?? '';
          if (header.querySelector('[data-testid=run-state]')?.textContent === 'Running' && !seen.includes(live)) seen.push(live);
        }).observe(header, { subtree: true, childList: true, characterData: true });
      });
      await page.keyboard.press('Control+Enter');
      await waitForState(page, 'Running');
      await lossTicksFollowTheData(page);
      await liveRowFollowsEpochs(page);
      const liveSeen = await page.evaluate(() => (window as unknown as { liveSeen: string[] }).liveSeen);
      assert.ok(liveSeen.includes('● live'), `seen: ${liveSeen.join(' | ')}`);
      assert.ok(!liveSeen.some((t) => /not live/.test(t)), `"not live" beside Running: ${liveSeen.join(' | ')}`);
      const replay = await page.getByTestId('replay-badge').getAttribute('title');
      assert.equal(replay, 'Replay: CPU PER; envs on host (the compute backend is the CPU; the device collector acts with the CUDA learner)');
      await headerOnOneLine(page, 'header-running-1280.png');
      await page.setViewportSize({ width: 1920, height: 1080 });
      await headerOnOneLine(page, 'header-running-1920.png');
      await xTickLabelsInside(page, 'x-ticks-inside-1920.png');
      await chartHeadsOnOneRow(page, 'chart-heads-1920.png');
      await stop(page);
    },
    { viewport: { width: 1280, height: 800 } },
  );
});
