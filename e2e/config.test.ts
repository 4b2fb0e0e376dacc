// Browser-mode test of the config editor as a new user meets it at 1280 x 800 (issue 26 item 11),
// and the Epoch time chart of a run in its first epoch (walkthrough;
// flows in config-flow.ts, harness in served-page.ts).
import { test } from 'node:test';
import { configHeadReads, draftSurvivesReload, epochChartSaysWhen, firstVisitLoadsCartpole, startSaysWhy } from './config-flow.ts';
import { openDashboard, TINY_CARTPOLE } from './flow.ts';
import { skip, withServedPage } from './served-page.ts';

test('browser mode at 1280 x 800: a first visit loads the bundled cartpole preset; the config panel\'s head reads on its rows; the edited config survives a reload; an invalid field keeps Start off with the reason whole under it, Ctrl+Enter goes to the field, and the problem is said in the field\'s terms; a run in its first epoch says when the Epoch time chart gets its first point', { skip, timeout: 300_000 }, async () => {
  await withServedPage(
    'e2e-cartpole',
    TINY_CARTPOLE,
    async ({ page, server }) => {
      await page.goto(server.url);
      await firstVisitLoadsCartpole(page);
      await openDashboard(page, 'e2e-cartpole (user)');
      await configHeadReads(page);
      await draftSurvivesReload(page, 'e2e-cartpole');
      await startSaysWhy(page);
      await epochChartSaysWhen(page);
    },
    { viewport: { width: 1280, height: 800 } },
  );
});
