import { test } from 'node:test';
import assert from 'node:assert/strict';
import { debiasedEma, DebiasedEma } from './ema.ts';

test('the smoothed series matches a debiased EMA worked out by hand', () => {
  // w = 0.6, y = 1, 2, 4:
  //   last1 = 0.4 * 1 = 0.4,               debias 1 - 0.6   = 0.4   -> 1
  //   last2 = 0.6 * 0.4 + 0.4 * 2 = 1.04,  debias 1 - 0.36  = 0.64  -> 1.625
  //   last3 = 0.6 * 1.04 + 0.4 * 4 = 2.224, debias 1 - 0.216 = 0.784 -> 2.836734693877551
  const out = debiasedEma([1, 2, 4], 0.6);
  assert.ok(Math.abs(out[0]! - 1) < 1e-12);
  assert.ok(Math.abs(out[1]! - 1.625) < 1e-12);
  assert.ok(Math.abs(out[2]! - 2.224 / 0.784) < 1e-12);
});

test('non-finite values pass through and do not advance the average', () => {
  const out = debiasedEma([1, NaN, Infinity, 2], 0.6);
  assert.ok(Number.isNaN(out[1]!));
  assert.equal(out[2], Infinity);
  // The 2 is the second finite value, so it smooths exactly like y = 1, 2.
  assert.ok(Math.abs(out[3]! - 1.625) < 1e-12);
});

test('weight 0 leaves the series unchanged and the streaming form equals the batch form', () => {
  assert.deepEqual([...debiasedEma([3, -1, 7], 0)], [3, -1, 7]);
  const ys = Array.from({ length: 500 }, (_, i) => Math.sin(i / 7) * 10 + (i % 13));
  const batch = debiasedEma(ys, 0.9);
  const ema = new DebiasedEma(0.9);
  ys.forEach((y, i) => assert.equal(ema.next(y), batch[i]));
  // The debiased EMA of a constant is that constant (TensorBoard draws it unsmoothed).
  for (const v of debiasedEma(new Array(200).fill(5), 0.99)) assert.ok(Math.abs(v - 5) < 1e-9);
});
