// Flows of the browser tests around live and past runs (issue 26 items 8-10): a run started
// while a past run is open takes the charts, the run history fits its panel, and before the
// first epoch ends the episodic returns are drawn at their gradient step. Waits for states only.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { RESULTS, waitForPoints, waitForState } from './flow.ts';

const LONG = { timeout: 90_000 };

/** The id of the series book the charts should draw now (see renderer/probe.ts). */
function shownBook(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { dqnProbe: { shownBook(): number } }).dqnProbe.shownBook());
}

/** Sets config field `path` (its input, by its dotted path) to `value`. */
export async function setField(page: Page, path: string, value: string): Promise<void> {
  await page.getByLabel(path, { exact: true }).fill(value);
}

/**
 * Every part of each run row (the overlay tick, the name that opens it, final loss, eval return,
 * steps/s and the row's actions) lies inside the Run history panel, and the table is no wider
 * than the panel: nothing is off to the right. Each part of the line under a run's name (state,
 * env, epochs, wall time, backend) lies inside the name's cell, which cuts what passes its edge
 * (overflow: hidden), so a state too long for it read "finished at target 475, epoch :" while
 * the table stayed as wide as the panel. Screenshot test-results/`screenshot`.
 */
export async function runHistoryFitsItsPanel(page: Page, screenshot: string): Promise<void> {
  const panel = page.getByRole('region', { name: 'Run history' });
  const table = panel.getByRole('table', { name: 'Runs' });
  await table.locator('tbody tr').first().waitFor(LONG);
  const box = (await panel.boundingBox())!;
  const rows = await table.locator('tbody tr:not(.run-group)').all();
  assert.ok(rows.length > 0);
  for (const row of rows) {
    const name = (await row.getAttribute('data-name')) ?? (await row.locator('td').first().textContent()) ?? '';
    const parts = [
      row.getByRole('checkbox', { name: /^Overlay / }),
      row.getByRole('button', { name: /^Open / }),
      row.locator('[data-col=finalLoss]'),
      row.locator('[data-col=lastEvalReturn]'),
      row.locator('[data-col=stepsPerSec]'),
      row.locator('summary, button[aria-label^="Resume "]').first(),
    ];
    for (const part of parts) {
      const b = await part.boundingBox();
      assert.ok(b, `${name}: ${part} is drawn`);
      assert.ok(b.x >= box.x && b.x + b.width <= box.x + box.width + 0.5, `${name}: ${part} spans x ${b.x.toFixed(0)}-${(b.x + b.width).toFixed(0)}, outside the panel's ${box.x.toFixed(0)}-${(box.x + box.width).toFixed(0)}`);
    }
    const cell = row.locator('td.run-cell');
    const inner = await cell.evaluate((td) => {
      const r = td.getBoundingClientRect();
      const s = getComputedStyle(td);
      return { left: r.left + parseFloat(s.paddingLeft), right: r.right - parseFloat(s.paddingRight), scroll: td.scrollWidth, client: td.clientWidth };
    });
    for (const part of await cell.locator('.run-meta > span').all()) {
      const b = (await part.boundingBox())!;
      const text = await part.textContent();
      assert.ok(b.x >= inner.left - 0.5 && b.x + b.width <= inner.right + 0.5, `${name}: '${text}' spans x ${b.x.toFixed(0)}-${(b.x + b.width).toFixed(0)}, past its cell's ${inner.left.toFixed(0)}-${inner.right.toFixed(0)}, which cuts it`);
    }
    assert.ok(inner.scroll <= inner.client, `${name}: the name's cell holds ${inner.scroll} px of content in ${inner.client} px`);
  }
  const widths = await table.evaluate((t) => ({ table: t.scrollWidth, panel: t.closest('section')!.clientWidth }));
  assert.ok(widths.table <= widths.panel, `the table is ${widths.table} px wide in a ${widths.panel} px panel`);
  mkdirSync(RESULTS, { recursive: true });
  await panel.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(RESULTS, screenshot) });
  await page.evaluate(() => window.scrollTo(0, 0));
}

/**
 * With a past run open (`pastRun`), Ctrl+Enter starts a new run: the charts leave the past run
 * for the new one by themselves (no "Back to live"), and the Loss chart draws the new run's book.
 * Screenshot test-results/new-run-over-past-run.png.
 */
export async function newRunTakesTheCharts(page: Page, pastRun: string): Promise<void> {
  await page.getByRole('button', { name: `Open ${pastRun}`, exact: true }).click();
  const toolbarNote = page.locator('.chart-toolbar').getByText('showing a past run');
  await toolbarNote.waitFor(LONG);
  const pastBook = await shownBook(page);
  await page.keyboard.press('Control+Enter');
  await waitForState(page, 'Running');
  await toolbarNote.waitFor({ state: 'detached', ...LONG });
  assert.equal(await page.getByRole('region', { name: 'Run history' }).locator('.viewing').count(), 0, 'no "Viewing ..." line: the charts show the live run');
  const liveBook = await shownBook(page);
  assert.notEqual(liveBook, pastBook, 'the charts draw another book than the past run\'s');
  await page.evaluate(() => window.scrollTo(0, 0)); // the Open button was scrolled to; charts draw only on screen
  await waitForPoints(page, 'Loss', 2);
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'new-run-over-past-run.png') });
}

/** The rightmost x tick of chart `title` and the header's step counter, read together. */
function lastTickAndStep(page: Page, title: string): Promise<{ tick: number; step: number }> {
  return page.evaluate((t) => {
    const region = [...document.querySelectorAll('section.chart')].find((s) => s.querySelector('h2')?.textContent === t)!;
    const ticks = [...region.querySelectorAll('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value')].map((e) => Number(e.textContent)).filter(Number.isFinite);
    const step = Number(/step (\d+)/.exec(document.querySelector('header')?.textContent ?? '')?.[1] ?? NaN);
    return { tick: Math.max(...ticks), step };
  }, title);
}

/**
 * Before the first epoch ends (a run whose env steps outnumber its gradient steps: `train_every`
 * above 1), the episodic-return chart on the step axis draws each episode at its gradient step:
 * its ticks stay within the steps trained so far, not at the env step count. Screenshot
 * test-results/episodes-before-first-epoch.png.
 */
export async function episodesAtTheirStepBeforeTheFirstEpoch(page: Page): Promise<void> {
  const chart = page.getByRole('region', { name: 'Episodic return' });
  await chart.scrollIntoViewIfNeeded();
  await waitForPoints(page, 'Episodic return', 3);
  await chart.locator('.recharts-label', { hasText: /^step$/ }).waitFor(LONG);
  const { tick, step } = await lastTickAndStep(page, 'Episodic return');
  assert.match((await page.locator('header').textContent()) ?? '', /epoch 0 \//, 'still in the first epoch');
  assert.ok(tick <= step, `the episodic returns reach x = ${tick} on the step axis while the run is at step ${step}`);
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'episodes-before-first-epoch.png') });
  await page.evaluate(() => window.scrollTo(0, 0));
}

/**
 * A past run opened from the run history names itself in the address (`?run=`), so a reload
 * shows it again; Back to live takes the name out of the address.
 */
export async function pastRunSurvivesAReload(page: Page, pastRun: string): Promise<void> {
  const note = page.locator('.chart-toolbar').getByText('showing a past run');
  await page.getByRole('button', { name: `Open ${pastRun}`, exact: true }).click();
  await note.waitFor(LONG);
  await page.waitForURL((url) => url.searchParams.get('run') === pastRun, LONG);
  await page.reload();
  await note.waitFor(LONG);
  const viewing = (await page.getByRole('region', { name: 'Run history' }).locator('.viewing').textContent()) ?? '';
  assert.ok(viewing.includes(pastRun), `after the reload the run history says '${viewing}', not ${pastRun}`);
  await page.getByRole('button', { name: 'Back to live' }).click();
  await note.waitFor({ state: 'detached', ...LONG });
  await page.waitForURL((url) => !url.searchParams.has('run'), LONG);
}
