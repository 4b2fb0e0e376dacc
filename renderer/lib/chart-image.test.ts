import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chartImage, legendLayout, xmlEscape } from './chart-image.ts';
import type { LegendEntry } from './legend.ts';
import { SERIES_COLORS } from './palette.ts';
import { ink, THEMES } from './theme.ts';

const entry = (label: string, kind: LegendEntry['kind'], dash?: string): LegendEntry => ({ key: label, label, color: SERIES_COLORS.yellow, kind, series: 'replay/beta', ...(dash ? { dash } : {}) });

test('legend entries wrap onto a new row when the next one would pass the right edge', () => {
  const entries = [entry('TD loss (raw)', 'raw'), entry('TD loss (EMA 0.60)', 'line'), entry('20261201-120000-cartpole: TD loss', 'line', '5 3')];
  assert.deepEqual(legendLayout(entries, 2000).map((p) => p.row), [0, 0, 0]);
  const narrow = legendLayout(entries, 300);
  assert.deepEqual(narrow.map((p) => p.row), [0, 0, 1]);
  assert.equal(narrow[2]!.x, narrow[0]!.x, 'a new row starts at the left margin');
  assert.deepEqual(legendLayout([entry('a very long label that is wider than the chart by itself', 'line')], 100), [{ x: 8, row: 0 }], 'one entry too wide still takes the first row');
  // An entry with the overlaid runs' dash beside its swatch is a swatch wider; a key entry (the dash alone) as wide as a plain one.
  const [plain, dashed, key] = [entry('beta', 'line'), { ...entry('beta', 'line'), overlayDash: '1 3' }, { ...entry('beta', 'key'), overlayDash: '1 3' }];
  const next = (e: LegendEntry) => legendLayout([e, entry('x', 'line')], 2000)[1]!.x;
  assert.equal(next(dashed) - next(plain), 22);
  assert.equal(next(key), next(plain));
});

test("the image draws a run's chip, the overlaid runs' dash beside a curve's swatch, and a key entry's dash alone, in the theme's muted colour", () => {
  const img = chartImage('<svg/>', 600, 100, 'Replay', [{ ...entry('beta', 'line'), overlayDash: '9 3 2 3' }, { ...entry('max priority', 'key'), overlayDash: '1 3' }, { ...entry('walk-cartpole', 'run'), run: '20261202-220538-walk-cartpole' }], THEMES.dark);
  assert.ok(img.svg.includes(`stroke="${THEMES.dark.muted}" stroke-width="2" stroke-dasharray="9 3 2 3"`));
  assert.ok(img.svg.includes(`stroke="${THEMES.dark.muted}" stroke-width="2" stroke-dasharray="1 3"`));
  assert.ok(img.svg.includes(`rx="2" fill="${ink(THEMES.dark, SERIES_COLORS.yellow)}"`), 'the run chip, opaque');
  assert.equal((img.svg.match(/<line /g) ?? []).length, 3, "beta's swatch and two dashes: no swatch of its own for the key entry");
});

test('the image is the chart under its title and legend, on the theme panel, taller by the header', () => {
  const chart = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="220"><path d="M0,0L10,10" stroke="#f4b400"/></svg>';
  const img = chartImage(chart, 400, 220, 'Replay', [entry('beta', 'line'), entry('mean IS weight', 'raw'), entry('run-b: beta', 'line', '5 3')], THEMES.light);
  assert.equal(img.width, 400);
  assert.equal(img.height, 220 + 24 + 16 + 4, 'title row and one legend row above the chart');
  assert.match(img.svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="400" height="264" viewBox="0 0 400 264"/);
  assert.ok(img.svg.includes(`<rect width="100%" height="100%" fill="${THEMES.light.panel}"/>`));
  assert.ok(img.svg.includes(`>Replay</text>`));
  assert.ok(img.svg.includes(`stroke="${ink(THEMES.light, SERIES_COLORS.yellow)}"`), 'swatches in the colour drawn on this theme');
  assert.ok(img.svg.includes('stroke-dasharray="5 3"'), "an overlaid run's swatch is dashed");
  assert.ok(img.svg.includes(`<g transform="translate(0 44)">${chart}</g></svg>`), 'the chart itself, below the header');
});

test('titles and labels are escaped for XML', () => {
  assert.equal(xmlEscape(`a<b & "c" 'd'>`), 'a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;');
  const img = chartImage('<svg/>', 300, 100, 'Q <min>', [entry('x & y', 'band')], THEMES.dark);
  assert.ok(img.svg.includes('>Q &lt;min&gt;</text>') && img.svg.includes('>x &amp; y</text>'));
});
