// Browser flows of the dashboard's comparison and presentation views (issue 26 items 12 and 13):
// the chart tooltip on the theme, overlaid runs with their own colours and the config diff of the
// runs on the charts, the hyperparameter table, the All scalars panel, chart export as SVG and
// PNG, the keyboard-shortcut overlay and the light theme. Waits for states only.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { contrast } from '../renderer/lib/color.ts';
import { SERIES_COLORS } from '../renderer/lib/palette.ts';
import { runTitle, shortRunNames } from '../renderer/lib/run-table.ts';
import { ink, THEMES, type ThemeName } from '../renderer/lib/theme.ts';
import { RESULTS, stop, waitForPoints, waitForState } from './flow.ts';

const LONG = { timeout: 90_000 };

/** "#rrggbb" of a computed CSS colour "rgb(r, g, b)". */
export function hexOf(css: string): string {
  const m = /^rgba?\((\d+), (\d+), (\d+)/.exec(css);
  if (!m) throw new Error(`not an rgb() colour: ${css}`);
  return `#${m.slice(1, 4).map((c) => Number(c).toString(16).padStart(2, '0')).join('')}`;
}

/** Saves a screenshot of the page (or of `of`) under test-results/. */
export async function shot(page: Page, name: string, of?: Locator, fullPage = false): Promise<void> {
  mkdirSync(RESULTS, { recursive: true });
  await (of ?? page).screenshot({ path: join(RESULTS, name), ...(of ? {} : { fullPage }) });
}

const region = (page: Page, title: string) => page.getByRole('region', { name: title, exact: true });

/** Starts a run from the config in the editor (optim.lr set to `lr`), waits for Loss points, and stops it; returns its run folder's name. */
export async function pastRun(page: Page, lr: string): Promise<string> {
  await page.getByLabel('optim.lr', { exact: true }).fill(lr);
  await page.getByRole('button', { name: 'Start' }).and(page.locator(':enabled')).click();
  await waitForState(page, 'Running');
  await waitForPoints(page, 'Loss', 3);
  const name = await liveRunName(page);
  await stop(page);
  return name;
}

/** The folder name of the live run, as the config panel names it. */
export async function liveRunName(page: Page): Promise<string> {
  const note = page.getByRole('note', { name: 'Config shown' });
  await note.waitFor(LONG);
  const m = /live run (\S+), read-only/.exec((await note.textContent()) ?? '');
  assert.ok(m, 'the config panel names the live run');
  return m[1]!;
}

/**
 * Hovers over the middle of the Loss chart and checks the tooltip: drawn on the theme's panel,
 * its step label and values legible (WCAG AA, 4.5:1, against the tooltip's own background).
 */
export async function tooltipReads(page: Page, theme: ThemeName, screenshot: string): Promise<void> {
  const chart = region(page, 'Loss');
  await chart.scrollIntoViewIfNeeded();
  const box = (await chart.locator('svg.recharts-surface').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const tip = chart.locator('.recharts-default-tooltip');
  await tip.waitFor({ state: 'visible', ...LONG });
  const colours = await tip.evaluate((el) => ({
    bg: getComputedStyle(el).backgroundColor,
    label: getComputedStyle(el.querySelector('.recharts-tooltip-label')!).color,
    labelText: el.querySelector('.recharts-tooltip-label')!.textContent,
  }));
  assert.match(colours.labelText ?? '', /^step \d+/);
  const bg = hexOf(colours.bg);
  assert.equal(bg, THEMES[theme].panel, `the tooltip is drawn on the ${theme} theme's panel, not on ${colours.bg}`);
  const c = contrast(hexOf(colours.label), bg);
  assert.ok(c >= 4.5, `the tooltip's step label (${colours.label} on ${colours.bg}) has contrast ${c.toFixed(2)}:1, less than 4.5:1`);
  await shot(page, screenshot, chart);
  await page.mouse.move(0, 0);
}

/**
 * A legend's entries by text: the colour of the first swatch (a line's stroke or a run chip's
 * fill), its dash pattern, the dash the overlaid runs draw that line with, and the title.
 */
async function swatches(page: Page, title: string): Promise<Map<string, { color: string; dash: string | null; overlayDash: string | null; title: string }>> {
  const items = await page.getByRole('list', { name: `${title} legend` }).getByRole('listitem').all();
  const out = new Map<string, { color: string; dash: string | null; overlayDash: string | null; title: string }>();
  for (const li of items) {
    const first = li.locator('svg:not([data-overlay-dash]) :is(line, rect)').first();
    const color = (await first.count()) ? ((await first.getAttribute('stroke')) ?? (await first.getAttribute('fill')) ?? '') : '';
    const dash = (await first.count()) ? await first.getAttribute('stroke-dasharray') : null;
    const overlay = li.locator('svg[data-overlay-dash]');
    out.set(((await li.textContent()) ?? '').trim(), { color, dash, overlayDash: (await overlay.count()) ? await overlay.getAttribute('data-overlay-dash') : null, title: (await li.getAttribute('title')) ?? '' });
  }
  return out;
}

/** How many rows the legend of chart `title` takes. */
async function legendRows(page: Page, title: string): Promise<number> {
  const tops = await page.getByRole('list', { name: `${title} legend` }).getByRole('listitem').evaluateAll((lis) => lis.map((li) => Math.round(li.getBoundingClientRect().top)));
  return new Set(tops).size;
}

/**
 * Two past runs overlaid on the live run, all three of one preset (so one name): each overlaid run
 * is one legend entry under a short name told apart by its start time (the folder name on hover),
 * in its own colour, unlike each other and unlike the series colours; its lines are told apart by
 * dash, each line's dash shown once beside the line's own entry, and the Replay legend of four
 * lines and two runs takes two rows at 1920 px (an entry per run and line under the folder name
 * took four); the config diff has a heading per run, by the same short names, and compares all
 * three; opening one of them draws it once (as the shown run), not also as an overlay.
 */
export async function overlaysAndDiff(page: Page, runs: { name: string; lr: string }[], live: { name: string; lr: string }): Promise<void> {
  const table = page.getByRole('table', { name: 'Runs' });
  for (const r of runs) await table.getByRole('checkbox', { name: `Overlay ${r.name}`, exact: true }).check();
  const [, ...labels] = shortRunNames([live.name, ...runs.map((r) => r.name)]);
  assert.ok(labels.every((l) => /^e2e-cartpole \(\d\d:\d\d:\d\d\)$/.test(l!)), `one name, told apart by the time: ${labels.join(', ')}`);
  // Charts redraw only while on screen: the run history may have scrolled the Loss chart away.
  await region(page, 'Loss').scrollIntoViewIfNeeded();
  const legendList = page.getByRole('list', { name: 'Loss legend' });
  for (const l of labels) await legendList.getByRole('listitem').filter({ hasText: l }).waitFor(LONG);
  const loss = await swatches(page, 'Loss');
  const own = loss.get('TD loss (EMA 0.60)')!.color;
  const [a, b] = labels.map((l) => loss.get(l!)!);
  assert.notEqual(a!.color, b!.color, 'two overlaid runs, two colours');
  for (const [i, o] of [a!, b!].entries()) {
    assert.notEqual(o.color, own, 'an overlaid run is not drawn in the colour of the series');
    assert.equal(o.dash, '5 3', "the run's swatch has the dash of its one line");
    assert.equal(o.title, `${runs[i]!.name}: losses/td_loss`, 'the folder name on hover');
  }
  const replayRegion = region(page, 'Replay');
  await replayRegion.scrollIntoViewIfNeeded();
  await page.getByRole('list', { name: 'Replay legend' }).getByRole('listitem').filter({ hasText: labels[1]! }).waitFor(LONG);
  const replay = await swatches(page, 'Replay');
  assert.deepEqual([...replay.keys()], ['total priority', 'max priority', 'mean IS weight', 'beta', ...labels], 'an entry per line and one per run');
  const lineDashes = ['total priority', 'max priority', 'mean IS weight', 'beta'].map((l) => replay.get(l)!.overlayDash);
  assert.deepEqual(lineDashes, ['5 3', '1 3', '9 3 2 3', '3 6'], "each line's own entry shows the dash the overlaid runs draw it with");
  const runColor = replay.get(labels[0]!)!.color;
  const drawn = await replayRegion.locator('path.recharts-curve').evaluateAll((ps, c) => ps.filter((p) => p.getAttribute('stroke') === c).map((p) => p.getAttribute('stroke-dasharray')), runColor);
  assert.deepEqual(new Set(drawn), new Set(lineDashes), "one run's lines share its colour and differ by dash");
  const viewport = page.viewportSize()!;
  await page.setViewportSize({ width: 1920, height: 1080 });
  await replayRegion.scrollIntoViewIfNeeded();
  const rows = await legendRows(page, 'Replay');
  await shot(page, 'overlays-replay-legend-1920.png', replayRegion);
  assert.ok(rows <= 2, `the Replay legend takes ${rows} rows at 1920 px`);
  await page.setViewportSize(viewport);

  const diff = page.getByRole('region', { name: 'Config diff' });
  await diff.waitFor(LONG);
  const heads = await diff.locator('thead th').allTextContents();
  const liveLabel = shortRunNames([live.name, ...runs.map((r) => r.name)])[0]!;
  assert.deepEqual(heads, ['field', `${liveLabel}live`, ...labels.map((l) => `${l}overlay`)]);
  assert.deepEqual(await diff.locator('thead th[title]').evaluateAll((ths) => ths.map((th) => th.getAttribute('title'))), [live.name, ...runs.map((r) => r.name)], 'folder names on hover');
  const lrRow = diff.locator('tbody tr', { has: page.locator('th code', { hasText: /^optim\.lr$/ }) });
  assert.deepEqual(await lrRow.locator('td').allTextContents(), [live.lr, ...runs.map((r) => r.lr)]);
  await shot(page, 'overlays-config-diff.png', undefined, true);
  // Three runs fit the side panel at 1280 px too (about 400 px wide): every column lies inside
  // the diff's box, none off to the right.
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 1280, height: size.height });
  await diff.scrollIntoViewIfNeeded();
  const box = (await diff.boundingBox())!;
  for (const cell of await diff.locator('thead th, tbody tr:first-child > *').all()) {
    const b = (await cell.boundingBox())!;
    assert.ok(b.x + b.width <= box.x + box.width + 0.5, `'${await cell.textContent()}' ends at x ${(b.x + b.width).toFixed(0)}, past the diff's right edge ${(box.x + box.width).toFixed(0)} (the diff is ${box.width.toFixed(0)} px wide)`);
  }
  // Field paths and run names break between words only (a fixed layout put a run's ')' on a line of its own).
  const broken = await diff.evaluate((el) => {
    const out: string[] = [];
    for (const cell of el.querySelectorAll('thead th, tbody th')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        for (const m of (n.textContent ?? '').matchAll(/[^\s-]+-?/g)) {
          const word = document.createRange();
          word.setStart(n, m.index);
          word.setEnd(n, m.index + m[0].length);
          if (new Set([...word.getClientRects()].map((r) => Math.round(r.top))).size > 1) out.push(m[0]);
        }
      }
    }
    return out;
  });
  assert.deepEqual(broken, [], 'words of the config diff broken across lines');
  await shot(page, 'overlays-config-diff-1280.png', undefined, true);
  // The preset box names the live run's config without its date stamp (it fits at 1280 px), the
  // full folder name in its tooltip.
  const preset = page.getByRole('combobox', { name: 'Preset' });
  assert.equal(await preset.locator('option').first().textContent(), `load a preset… (now: ${runTitle(live.name)})`);
  assert.equal(await preset.getAttribute('title'), `the config was loaded from ${live.name}`);
  await page.setViewportSize(size);

  // Open the first overlaid run: the charts show it, and it is not drawn over itself.
  await table.getByRole('button', { name: `Open ${runs[0]!.name}`, exact: true }).click();
  await page.getByText('showing a past run').waitFor(LONG);
  await region(page, 'Loss').scrollIntoViewIfNeeded();
  const opened = shortRunNames(runs.map((r) => r.name));
  await legendList.getByRole('listitem').filter({ hasText: opened[0]! }).waitFor({ state: 'detached', ...LONG });
  await waitForPoints(page, 'Loss', 3);
  assert.equal(await region(page, 'Loss').locator('path.recharts-curve[stroke-dasharray="5 3"]').count(), 1, 'only the other overlaid run is dashed');
  assert.deepEqual(await diff.locator('thead th').allTextContents(), ['field', `${opened[0]}opened`, `${opened[1]}overlay`]);
  await page.getByRole('button', { name: 'Back to live' }).click();
  for (const r of runs) await table.getByRole('checkbox', { name: `Overlay ${r.name}`, exact: true }).uncheck();
  await diff.waitFor({ state: 'detached', ...LONG });
  // The unticking scrolled to the run history; back on screen, the Loss chart drops the overlays.
  await region(page, 'Loss').scrollIntoViewIfNeeded();
  await legendList.getByRole('listitem').filter({ hasText: /\(\d\d:\d\d:\d\d\)$/ }).first().waitFor({ state: 'detached', ...LONG });
}

/** The hyperparameter table: the runs with optim.lr as a column (it differs), sorted by it both ways; Esc closes it. */
export async function hyperparameterTable(page: Page, runs: { name: string; lr: string }[]): Promise<void> {
  await page.getByRole('button', { name: 'Hyperparameters' }).click();
  const dialog = page.getByRole('dialog', { name: 'Hyperparameters' });
  await dialog.waitFor(LONG);
  const table = dialog.getByRole('table', { name: 'Hyperparameters of runs' });
  const lrHead = table.getByRole('button', { name: /^optim\.lr( [▲▼])?$/ });
  await lrHead.click();
  await table.locator('th[aria-sort=descending]', { hasText: 'optim.lr' }).waitFor(LONG);
  const order = async () => (await table.locator('tbody th').allTextContents()).filter((n) => runs.some((r) => r.name === n));
  const byLr = [...runs].sort((x, y) => Number(y.lr) - Number(x.lr)).map((r) => r.name);
  assert.deepEqual(await order(), byLr, 'largest learning rate first');
  const lrCells = await table.locator('tbody td[data-col="optim.lr"]').allTextContents();
  assert.ok(lrCells.includes(runs[0]!.lr) && lrCells.includes(runs[1]!.lr));
  await lrHead.click();
  await table.locator('th[aria-sort=ascending]', { hasText: 'optim.lr' }).waitFor(LONG);
  assert.deepEqual(await order(), [...byLr].reverse());
  assert.ok((await table.locator('thead th').allTextContents()).some((h) => /^Eval return/.test(h)), 'results beside the config');
  await shot(page, 'hyperparameters.png');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden', ...LONG });
}

/** The All scalars panel draws the scalars no other chart draws (gradient norm, epsilon), and its filter narrows the list. */
export async function allScalars(page: Page): Promise<void> {
  const panel = page.getByRole('region', { name: 'All scalars' });
  await panel.getByRole('button', { name: /^Show all \d+ logged scalars$/ }).click();
  for (const title of ['losses/grad_norm', 'charts/epsilon']) {
    await region(page, title).scrollIntoViewIfNeeded();
    await waitForPoints(page, title, 2);
  }
  await shot(page, 'all-scalars.png', panel);
  await panel.getByRole('searchbox', { name: 'Filter scalars' }).fill('epsilon');
  await page.waitForFunction(() => document.querySelectorAll('.scalars-panel section.chart').length === 1, undefined, LONG);
  assert.deepEqual(await panel.locator('section.chart h2').allTextContents(), ['charts/epsilon']);
  await panel.getByRole('button', { name: 'Hide' }).click();
  await page.evaluate(() => window.scrollTo(0, 0));
}

/** Loss exported as SVG (title, legend and the drawn curves) and as PNG at twice the chart's pixels, with the loss colour in it. */
export async function exportLossChart(page: Page, theme: ThemeName): Promise<void> {
  const chart = region(page, 'Loss');
  const download = async (format: string) => {
    const [d] = await Promise.all([page.waitForEvent('download', LONG), chart.getByRole('button', { name: `Export Loss as ${format}` }).click()]);
    assert.equal(d.suggestedFilename(), `loss.${format.toLowerCase()}`);
    return readFileSync((await d.path())!);
  };
  const svg = (await download('SVG')).toString('utf8');
  const lossInk = ink(THEMES[theme], SERIES_COLORS.amber);
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="(\d+)" height="(\d+)"/);
  assert.ok(svg.includes('>Loss</text>') && svg.includes('>TD loss (EMA 0.60)</text>'), 'title and legend');
  assert.ok(svg.includes(`<rect width="100%" height="100%" fill="${THEMES[theme].panel}"/>`), 'on the theme panel');
  assert.ok(new RegExp(`<path[^>]*stroke="${lossInk}"[^>]*class="recharts-curve`).test(svg) || new RegExp(`class="recharts-curve[^"]*"[^>]*stroke="${lossInk}"`).test(svg), `a loss curve drawn in ${lossInk}`);
  const width = Number(/width="(\d+)"/.exec(svg)![1]);
  const height = Number(/height="(\d+)"/.exec(svg)![1]);
  const png = await download('PNG');
  assert.deepEqual([...png.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a PNG signature');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [2 * width, 2 * height], 'twice the CSS pixels');
  // The PNG is not blank: many of its pixels have the loss curve's colour.
  const hits = await page.evaluate(
    async ([data, rgb]) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const c = document.createElement('canvas');
      [c.width, c.height] = [img.width, img.height];
      const ctx = c.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const px = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i]! - rgb[0]!) + Math.abs(px[i + 1]! - rgb[1]!) + Math.abs(px[i + 2]! - rgb[2]!) < 30) n++;
      return n;
    },
    [png.toString('base64'), [1, 3, 5].map((i) => parseInt(lossInk.slice(i, i + 2), 16))] as const,
  );
  assert.ok(hits > 200, `${hits} pixels of the loss colour ${lossInk} in the PNG`);
}

/** "?" (outside text fields) and the header's button open the shortcut list, Esc closes it; "?" typed in a search box is a character. */
export async function shortcutOverlay(page: Page): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await page.getByRole('heading', { name: 'DQN Console' }).click();
  await page.keyboard.press('?');
  await dialog.waitFor({ state: 'visible', ...LONG });
  const rows = await dialog.locator('tr').allTextContents();
  for (const want of ['Ctrl+EnterStart a run', 'Ctrl+.Stop the run', 'Ctrl+,Focus the first config field', '?Show or hide this list']) assert.ok(rows.some((r) => r.startsWith(want)), `${want} in ${rows.join(' | ')}`);
  await shot(page, 'shortcuts.png');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden', ...LONG });
  await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
  await dialog.waitFor({ state: 'visible', ...LONG });
  await dialog.getByRole('button', { name: 'Close keyboard shortcuts' }).click();
  await dialog.waitFor({ state: 'hidden', ...LONG });
  const search = page.getByRole('searchbox', { name: 'Filter runs' });
  await search.fill('');
  await search.press('?');
  assert.equal(await search.inputValue(), '?');
  assert.equal(await dialog.isVisible(), false, '"?" typed into a text field opens nothing');
  await search.fill('');
}

/** Switches to the light theme with the header's button: the page and the charts take its colours, and a reload keeps it. */
export async function lightTheme(page: Page): Promise<void> {
  await page.getByRole('button', { name: /Light theme/ }).click();
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'light', undefined, LONG);
  assert.equal(hexOf(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)), THEMES.light.bg);
  await page.reload();
  await page.getByRole('button', { name: /Dark theme/ }).waitFor(LONG);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light', 'kept across a reload');
  await waitForPoints(page, 'Loss', 3);
  const stroke = await region(page, 'Loss').locator('path.recharts-curve').last().getAttribute('stroke');
  assert.equal(stroke, ink(THEMES.light, SERIES_COLORS.amber), 'the loss curve darkened for the white panel');
}
