// Spread of a figure across independent training seeds (Agarwal et al. 2021, "Deep RL at the
// Edge of the Statistical Precipice"): mean, sample standard deviation, interquartile mean and a
// percentile-bootstrap confidence interval of the IQM. Pure TS.
import { seededRandom } from './random.ts';

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
  /** 95% percentile-bootstrap interval of the IQM over seeds (2000 resamples, fixed stream); [iqm, iqm] for one seed. */
  iqm_ci95: [number, number];
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
 * Mean, std, IQM, min, max and a bootstrap interval of the IQM of one figure over seeds.
 * @throws RangeError for an empty list or a non-finite value (say which seed's run to check).
 */
export function seedStats(values: readonly number[], resamples = 2000, seed = 1): SeedStats {
  const n = values.length;
  if (n === 0) throw new RangeError('seedStats needs at least one value');
  const bad = values.findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) throw new RangeError(`seedStats: value ${bad} is ${values[bad]}; every seed's figure must be finite`);
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const std = n > 1 ? Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) : 0;
  const iqm = interquartileMean(values);
  const u = seededRandom(seed);
  const boot: number[] = [];
  for (let b = 0; b < resamples; b++) boot.push(interquartileMean(Array.from({ length: n }, () => values[Math.floor(u() * n)]!)));
  boot.sort((a, b) => a - b);
  const at = (q: number) => boot[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
  return { n, mean, std, iqm, min: Math.min(...values), max: Math.max(...values), iqm_ci95: n > 1 ? [at(0.025), at(0.975)] : [iqm, iqm] };
}
