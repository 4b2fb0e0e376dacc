// Flows of the layout browser tests (issue 26 items 2 and 10): the header stays on one line
// while a run is running, and the Loss chart's y-axis tick labels follow its data as points
// arrive, on round values. Waits for states only.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { RESULTS, waitForPoints } from './flow.ts';

const LONG = { timeout: 90_000 };

/**
 * The header is one line high: every visible item of it (state, badges, rates, buttons) sits on
 * the same row, inside the window, and a badge cut short holds its whole text in its title.
 * Screenshot test-results/`screenshot` (the top of the page).
 */
export async function headerOnOneLine(page: Page, screenshot: string): Promise<void> {
  const header = page.locator('header .header');
  const items = await header.evaluate((h) =>
    [...h.children]
      .map((c) => ({ text: (c.textContent ?? '').trim() || c.className, r: c.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && r.height > 0)
      .map(({ text, r }) => ({ text, top: r.top, bottom: r.bottom, right: r.right })),
  );
  const rowTop = Math.max(...items.map((i) => i.top));
  const rowBottom = Math.min(...items.map((i) => i.bottom));
  for (const i of items) assert.ok(i.bottom > rowTop && i.top < rowBottom, `"${i.text}" (y ${i.top.toFixed(0)}-${i.bottom.toFixed(0)}) is not on the row of the others: the header wraps`);
  const width = page.viewportSize()!.width;
  for (const i of items) assert.ok(i.right <= width, `"${i.text}" ends at x ${i.right.toFixed(0)}, past the window's ${width} (the row: ${items.map((j) => `"${j.text}" to ${j.right.toFixed(0)}`).join(", ")})`);
  for (const id of ['compute-badge', 'replay-badge']) {
    const badge = page.getByTestId(id);
    assert.equal(await badge.getAttribute('title'), await badge.textContent(), `${id}: the whole text in its title`);
  }
  await badgesFitTheirText(page);
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, screenshot) });
}

/**
 * The header's badges are no wider than their text: no empty space inside the border after the
 * text (their least width was estimated in `ch`, wider than this font's letters). A badge cut
 * short is as wide as the room it got, so only one showing its whole text is checked.
 */
export async function badgesFitTheirText(page: Page): Promise<void> {
  for (const id of ['compute-badge', 'replay-badge']) {
    const { box, text, cut } = await page.getByTestId(id).evaluate((el) => {
      const style = getComputedStyle(el);
      const range = document.createRange();
      range.selectNodeContents(el);
      return { box: el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight), text: range.getBoundingClientRect().width, cut: el.scrollWidth > el.clientWidth };
    });
    if (!cut) assert.ok(box <= text + 1.5, `${id} is ${box.toFixed(1)} px wide inside for ${text.toFixed(1)} px of text: ${(box - text).toFixed(1)} px empty`);
  }
}

/**
 * The export buttons of every chart on screen sit on its title's row: wrapped under a long title
 * they set that chart's plot lower than the others' of its row (Causal sensitivity and Gradient
 * norm: main head (C51) at 1920 px). Screenshot test-results/`screenshot`.
 */
export async function chartHeadsOnOneRow(page: Page, screenshot: string): Promise<void> {
  const wrapped = await page.locator('section.chart .chart-head:has(.chart-export)').evaluateAll((heads) =>
    heads.flatMap((head) => {
      const [title, buttons] = [head.querySelector('h2')!.getBoundingClientRect(), head.querySelector('.chart-export')!.getBoundingClientRect()];
      if (title.bottom < 0 || title.top > window.innerHeight) return [];
      return buttons.top >= title.bottom ? [head.querySelector('h2')!.textContent] : [];
    }),
  );
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, screenshot) });
  assert.deepEqual(wrapped, [], 'chart heads wrapped onto a second row');
}

/**
 * Every x tick label of the charts on screen lies inside its chart's picture (the last one may sit
 * on the plot's right edge: a '5000' there lost its last digit). Screenshot test-results/`screenshot`.
 */
export async function xTickLabelsInside(page: Page, screenshot: string): Promise<void> {
  const out = await page.locator('section.chart svg.recharts-surface').evaluateAll((svgs) =>
    svgs.flatMap((svg) => {
      const box = svg.getBoundingClientRect();
      if (box.bottom < 0 || box.top > window.innerHeight) return [];
      const title = svg.closest('section')?.querySelector('h2')?.textContent;
      return [...svg.querySelectorAll('.recharts-xAxis-tick-labels text')].map((t) => ({ title, text: t.textContent, past: t.getBoundingClientRect().right - box.right })).filter((t) => t.past > 0.5);
    }),
  );
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, screenshot) });
  assert.deepEqual(out, [], 'x tick labels past their chart\'s right edge (px past)');
}

/**
 * While a run trains, its run history row counts the epochs that ended, as the header does (it
 * read "live · 0 epochs" all run long: the list is read when the run starts).
 */
export async function liveRowFollowsEpochs(page: Page): Promise<void> {
  const header = Number(/epoch (\d+)/.exec((await page.locator('header').textContent()) ?? '')?.[1]);
  assert.ok(header >= 1, `an epoch has ended (the header reads epoch ${header})`);
  const cell = page.getByRole('table', { name: 'Runs' }).locator('tr[aria-current=true] [data-col=epochs]');
  await page.waitForFunction(([n]) => Number(/^(\d+) epochs?$/.exec(document.querySelector('table[aria-label=Runs] tr[aria-current=true] [data-col=epochs]')?.textContent ?? '')?.[1]) >= n!, [header] as const, LONG).catch(async () => {
    assert.fail(`the live run's row reads "${await cell.textContent()}" while the header reads epoch ${header}`);
  });
}

/**
 * The Loss chart's y-axis tick labels span the range of the TD loss it draws (dqnProbe.seriesRange)
 * without being far wider, once after the first points and again after many more arrived (the
 * range moved): labels kept from an earlier frame would not cover the new range.
 */
export async function lossTicksFollowTheData(page: Page): Promise<void> {
  const covered = () =>
    page.waitForFunction(
      () => {
        type Probe = { shownBook(): number; seriesRange(n: string): [number, number] | undefined };
        const probe = (window as unknown as { dqnProbe: Probe }).dqnProbe;
        const region = document.querySelector<HTMLElement>('[data-testid=chart-loss]');
        const range = probe.seriesRange('losses/td_loss');
        if (!region || !range || region.dataset.book !== String(probe.shownBook())) return false;
        const ticks = [...region.querySelectorAll('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value')].map((t) => Number(t.textContent));
        if (ticks.length < 2 || !ticks.every(Number.isFinite)) return false;
        const [lo, hi] = [Math.min(...ticks), Math.max(...ticks)];
        const span = Math.max(range[1] - range[0], 0.5 * Math.abs(range[1]));
        return lo <= range[0] && hi >= range[1] && hi - lo <= 4 * span ? `${ticks.join(' ')} for ${range.join(' – ')}` : false;
      },
      undefined,
      LONG,
    );
  await waitForPoints(page, 'Loss', 3);
  await covered();
  await roundTicks(page);
  const first = Number(/(\d+) points?/.exec((await page.getByTestId('chart-loss-count').textContent()) ?? '')?.[1]);
  await waitForPoints(page, 'Loss', 3 * first + 20);
  await covered();
  await roundTicks(page);
  mkdirSync(RESULTS, { recursive: true });
  await page.getByTestId('chart-loss').screenshot({ path: join(RESULTS, 'loss-ticks-follow-data.png') });
}

/**
 * The Loss chart's y ticks are round: 1, 2 or 5 x 10^k apart and multiples of that step (recharts'
 * own read 0.0055 / 0.011 / 0.0165, or 11 / -11 / -22 on the Q chart).
 */
async function roundTicks(page: Page): Promise<void> {
  const labels = await page.getByTestId('chart-loss').locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
  const ticks = labels.map(Number);
  const step = ticks[1]! - ticks[0]!;
  const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
  assert.ok([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6), `Loss y ticks ${labels.join(', ')}: a step of ${step} is not 1, 2 or 5 x 10^k`);
  for (const t of ticks) assert.ok(Math.abs(t / step - Math.round(t / step)) < 1e-6, `Loss y ticks ${labels.join(', ')}: ${t} is not a multiple of ${step}`);
}
