import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interquartileMean, seedStats } from './seed-stats.ts';

test('the interquartile mean drops floor(n/4) values at each end of the sorted list', () => {
  assert.equal(interquartileMean([8, 1, 7, 2, 6, 3, 5, 4]), 4.5, 'n = 8: mean of 3, 4, 5, 6');
  assert.equal(interquartileMean([100, 2, 3, 4, 1]), 3, 'n = 5: mean of 2, 3, 4 (the outlier 100 is dropped)');
  assert.equal(interquartileMean([1, 2, 9]), 4, 'n = 3: nothing dropped, the plain mean');
  assert.throws(() => interquartileMean([]), /at least one value/);
});

test('seed statistics give the mean, sample std, IQM and a bootstrap interval of the IQM inside the range', () => {
  const s = seedStats([1, 2, 3, 4, 100]);
  assert.equal(s.n, 5);
  assert.equal(s.mean, 22);
  assert.ok(Math.abs(s.std - Math.sqrt((21 ** 2 + 20 ** 2 + 19 ** 2 + 18 ** 2 + 78 ** 2) / 4)) < 1e-12);
  assert.equal(s.iqm, 3);
  assert.deepEqual([s.min, s.max], [1, 100]);
  assert.ok(s.iqm_ci95[0] <= s.iqm && s.iqm <= s.iqm_ci95[1] && s.iqm_ci95[0] >= 1 && s.iqm_ci95[1] <= 100, `interval ${s.iqm_ci95}`);
  assert.ok(s.iqm_ci95[1] < 100, 'the IQM interval is not dragged to the outlier');
  assert.deepEqual(seedStats([1, 2, 3, 4, 100]), s, 'the bootstrap stream is fixed');
  const one = seedStats([0.5]);
  assert.deepEqual([one.mean, one.std, one.iqm, one.iqm_ci95], [0.5, 0, 0.5, [0.5, 0.5]]);
  assert.throws(() => seedStats([1, Number.NaN]), /value 1 is NaN; every seed's figure must be finite/);
});
