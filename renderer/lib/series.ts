// A growing chart series kept outside React state: parallel Float64Arrays of x (step) and raw y,
// plus the debiased-EMA smoothing of y maintained as points arrive. Memory is bounded: past
// `maxPoints`, the older half is compacted to its min/max/last per COMPACT_BUCKET points, so a
// week-long run keeps its shape (spikes included) in a fixed budget; the full raw series stays
// in the run folder's metrics file.
import { DebiasedEma, DEFAULT_SMOOTHING, debiasedEma } from './ema.ts';
import { downsample, lowerBound, upperBound, type Downsampled } from './downsample.ts';

/** Points merged into one min/max/last triple when a full series is compacted. */
export const COMPACT_BUCKET = 8;
/** Default bound on the points one series holds (24 bytes each: x, y, smoothed y): 131072 points, ~7 h at 5 points/s before compaction. */
export const DEFAULT_MAX_POINTS = 1 << 17;

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
  private n = 0;
  private ema: DebiasedEma;
  /** x below which the points are compacted (min/max/last per COMPACT_BUCKET); -Infinity when none are. */
  compactedBelow = -Infinity;

  /** @param maxPoints bound on stored points (>= 64). */
  constructor(readonly maxPoints = DEFAULT_MAX_POINTS, smoothing = DEFAULT_SMOOTHING, initialCapacity = 1024) {
    const cap = Math.min(Math.max(16, initialCapacity), maxPoints);
    this.xs = new Float64Array(cap);
    this.ys = new Float64Array(cap);
    this.sm = new Float64Array(cap);
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
    return this.xs.byteLength + this.ys.byteLength + this.sm.byteLength;
  }
  get lastX(): number | undefined {
    return this.n ? this.xs[this.n - 1] : undefined;
  }

  /** Appends one point; x must not decrease (a point with a smaller x is ignored and false returned). */
  push(x: number, y: number): boolean {
    if (this.n > 0 && x < this.xs[this.n - 1]!) return false;
    if (this.n === this.xs.length) this.grow();
    this.xs[this.n] = x;
    this.ys[this.n] = y;
    this.sm[this.n] = this.ema.next(y);
    this.n++;
    return true;
  }

  /** Changes the smoothing weight and recomputes the smoothed curve (O(length)). */
  setSmoothing(weight: number): void {
    this.ema = new DebiasedEma(weight);
    this.sm = this.sm.length >= this.xs.length ? this.sm : new Float64Array(this.xs.length);
    const ema = this.ema;
    for (let i = 0; i < this.n; i++) this.sm[i] = ema.next(this.ys[i]!);
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
    this.xs.set(keptX, 0);
    this.ys.set(keptY, 0);
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
