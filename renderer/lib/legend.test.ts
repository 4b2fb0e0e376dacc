import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chartLegend, coveringTicks, legendEntries, niceTicks, OVERLAY_DASHES, overlayDash } from './legend.ts';

test('a smoothed line gets a raw and an EMA entry, a plain line one, a band one, all with their scalar names', () => {
  const e = legendEntries(
    [
      { name: 'q/mean', label: 'Q mean', color: '#111' },
      { name: 'q/mean_max', label: 'mean max-Q', color: '#222', smooth: false },
      { name: 'eval/mean_return', label: 'evaluation mean', color: '#333', smooth: false, dots: true },
    ],
    0.6,
    [{ lo: 'q/min', hi: 'q/max', color: '#111', label: 'Q min–max' }],
  );
  assert.deepEqual(
    e.map((x) => [x.label, x.kind, x.series]),
    [
      ['Q min–max', 'band', 'q/min … q/max'],
      ['Q mean (raw)', 'raw', 'q/mean'],
      ['Q mean (EMA 0.60)', 'line', 'q/mean'],
      ['mean max-Q', 'line', 'q/mean_max'],
      ['evaluation mean', 'dots', 'eval/mean_return'],
    ],
  );
  assert.equal(new Set(e.map((x) => x.key)).size, e.length, 'keys are unique');
});

test("a run drawn over a chart is one legend entry under its short name, the folder name on hover; with one overlaid line its swatch has that line's dash", () => {
  const loss = { name: 'losses/td_loss', label: 'TD loss', color: '#111' };
  const runs = [
    { folder: '20261202-220538-walk-cartpole', label: 'walk-cartpole (22:05:38)', color: '#0ff', lines: [{ line: loss, dash: overlayDash(0) }] },
    { folder: '20261202-220523-cartpole', label: 'cartpole', color: '#ff0', lines: [{ line: loss, dash: overlayDash(0) }] },
  ];
  const e = chartLegend([loss], 0.6, [], runs);
  assert.deepEqual(
    e.map((x) => [x.label, x.kind, x.dash, x.overlayDash, x.run]),
    [
      ['TD loss (raw)', 'raw', undefined, undefined, undefined],
      ['TD loss (EMA 0.60)', 'line', undefined, undefined, undefined],
      ['walk-cartpole (22:05:38)', 'line', '5 3', undefined, '20261202-220538-walk-cartpole'],
      ['cartpole', 'line', '5 3', undefined, '20261202-220523-cartpole'],
    ],
  );
});

test('runs drawn over a chart of several lines: one chip per run, and each line\'s dash once, beside its own entry or alone where the shown run has no data for it (not an entry per run and line)', () => {
  const lines = ['total priority', 'max priority', 'mean IS weight', 'beta'].map((label, i) => ({ name: `replay/${i}`, label, color: `#${i}${i}${i}`, smooth: false }));
  const run = (folder: string, label: string) => ({ folder, label, color: '#0ff', lines: lines.map((line, i) => ({ line, dash: overlayDash(i) })) });
  // The shown run has data for three of the four lines.
  const e = chartLegend(lines.slice(0, 3), 0.6, [], [run('20261202-220538-a', 'a'), run('20261202-220523-b', 'b')]);
  assert.deepEqual(
    e.map((x) => [x.label, x.kind, x.overlayDash ?? '', x.series]),
    [
      ['total priority', 'line', '5 3', 'replay/0'],
      ['max priority', 'line', '1 3', 'replay/1'],
      ['mean IS weight', 'line', '9 3 2 3', 'replay/2'],
      ['beta', 'key', '3 6', 'replay/3'],
      ['a', 'run', '', 'replay/0, replay/1, replay/2, replay/3'],
      ['b', 'run', '', 'replay/0, replay/1, replay/2, replay/3'],
    ],
  );
  assert.equal(new Set(e.map((x) => x.key)).size, e.length, 'keys are unique');
  assert.deepEqual(chartLegend(lines, 0.6, [], []).map((x) => x.overlayDash), [undefined, undefined, undefined, undefined], 'no runs over the chart: no dashes');
});

test('axis ticks are round numbers inside the range, not the range ends', () => {
  // 500..7000 over ~5 ticks: raw step 1300 -> 1000.
  assert.deepEqual(niceTicks(500, 7000, 5), [1000, 2000, 3000, 4000, 5000, 6000, 7000]);
  // Env steps 564..7064: the same step, first tick 1000.
  assert.deepEqual(niceTicks(564, 7064, 5), [1000, 2000, 3000, 4000, 5000, 6000, 7000]);
  // Epochs 1..14: raw step 2.6 -> 2.
  assert.deepEqual(niceTicks(1, 14, 5, true), [2, 4, 6, 8, 10, 12, 14]);
  // Epochs 1..3 with 5 ticks asked: raw step 0.4 would give fractions; integer axes step by 1.
  assert.deepEqual(niceTicks(1, 3, 5, true), [1, 2, 3]);
  // Small values: 0.1 + 0.2 style float noise is rounded away.
  assert.deepEqual(niceTicks(0, 0.3, 3), [0, 0.1, 0.2, 0.3]);
  assert.deepEqual(niceTicks(5, 5, 5), [5]);
  assert.deepEqual(niceTicks(NaN, 5, 5), []);
});

test('y ticks cover the data with round values and end on them, at most one more than asked (recharts read 0.0055 / 0.011 / 0.0165 on a loss, 11 / -11 / -22 on Q)', () => {
  assert.deepEqual(coveringTicks(0.0061, 0.0268, 5), { ticks: [0.005, 0.01, 0.015, 0.02, 0.025, 0.03], step: 0.005 });
  assert.deepEqual(coveringTicks(-31.2, 10.4, 5).ticks, [-40, -20, 0, 20], "-40 to 20 by 10 would be 7");
  assert.deepEqual(coveringTicks(-1, 0.32, 5).ticks, [-1, -0.5, 0, 0.5], 'no more than count + 1');
  assert.deepEqual(coveringTicks(0.74, 0.74, 5).ticks, [0.2, 0.4, 0.6, 0.8, 1, 1.2], 'a flat series is widened');
  assert.deepEqual(coveringTicks(0, 0, 5).ticks, [-0.5, 0, 0.5]);
  // One round tick inside the range: the ends step by the rule's step, not by the range (the layout
  // test once read 2.144, 3, 3.856 on a Loss axis).
  assert.deepEqual(coveringTicks(2.572, 3.428, 3), { ticks: [2.5, 3, 3.5], step: 0.5 });
  assert.deepEqual(coveringTicks(NaN, 1, 5).ticks, []);
  // A range of one ulp (a C51 loss at 3 and its EMA 4e-16 above): flat, not a loop past 2^53.
  assert.deepEqual(coveringTicks(3, 3.0000000000000004, 5).ticks, [1, 2, 3, 4, 5]);
  assert.deepEqual(niceTicks(3, 3.0000000000000004, 5), [3]);
});

test("an overlaid run's lines in one chart get distinct dash patterns, the first the classic 5 3", () => {
  assert.equal(overlayDash(0), '5 3');
  assert.equal(new Set(OVERLAY_DASHES.map((_, i) => overlayDash(i))).size, OVERLAY_DASHES.length, 'the four lines of the Replay chart are told apart');
  assert.equal(overlayDash(OVERLAY_DASHES.length), overlayDash(0));
});
