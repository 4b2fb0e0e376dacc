// Debiased exponential moving average, TensorBoard's smoothing rule (tensorboard/components/
// vz_line_chart2/line-chart.ts, `resmoothDataset`): last = w * last + (1 - w) * y_i, divided by
// the debias factor 1 - w^k where k counts the finite values so far, so the first values are not
// pulled towards 0. Non-finite values pass through unchanged and do not advance the average.
// (TensorBoard also skips smoothing for an all-constant series; the debiased EMA of a constant
// is that constant, so this is the same curve.)

/** Default smoothing weight, as TensorBoard's. */
export const DEFAULT_SMOOTHING = 0.6;

/** Running state of the EMA, so a live series is smoothed point by point as it grows. */
export class DebiasedEma {
  private last = 0;
  private wPow = 1;
  readonly weight: number;

  /** @param weight smoothing weight in [0, 0.999] (0 = no smoothing); values outside are clamped. */
  constructor(weight: number) {
    this.weight = Math.min(0.999, Math.max(0, Number.isFinite(weight) ? weight : 0));
  }

  /** Feeds one raw value; returns its smoothed value (the value itself when it is not finite). */
  next(y: number): number {
    if (!Number.isFinite(y)) return y;
    const w = this.weight;
    this.last = this.last * w + (1 - w) * y;
    this.wPow *= w;
    return w === 0 ? this.last : this.last / (1 - this.wPow);
  }
}

/**
 * Smooths `ys[0..n)` into `out` (allocated when absent). O(n), no allocation with `out` given.
 * @returns `out`, a Float64Array of length >= n whose first n entries are the smoothed values.
 */
export function debiasedEma(ys: ArrayLike<number>, weight: number, n = ys.length, out: Float64Array = new Float64Array(n)): Float64Array {
  // The same arithmetic as DebiasedEma.next, inlined: this loop is the cost of a full re-smooth.
  const w = new DebiasedEma(weight).weight;
  let last = 0;
  let wPow = 1;
  for (let i = 0; i < n; i++) {
    const y = ys[i]!;
    if (y - y !== 0) {
      out[i] = y;
      continue;
    }
    last = last * w + (1 - w) * y;
    wPow *= w;
    out[i] = w === 0 ? last : last / (1 - wPow);
  }
  return out;
}
