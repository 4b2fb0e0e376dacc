import { test } from 'node:test';
import assert from 'node:assert/strict';
import { debiasedEma } from './ema.ts';
import { Series, COMPACT_BUCKET } from './series.ts';

test('a series keeps raw and smoothed values as points arrive, and views a zoomed x-range', () => {
  const s = new Series(1 << 16, 0.6, 16);
  const ys = Array.from({ length: 100 }, (_, i) => (i * 37) % 11);
  ys.forEach((y, i) => s.push(i * 2, y));
  assert.equal(s.length, 100);
  assert.deepEqual(Array.from(s.smoothed.subarray(0, 100)), Array.from(debiasedEma(ys, 0.6)));
  assert.equal(s.push(5, 1), false, 'an out-of-order point is refused');
  const v = s.view(1000, 20, 40);
  assert.deepEqual(Array.from(v.raw.x.subarray(0, v.raw.length)), [20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40]);
  s.setSmoothing(0);
  assert.deepEqual(Array.from(s.smoothed.subarray(0, 100)), ys);
});

test('memory is bounded: a full series compacts its older half and keeps spikes and NaNs', () => {
  const max = 4096;
  const s = new Series(max, 0.6, 64);
  const total = 50_000;
  for (let i = 0; i < total; i++) {
    const y = i === 1234 ? 1000 : i === 2345 ? NaN : Math.sin(i / 50);
    s.push(i, y);
  }
  assert.ok(s.length <= max, `length ${s.length} <= ${max}`);
  assert.ok(s.bytes <= (4 * 8 + 1) * max, `${s.bytes} bytes for ${max} points`);
  const ys = Array.from(s.y.subarray(0, s.length));
  assert.ok(ys.includes(1000), 'the spike survived several compactions');
  assert.ok(ys.some((y) => Number.isNaN(y)), 'the NaN survived');
  assert.equal(s.lastX, total - 1);
  const xs = Array.from(s.x.subarray(0, s.length));
  assert.ok(xs.every((x, i) => i === 0 || x >= xs[i - 1]!), 'x stays sorted');
  // The newest points are untouched: the last max/2 raw points are exactly the input.
  const tail = xs.slice(-max / 4);
  assert.deepEqual(tail, Array.from({ length: max / 4 }, (_, k) => total - max / 4 + k));
  assert.ok(s.compactedBelow > 0 && s.compactedBelow < total - max / 4);
  assert.equal(COMPACT_BUCKET, 8);
});

test('summaries feed their mean to the smoothing once; re-smoothing gives the same curve as appending', () => {
  const s = new Series(1 << 10, 0.5, 16);
  s.pushSummary([[0, 1], [1, 9], [2, 4]], 5); // min, max, last of a frame whose mean is 5
  s.pushSummary([[3, NaN], [4, 2]], 2);
  assert.equal(s.push(5, 6), true);
  assert.equal(s.pushSummary([[4.5, 1]], 1), 0, 'a point behind the last x is dropped');
  const sm = Array.from(s.smoothed.subarray(0, s.length));
  // EMA w = 0.5, debiased: 5; (0.5*2.5 + 0.5*2) / 0.75 = 3; then (0.5*(0.5*2.5+1) + 0.5*6) / 0.875
  const e2 = (0.5 * 2.5 + 0.5 * 2) / 0.75;
  const e3 = (0.5 * (0.5 * 2.5 + 0.5 * 2) + 0.5 * 6) / 0.875;
  assert.deepEqual(sm.slice(0, 3), [5, 5, 5]);
  assert.ok(Number.isNaN(sm[3]!), 'a non-finite raw point stays a marker');
  assert.ok(Math.abs(sm[4]! - e2) < 1e-12 && Math.abs(sm[5]! - e3) < 1e-12, `${sm}`);
  // A later summary: its earlier points lie on the line (in x) from the previous smoothed value to the new one.
  s.pushSummary([[6, 0], [8, 10]], 5);
  const e4 = (0.5 * (0.5 * (0.5 * 2.5 + 0.5 * 2) + 0.5 * 6) + 0.5 * 5) / 0.9375;
  assert.ok(Math.abs(s.smoothed[7]! - e4) < 1e-12);
  assert.ok(Math.abs(s.smoothed[6]! - (e3 + ((6 - 5) / (8 - 5)) * (e4 - e3))) < 1e-12, 'interpolated, not a step');
  sm.push(s.smoothed[6]!, s.smoothed[7]!);
  const v = s.version;
  s.setSmoothing(0.5);
  assert.ok(s.version > v, 'a re-smooth is a change');
  const again = Array.from(s.smoothed.subarray(0, s.length));
  assert.deepEqual(again.map(String), sm.map(String));
});
