import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deltaE } from './color.ts';
import { FEATURE_COLORS, MIN_RUN_DELTA_E, pickRunColor, RUN_COLORS, SERIES_COLORS } from './palette.ts';

const SERIES = [...Object.values(SERIES_COLORS), ...FEATURE_COLORS];

test('no overlaid-run colour looks like a series colour or like another run colour', () => {
  for (const run of RUN_COLORS) {
    for (const s of SERIES) assert.ok(deltaE(run, s) >= MIN_RUN_DELTA_E, `run colour ${run} is ΔE ${deltaE(run, s).toFixed(1)} from series colour ${s}`);
    for (const other of RUN_COLORS) if (other !== run) assert.ok(deltaE(run, other) >= MIN_RUN_DELTA_E, `run colours ${run} and ${other} are ΔE ${deltaE(run, other).toFixed(1)} apart`);
  }
});

test('runs picked one after another get the palette in order, then distinct generated colours far from the series', () => {
  const used: string[] = [];
  for (let i = 0; i < 12; i++) used.push(pickRunColor(used));
  assert.deepEqual(used.slice(0, RUN_COLORS.length), [...RUN_COLORS]);
  assert.equal(new Set(used).size, 12, `twelve runs, twelve colours: ${used.join(' ')}`);
  for (const c of used.slice(RUN_COLORS.length)) {
    assert.match(c, /^#[0-9a-f]{6}$/);
    for (const s of [...SERIES, ...used.filter((u) => u !== c)]) assert.ok(deltaE(c, s) >= MIN_RUN_DELTA_E, `generated ${c} is ΔE ${deltaE(c, s).toFixed(1)} from ${s}`);
  }
});

test('a colour freed by a removed run is given to the next run picked', () => {
  assert.equal(pickRunColor([RUN_COLORS[0], RUN_COLORS[2]]), RUN_COLORS[1]);
});

test('with every distinct colour taken, the next run still gets a colour no run uses', () => {
  const used: string[] = [];
  for (let i = 0; i < 60; i++) used.push(pickRunColor(used));
  assert.equal(new Set(used).size, 60);
});
