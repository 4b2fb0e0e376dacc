import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScalarPoint } from '../../common/run.ts';
import { boundPoints } from './history.ts';

const series = (n: number, f: (i: number) => ScalarPoint['values']): ScalarPoint[] => Array.from({ length: n }, (_, i) => ({ step: 10 * i, wall_s: i / 5, values: f(i) }));

test('a history that fits is returned as it is', () => {
  const pts = series(100, (i) => ({ 'losses/td_loss': i }));
  const b = boundPoints(pts, 100);
  assert.equal(b.points, pts);
  assert.equal(b.compactedBelow, undefined);
});

test('a long history keeps its newest half raw and each older bucket as min / max / last, spikes and NaN included', () => {
  // Loss 1 + (i % 7) / 10 with a spike of 1e6 at i = 123 and a NaN at i = 400; q/mean only on every 10th point.
  const pts = series(1000, (i) => {
    const v: ScalarPoint['values'] = { 'losses/td_loss': i === 123 ? 1e6 : i === 400 ? 'NaN' : 1 + (i % 7) / 10 };
    if (i % 10 === 0) v['q/mean'] = -i;
    return v;
  });
  const b = boundPoints(pts, 100);
  // max 100: the newest 50 stay; the 950 older ones go into floor(50 / 3) = 16 buckets of
  // ceil(950 / 16) = 60 points (the last one holds 50): 16 * 3 + 50 = 98 points.
  assert.equal(b.points.length, 98);
  assert.deepEqual(b.points.slice(48), pts.slice(950));
  assert.equal(b.compactedBelow, 9500);
  const steps = b.points.map((p) => p.step);
  assert.deepEqual(steps, [...steps].sort((x, y) => x - y), 'steps never go back');
  // Bucket 2 holds i = 120..179: min at its first step, the spike as its max at its middle step (i = 150), last at i = 179.
  const [lo, hi, last] = b.points.slice(6, 9);
  assert.deepEqual([lo!.step, hi!.step, last!.step], [1200, 1500, 1790]);
  assert.equal(lo!.values['losses/td_loss'], 1); // 126 % 7 == 0
  assert.equal(hi!.values['losses/td_loss'], 1e6);
  assert.equal(last!.values['losses/td_loss'], 1 + (179 % 7) / 10);
  assert.deepEqual([lo!.values['q/mean'], hi!.values['q/mean'], last!.values['q/mean']], [-170, -120, -170]);
  // Bucket 6 holds i = 360..419 with the NaN: it takes the max's place; the min is still finite.
  assert.equal(b.points[19]!.values['losses/td_loss'], 'NaN');
  assert.equal(b.points[18]!.values['losses/td_loss'], 1);
});

test('a bound below 6 points is refused', () => {
  assert.throws(() => boundPoints(series(10, () => ({})), 5), /at least 6/);
});
