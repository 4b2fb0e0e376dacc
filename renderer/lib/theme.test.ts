import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contrast, over } from './color.ts';
import { FEATURE_COLORS, RUN_COLORS, SERIES_COLORS } from './palette.ts';
import { ink, RAW_LINE_OPACITY, THEMES, themeProperties } from './theme.ts';
import { storedTheme } from './theme-store.ts';

const CHART_COLORS = [...Object.values(SERIES_COLORS), ...FEATURE_COLORS, ...RUN_COLORS];

for (const theme of Object.values(THEMES)) {
  test(`${theme.name} theme: text reads at WCAG AA on every background it is written on`, () => {
    for (const bg of [theme.bg, theme.panel, theme.button, theme.primary, theme.input, theme.badge, theme.running, theme.stopping, theme.halted, theme.bannerWarn, theme.bannerError])
      assert.ok(contrast(theme.text, bg) >= 4.5, `text ${theme.text} on ${bg}: ${contrast(theme.text, bg).toFixed(2)}:1`);
    for (const fg of [theme.muted, theme.warn, theme.err, theme.ok, theme.accent])
      for (const bg of [theme.bg, theme.panel]) assert.ok(contrast(fg, bg) >= 4.5, `${fg} on ${bg}: ${contrast(fg, bg).toFixed(2)}:1`);
  });

  test(`${theme.name} theme: every chart colour is drawn with at least 3:1 contrast on the chart panel, keeping distinct colours distinct`, () => {
    const drawn = CHART_COLORS.map((c) => ink(theme, c));
    for (const [i, c] of drawn.entries()) assert.ok(contrast(c, theme.panel) >= 3, `${CHART_COLORS[i]} drawn as ${c}: ${contrast(c, theme.panel).toFixed(2)}:1 on ${theme.panel}`);
    assert.equal(new Set(drawn).size, new Set(CHART_COLORS).size);
  });
}

test('the dark theme draws the palette as designed; the light one darkens only what is too pale for white', () => {
  for (const c of CHART_COLORS) if (contrast(c, THEMES.dark.panel) >= 3) assert.equal(ink(THEMES.dark, c), c);
  assert.notEqual(ink(THEMES.light, SERIES_COLORS.yellow), SERIES_COLORS.yellow);
  assert.equal(ink(THEMES.light, RUN_COLORS[5]), RUN_COLORS[5], 'a deep violet already stands out on white');
});

test('raw lines are faint but visible, and as visible on the light panel as on the dark one', () => {
  const seen = (name: 'dark' | 'light') =>
    CHART_COLORS.map((c) => contrast(over(ink(THEMES[name], c), RAW_LINE_OPACITY[name], THEMES[name].panel), THEMES[name].panel));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const [dark, light] = [seen('dark'), seen('light')];
  for (const x of [...dark, ...light]) assert.ok(x >= 1.25 && x < 3, `a raw line at ${x.toFixed(2)}:1: visible, fainter than its curve`);
  assert.ok(mean(light) >= mean(dark), `light ${mean(light).toFixed(2)}:1 against dark ${mean(dark).toFixed(2)}:1 on average`);
  assert.equal(over('#ffffff', 0.5, '#000000'), '#808080');
});

test('every theme token becomes a CSS custom property in kebab case', () => {
  const props = new Map(themeProperties(THEMES.light));
  assert.equal(props.get('--banner-error'), THEMES.light.bannerError);
  assert.equal(props.get('--panel'), '#ffffff');
  assert.equal(props.size, Object.keys(THEMES.light).length - 1);
  assert.deepEqual(themeProperties(THEMES.dark).map(([k]) => k), [...props.keys()], 'both themes set the same properties');
});

test('a stored theme choice is used only when it names a theme', () => {
  assert.equal(storedTheme({ theme: 'light' }), 'light');
  assert.equal(storedTheme({ theme: 'dark' }), 'dark');
  for (const bad of [{ theme: 'solarized' }, { theme: 'toString' }, { theme: 1 }, null, undefined, 'light']) assert.equal(storedTheme(bad), undefined, JSON.stringify(bad));
});
