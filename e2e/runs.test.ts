// Browser-mode tests of live and past runs as a new user meets them at 1280 x 800 and 1920 x 1080
// (issue 26 items 8-10; flows in runs-flow.ts, harness in served-page.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDashboard, stop, TINY_CARTPOLE, waitForRunEnd } from './flow.ts';
import { episodesAtTheirStepBeforeTheFirstEpoch, newRunTakesTheCharts, pastRunSurvivesAReload, runHistoryFitsItsPanel, setField } from './runs-flow.ts';
import { skip, withServedPage } from './served-page.ts';

/**
 * The tiny CartPole preset, ending after two short epochs, or at the first, whose evaluation
 * reaches its target return: any CartPole episode returns at least 1. The target has the six
 * digits the run history writes at most, so its row's state is as long as it gets.
 */
const TWO_EPOCHS = { ...TINY_CARTPOLE, schedule: { ...TINY_CARTPOLE.schedule, epochs: 2, target_return: 0.123457 } };

test('browser mode at 1280 x 800: the run history fits its panel; a past run opened survives a reload; a run started while a past run is open takes the charts; before its first epoch ends its episodes are drawn at their step', { skip, timeout: 300_000 }, async () => {
  await withServedPage(
    'e2e-cartpole',
    TWO_EPOCHS,
    async ({ page, server }) => {
      await page.goto(server.url);
      await openDashboard(page, 'e2e-cartpole (user)');
      await page.keyboard.press('Control+Enter');
      // The first epoch of 500 steps reaches the target: the run ends there.
      await waitForRunEnd(page, 1, 2);
      const open = await page.getByRole('table', { name: 'Runs' }).getByRole('button', { name: /^Open / }).first().getAttribute('aria-label', { timeout: 90_000 });
      const past = open!.slice('Open '.length);
      const state = page.getByRole('table', { name: 'Runs' }).locator(`tr[data-name="${past}"] .run-meta [data-col=state]`);
      await state.filter({ hasText: /target/ }).waitFor({ timeout: 90_000 });
      await runHistoryFitsItsPanel(page, 'run-history-1280.png');
      assert.match((await state.getAttribute('title')) ?? '', /^finished at its target return: epoch 1's evaluation \d+\.\d >= 0\.123457 \(schedule\.target_return\)$/, 'the whole state in its title');
      await pastRunSurvivesAReload(page, past);
      await openDashboard(page, 'e2e-cartpole (user)'); // after the reload: the preset again
      // The next run: long epochs (the first one lasts well past the checks), 4 env steps per gradient step.
      await setField(page, 'schedule.epochs', '1');
      await setField(page, 'schedule.steps_per_epoch', '100000000');
      await setField(page, 'schedule.train_every', '4');
      await newRunTakesTheCharts(page, past);
      await episodesAtTheirStepBeforeTheFirstEpoch(page);
      await stop(page);
      await page.setViewportSize({ width: 1920, height: 1080 });
      await runHistoryFitsItsPanel(page, 'run-history-1920.png');
    },
    { viewport: { width: 1280, height: 800 } },
  );
});
