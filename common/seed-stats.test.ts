import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from './random.ts';
import { interquartileMean, seedStats } from './seed-stats.ts';
import { studentQuantile, studentTwoSided } from './student-t.ts';

test('the interquartile mean drops floor(n/4) values at each end of the sorted list', () => {
  assert.equal(interquartileMean([8, 1, 7, 2, 6, 3, 5, 4]), 4.5, 'n = 8: mean of 3, 4, 5, 6');
  assert.equal(interquartileMean([100, 2, 3, 4, 1]), 3, 'n = 5: mean of 2, 3, 4 (the outlier 100 is dropped)');
  assert.equal(interquartileMean([1, 2, 9]), 4, 'n = 3: nothing dropped, the plain mean');
  assert.throws(() => interquartileMean([]), /at least one value/);
});

test("Student's t quantiles match the printed table (two-sided 95%: t 0.975)", () => {
  // Abramowitz & Stegun table 26.10 / any statistics text: t_{0.975, nu}.
  const table: [number, number][] = [[1, 12.7062], [2, 4.3027], [3, 3.1824], [4, 2.7764], [9, 2.2622], [30, 2.0423]];
  for (const [nu, t] of table) assert.ok(Math.abs(studentQuantile(0.95, nu) - t) < 5e-5, `nu = ${nu}: ${studentQuantile(0.95, nu)} vs ${t}`);
  assert.ok(Math.abs(studentTwoSided(1, 1) - 0.5) < 1e-15, 'nu = 1 is Cauchy: P(|T| <= 1) = 1/2');
  assert.ok(Math.abs(studentTwoSided(Math.SQRT2, 2) - Math.SQRT1_2) < 1e-15, 'nu = 2: P(|T| <= t) = t / sqrt(2 + t^2)');
  assert.throws(() => studentQuantile(0.95, 0), /degrees of freedom must be a positive integer, got 0/);
});

test('seed statistics give the mean, sample std, IQM and the t interval of the mean', () => {
  const s = seedStats([1, 2, 3, 4, 100]);
  assert.equal(s.n, 5);
  assert.equal(s.mean, 22);
  const std = Math.sqrt((21 ** 2 + 20 ** 2 + 19 ** 2 + 18 ** 2 + 78 ** 2) / 4);
  assert.ok(Math.abs(s.std - std) < 1e-12);
  assert.equal(s.iqm, 3);
  assert.deepEqual([s.min, s.max], [1, 100]);
  const half = (2.7764451 * std) / Math.sqrt(5);
  assert.ok(Math.abs(s.mean_ci95[0] - (22 - half)) < 1e-5 && Math.abs(s.mean_ci95[1] - (22 + half)) < 1e-5, `interval ${s.mean_ci95}`);
  const one = seedStats([0.5]);
  assert.deepEqual([one.mean, one.std, one.iqm, one.mean_ci95], [0.5, 0, 0.5, [0.5, 0.5]]);
  assert.throws(() => seedStats([1, Number.NaN]), /value 1 is NaN; every seed's figure must be finite/);
});

test('the 95% interval covers the true mean 95% of the time at 3, 5 and 10 seeds (simulation, within 2 points)', () => {
  // 20,000 groups of n normal draws (Box-Muller) with mean 0.3 and sd 2: the share of groups whose
  // interval holds 0.3 has a standard error of 0.15 points, so 2 points is 13 standard errors.
  const u = seededRandom(2025);
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  for (const n of [3, 5, 10]) {
    let covered = 0;
    const trials = 20_000;
    for (let k = 0; k < trials; k++) {
      const [lo, hi] = seedStats(Array.from({ length: n }, () => 0.3 + 2 * normal())).mean_ci95;
      if (lo <= 0.3 && 0.3 <= hi) covered++;
    }
    const coverage = covered / trials;
    assert.ok(Math.abs(coverage - 0.95) <= 0.02, `n = ${n}: coverage ${(100 * coverage).toFixed(2)}%`);
  }
});
