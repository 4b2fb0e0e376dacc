// Flows of the browser tests around the config editor (issue 26 item 11): the draft survives a
// reload, Start says why it is off, Ctrl+Enter goes to the invalid field, and problems are said in
// the field's terms. Waits for states only.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { RESULTS, ROOT, stop, waitForState } from './flow.ts';

const LONG = { timeout: 90_000 };

/** The input of config field `path`. */
const field = (page: Page, path: string) => page.getByLabel(path, { exact: true });

/** The problem shown under config field `path`. */
const problemAt = (page: Page, path: string) => page.locator('.field', { has: field(page, path) }).getByRole('alert');

/**
 * A first visit (no draft kept from an earlier one, no run yet) loads the bundled cartpole preset,
 * so Start runs it and not the built-in defaults (minutes on a CPU): the Preset box names it and
 * the fields are its own, none changed. Another preset is still one pick away (openDashboard).
 */
export async function firstVisitLoadsCartpole(page: Page): Promise<void> {
  const bundled = JSON.parse(readFileSync(join(ROOT, 'resources', 'presets', 'cartpole.json'), 'utf8')) as { schedule: { steps_per_epoch: number; target_return: number } };
  await page.getByRole('combobox', { name: 'Preset' }).locator('option', { hasText: /\(now: cartpole\)$/ }).waitFor({ state: 'attached', ...LONG });
  assert.equal(await field(page, 'schedule.steps_per_epoch').inputValue(), String(bundled.schedule.steps_per_epoch));
  assert.equal(await field(page, 'schedule.target_return').inputValue(), String(bundled.schedule.target_return));
  assert.match((await page.getByLabel('Changes against the preset').textContent()) ?? '', /^Changes against cartpole \(0\)/);
}

/**
 * Edits two fields, reloads the page: the editor shows the edited values and still compares them
 * with the preset they came from (not the defaults). Screenshot test-results/config-after-reload.png.
 */
export async function draftSurvivesReload(page: Page, presetName: string): Promise<void> {
  await field(page, 'optim.lr').fill('0.002');
  await field(page, 'seed').fill('7');
  await page.reload();
  await page.getByRole('button', { name: 'Start' }).and(page.locator(':enabled')).waitFor(LONG);
  assert.equal(await field(page, 'optim.lr').inputValue(), '0.002');
  assert.equal(await field(page, 'seed').inputValue(), '7');
  const diff = page.getByLabel('Changes against the preset');
  assert.match((await diff.textContent()) ?? '', new RegExp(`^Changes against ${presetName} \\(2\\)`));
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'config-after-reload.png') });
}

/**
 * An invalid value: Start is off and says why under it, whole; Ctrl+Enter moves the focus to the field,
 * whose problem reads in its own terms (its range as the help line shows it). Screenshot
 * test-results/start-says-why.png.
 */
export async function startSaysWhy(page: Page): Promise<void> {
  const start = page.getByRole('button', { name: 'Start' });
  await field(page, 'optim.lr').fill('-0.001');
  const reason = page.locator('header').getByRole('link', { name: /^fix / });
  await reason.waitFor(LONG);
  assert.equal(await reason.textContent(), 'fix optim.lr to start: must be in (0, 1] 1/step (got -0.001): raise it above 0');
  assert.equal(await start.isDisabled(), true);
  // The reason reads whole at this width (beside the buttons it was cut to "fix optim.lr to…" at
  // 1280 px), inside the window and not over the buttons.
  const fit = await reason.evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth, right: e.getBoundingClientRect().right, top: e.getBoundingClientRect().top }));
  assert.ok(fit.scroll <= fit.client, `the reason is ${fit.scroll} px of text in ${fit.client} px: cut short`);
  assert.ok(fit.right <= page.viewportSize()!.width, `the reason ends at x ${fit.right.toFixed(0)}, past the window`);
  const startBox = (await start.boundingBox())!;
  assert.ok(fit.top >= startBox.y + startBox.height, `the reason (top ${fit.top.toFixed(0)}) overlaps the Start button's row (bottom ${(startBox.y + startBox.height).toFixed(0)})`);
  await page.locator('header h1').click(); // the focus away from the field
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(() => document.activeElement?.id === 'cfg-optim-lr', undefined, LONG);
  mkdirSync(RESULTS, { recursive: true });
  await page.screenshot({ path: join(RESULTS, 'start-says-why.png') });
  await field(page, 'optim.lr').fill('0.001');
  await reason.waitFor({ state: 'detached', ...LONG });
  await start.and(page.locator(':enabled')).waitFor(LONG);
  // Validator words are not shown: an integer field's range is the one its help line gives.
  const spe = 'schedule.steps_per_epoch';
  assert.match((await page.locator('#cfg-schedule-steps_per_epoch-help').textContent()) ?? '', /range \[1, 1e9\]$/);
  await field(page, spe).fill('1.5');
  await problemAt(page, spe).filter({ hasText: 'must be a whole number in [1, 1e9] steps (got 1.5): use 1 or 2' }).waitFor(LONG);
  await field(page, spe).fill('1e20');
  await problemAt(page, spe).filter({ hasText: 'must be in [1, 1e9] steps (got 1e20): lower it to at most 1e9' }).waitFor(LONG);
  await field(page, spe).fill('500');
  await start.and(page.locator(':enabled')).waitFor(LONG);
}

/**
 * The config panel's head reads at this width: the heading on one line, the Preset label beside
 * its box (at 1280 px the heading wrapped to "Config / Ctrl+," and the label sat over the box),
 * and the box's text ("load a preset… (now: NAME)") inside the box.
 */
export async function configHeadReads(page: Page): Promise<void> {
  const heading = page.locator('#config-title');
  const { height, lineHeight } = await heading.evaluate((h) => ({ height: h.getBoundingClientRect().height, lineHeight: parseFloat(getComputedStyle(h).lineHeight) || 1.3 * parseFloat(getComputedStyle(h).fontSize) }));
  assert.ok(height < 1.8 * lineHeight, `the Config heading is ${height.toFixed(0)} px high: it wraps (line ${lineHeight.toFixed(0)} px)`);
  const box = page.getByRole('combobox', { name: 'Preset' });
  const fit = await box.evaluate((select: HTMLSelectElement) => {
    const label = select.closest('label')!;
    // The label's own text node: "Preset".
    const range = document.createRange();
    range.selectNodeContents(label.firstChild!);
    const word = range.getBoundingClientRect();
    const r = select.getBoundingClientRect();
    const style = getComputedStyle(select);
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = select.options[select.selectedIndex]?.text ?? '';
    return { text, textWidth: ctx.measureText(text).width, room: r.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20, sameRow: word.bottom > r.top && word.top < r.bottom };
  });
  assert.ok(fit.sameRow, 'the Preset label sits beside its box, not over it');
  assert.ok(fit.textWidth <= fit.room, `"${fit.text}" is ${fit.textWidth.toFixed(0)} px in a box with room for ${fit.room.toFixed(0)}`);
}

/**
 * A running run whose first epoch has not ended: the Epoch time chart says when its first point
 * comes (a bare "No data yet." beside a running run read as a stuck chart). The epoch is made far
 * longer than the test, so the state is there until Stop.
 */
export async function epochChartSaysWhen(page: Page): Promise<void> {
  await field(page, 'schedule.steps_per_epoch').fill('1000000');
  await page.getByRole('button', { name: 'Start' }).and(page.locator(':enabled')).click();
  await waitForState(page, 'Running');
  await page.getByRole('region', { name: 'Epoch time' }).getByText('No data yet: a point per epoch, the first when epoch 1 ends.').waitFor(LONG);
  await stop(page);
}
