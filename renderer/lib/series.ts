// A growing chart series kept outside React state: parallel Float64Arrays of x (step) and raw y,
// plus the debiased-EMA smoothing of y maintained as points arrive. Points arrive one by one
// (push) or as a frame's summary (pushSummary: its min, max and last as raw points, its mean fed
// to the EMA once), so a live series grows by at most three points per frame whatever the step
// rate. Appends are amortised O(1). Memory is bounded: past `maxPoints`, the older half is
// compacted to its min/max/last per COMPACT_BUCKET points; as compactions repeat, older points
// sit in coarser buckets (a multi-resolution history), so a week-long run keeps its shape (spikes
// included) in a fixed budget; the full raw series stays in the run folder's metrics file.
import { DebiasedEma, DEFAULT_SMOOTHING, debiasedEma } from './ema.ts';
import { downsample, lowerBound, upperBound, type Downsampled } from './downsample.ts';

/** Points merged into one min/max/last triple when a full series is compacted. */
export const COMPACT_BUCKET = 8;
/**
 * Default bound on the points one series holds (33 bytes each: x, y, smoothed y, EMA input and its
 * flag): 32768 points, about 1.1 MiB, ~36 min at 3 points per 200 ms frame before the first
 * compaction, and some 30 times a chart's pixel width, so zooming in still finds detail. A
 * trading run has ~70 series (51 causal features): ~75 MiB at most.
 */
export const DEFAULT_MAX_POINTS = 1 << 15;

/** Both curves of a chart line, downsampled for drawing. */
export interface SeriesView {
  raw: Downsampled;
  smooth: Downsampled;
}

/**
 * One chart line: push(x, y) points in increasing x; view(buckets, x0, x1) returns the raw and
 * smoothed curves downsampled to min/max/last per bucket. Non-finite y values are kept (drawn as
 * markers). Memory is bounded by maxPoints (see the file comment).
 */
export class Series {
  private xs: Float64Array;
  private ys: Float64Array;
  private sm: Float64Array;
  /** The value point i fed to the EMA when feeds[i] is 1 (the last point of a summary; 2: its last point, nothing to feed; 0: not its last). */
  private mu: Float64Array;
  private feeds: Uint8Array;
  private n = 0;
  /** Bumped on every change, so a chart can tell whether it must redraw. */
  version = 0;
  private ema: DebiasedEma;
  /** The EMA's last finite value (NaN before the first). */
  private cur = NaN;
  /** x below which the points are compacted (min/max/last per COMPACT_BUCKET); -Infinity when none are. */
  compactedBelow = -Infinity;

  /** @param maxPoints bound on stored points (>= 64). */
  constructor(readonly maxPoints = DEFAULT_MAX_POINTS, smoothing = DEFAULT_SMOOTHING, initialCapacity = 1024) {
    const cap = Math.min(Math.max(16, initialCapacity), maxPoints);
    this.xs = new Float64Array(cap);
    this.ys = new Float64Array(cap);
    this.sm = new Float64Array(cap);
    this.mu = new Float64Array(cap);
    this.feeds = new Uint8Array(cap);
    this.ema = new DebiasedEma(smoothing);
  }

  get length(): number {
    return this.n;
  }
  get smoothing(): number {
    return this.ema.weight;
  }
  /** Stored x values (first `length` entries are valid). */
  get x(): Float64Array {
    return this.xs;
  }
  /** Stored raw y values (NaN / ±Infinity kept). */
  get y(): Float64Array {
    return this.ys;
  }
  /** Smoothed y values. */
  get smoothed(): Float64Array {
    return this.sm;
  }
  /** Bytes held by the typed arrays. */
  get bytes(): number {
    return this.xs.byteLength + this.ys.byteLength + this.sm.byteLength + this.mu.byteLength + this.feeds.byteLength;
  }
  get lastX(): number | undefined {
    return this.n ? this.xs[this.n - 1] : undefined;
  }

  /** Appends one point; x must not decrease (a point with a smaller x is ignored and false returned). Amortised O(1). */
  push(x: number, y: number): boolean {
    return this.pushSummary([[x, y]], y) === 1;
  }

  /**
   * Appends a summary of several records: `points` (x ascending: typically the minimum, maximum
   * and last value, plus a non-finite one as its marker) become raw points, and `mean` (absent
   * when no value was finite) is fed to the EMA once, at the last point; the smoothed values of
   * the earlier points are interpolated in x from the previous smoothed value, so the smoothed
   * curve follows the means, without steps. Points with an x below the series' last x are
   * dropped. Amortised O(points).
   * @returns the number of points appended.
   */
  pushSummary(points: readonly (readonly [number, number])[], mean: number | undefined): number {
    const last = this.n > 0 ? this.xs[this.n - 1]! : -Infinity;
    const kept = points.filter(([x]) => x >= last);
    if (kept.length === 0) return 0;
    while (this.n + kept.length > this.xs.length) this.grow(); // may compact: indices settle first
    const start = this.n;
    kept.forEach(([x, y], k) => {
      const i = this.n++;
      this.xs[i] = x;
      this.ys[i] = y;
      // The last point ends the group: 1 when it feeds the mean, 2 when there is none to feed.
      const end = k === kept.length - 1;
      this.feeds[i] = end ? (mean !== undefined ? 1 : 2) : 0;
      this.mu[i] = end && mean !== undefined ? mean : y;
    });
    this.smoothGroup(start, this.n);
    this.version++;
    return kept.length;
  }

  /**
   * Smoothed values of the points [start, end) of one summary: the last one feeds its mean to the
   * EMA when its flag says so; the others lie on the straight line (in x) from the previous
   * point's smoothed value to the new one. Non-finite raw points stay themselves (markers).
   */
  private smoothGroup(start: number, end: number): void {
    const prev = this.cur;
    const lastI = end - 1;
    if (this.feeds[lastI] === 1) {
      const v = this.ema.next(this.mu[lastI]!);
      if (Number.isFinite(v)) this.cur = v;
    }
    const x0 = start > 0 ? this.xs[start - 1]! : this.xs[start]!;
    const span = this.xs[lastI]! - x0;
    for (let i = start; i < end; i++) {
      const y = this.ys[i]!;
      let v = this.cur;
      if (Number.isFinite(prev) && span > 0) v = prev + ((this.xs[i]! - x0) / span) * (this.cur - prev);
      this.sm[i] = Number.isFinite(y) && Number.isFinite(v) ? v : y;
    }
  }

  /** Changes the smoothing weight and recomputes the smoothed curve (O(length)): the same values as appending. */
  setSmoothing(weight: number): void {
    this.ema = new DebiasedEma(weight);
    this.cur = NaN;
    let start = 0;
    for (let i = 0; i < this.n; i++) {
      if (!this.feeds[i]) continue;
      this.smoothGroup(start, i + 1);
      start = i + 1;
    }
    if (start < this.n) this.smoothGroup(start, this.n);
    this.version++;
  }

  /** Points with x in [x0, x1] downsampled to `buckets` buckets (whole series when x0/x1 are absent). */
  view(buckets: number, x0 = -Infinity, x1 = Infinity): SeriesView {
    const i0 = lowerBound(this.xs, this.n, x0);
    const i1 = upperBound(this.xs, this.n, x1);
    return { raw: downsample(this.xs, this.ys, i0, i1, buckets), smooth: downsample(this.xs, this.sm, i0, i1, buckets) };
  }

  /** Raw points as [x, y] pairs (for CSV export). */
  *points(): IterableIterator<[number, number]> {
    for (let i = 0; i < this.n; i++) yield [this.xs[i]!, this.ys[i]!];
  }

  private grow(): void {
    if (this.xs.length < this.maxPoints) {
      const cap = Math.min(this.maxPoints, this.xs.length * 2);
      this.xs = copyInto(new Float64Array(cap), this.xs, this.n);
      this.ys = copyInto(new Float64Array(cap), this.ys, this.n);
      this.sm = copyInto(new Float64Array(cap), this.sm, this.n);
      this.mu = copyInto(new Float64Array(cap), this.mu, this.n);
      const feeds = new Uint8Array(cap);
      feeds.set(this.feeds.subarray(0, this.n));
      this.feeds = feeds;
      return;
    }
    this.compact();
  }

  /** Replaces the older half by its min/max/last per COMPACT_BUCKET points; the smoothing is redone. */
  private compact(): void {
    const half = Math.floor(this.n / 2 / COMPACT_BUCKET) * COMPACT_BUCKET;
    const d = downsample(this.xs, this.ys, 0, half, half / COMPACT_BUCKET);
    // Non-finite values in the compacted half survive as themselves at their marker positions.
    const keptX: number[] = [];
    const keptY: number[] = [];
    let m = 0;
    for (let i = 0; i < d.length; i++) {
      while (m < d.markers.length && d.markers[m]!.x <= d.x[i]!) {
        const mk = d.markers[m++]!;
        keptX.push(mk.x);
        keptY.push(mk.kind === 'NaN' ? NaN : mk.kind === '+Inf' ? Infinity : -Infinity);
      }
      keptX.push(d.x[i]!);
      keptY.push(d.y[i]!);
    }
    for (; m < d.markers.length; m++) {
      keptX.push(d.markers[m]!.x);
      keptY.push(d.markers[m]!.kind === 'NaN' ? NaN : d.markers[m]!.kind === '+Inf' ? Infinity : -Infinity);
    }
    this.compactedBelow = this.xs[half - 1]!;
    const rest = this.n - half;
    this.xs.copyWithin(keptX.length, half, this.n);
    this.ys.copyWithin(keptX.length, half, this.n);
    this.mu.copyWithin(keptX.length, half, this.n);
    this.feeds.copyWithin(keptX.length, half, this.n);
    this.xs.set(keptX, 0);
    this.ys.set(keptY, 0);
    // A compacted point stands for itself in the smoothing.
    this.mu.set(keptY, 0);
    this.feeds.fill(1, 0, keptX.length);
    this.n = keptX.length + rest;
    this.setSmoothing(this.ema.weight);
  }
}

function copyInto(dst: Float64Array, src: Float64Array, n: number): Float64Array {
  dst.set(src.subarray(0, n));
  return dst;
}

/** Smooths then downsamples a whole series from scratch (what a redraw costs without the incremental cache). */
export function smoothAndDownsample(xs: Float64Array, ys: Float64Array, n: number, weight: number, buckets: number, scratch?: Float64Array): SeriesView {
  const sm = debiasedEma(ys, weight, n, scratch);
  return { raw: downsample(xs, ys, 0, n, buckets), smooth: downsample(xs, sm, 0, n, buckets) };
}
