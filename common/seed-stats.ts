// Spread of a figure across independent training seeds: mean, sample standard deviation, the
// interquartile mean (Agarwal et al. 2021, "Deep RL at the Edge of the Statistical Precipice") and
// a 95% Student-t confidence interval of the mean. At a few seeds a percentile bootstrap is no
// interval: at n = 3 it is about [min, max] and covers the true value ~74% of the time; the t
// interval covers 95% at any n for normal figures (common/seed-stats.test.ts checks it by
// simulation at n = 3, 5 and 10). Pure TS.
import { studentQuantile } from './student-t.ts';

/** How the interval is computed, as the summaries print it beside n. */
export const SEED_INTERVAL_METHOD = '95% Student-t interval of the mean over seeds: mean ± t(0.975, n - 1) std / sqrt(n)';

/** The spread of one figure over n seeds. */
export interface SeedStats {
  n: number;
  mean: number;
  /** Sample standard deviation (n - 1 in the denominator); 0 for one seed. */
  std: number;
  /** Interquartile mean: the mean of the values left after dropping floor(n / 4) from each end of the sorted list (scipy's trim_mean(x, 0.25), as rliable uses); the plain mean below 4 seeds. */
  iqm: number;
  min: number;
  max: number;
  /** 95% Student-t interval of the mean (SEED_INTERVAL_METHOD); [mean, mean] for one seed, where no spread is known. */
  mean_ci95: [number, number];
}

/** Interquartile mean of values (see SeedStats.iqm). @throws RangeError for an empty list. */
export function interquartileMean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('interquartileMean needs at least one value');
  const sorted = [...values].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length / 4);
  const kept = sorted.slice(cut, sorted.length - cut);
  return kept.reduce((a, b) => a + b, 0) / kept.length;
}

/**
 * Mean, std, IQM, min, max and the 95% Student-t interval of the mean of one figure over seeds.
 * @throws RangeError for an empty list or a non-finite value (say which seed's run to check).
 */
export function seedStats(values: readonly number[]): SeedStats {
  const n = values.length;
  if (n === 0) throw new RangeError('seedStats needs at least one value');
  const bad = values.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) throw new RangeError(`seedStats: value ${bad} is ${values[bad]}; every seed's figure must be finite`);
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const std = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : 0;
  const half = n > 1 ? (studentQuantile(0.95, n - 1) * std) / Math.sqrt(n) : 0;
  return { n, mean, std, iqm: interquartileMean(values), min: Math.min(...values), max: Math.max(...values), mean_ci95: [mean - half, mean + half] };
}
