// Deterministic min/max/last downsampling for long chart series (DESIGN section 8). Buckets are
// runs of B consecutive points aligned to absolute indices (bucket k holds indices [kB, (k+1)B)),
// with B the smallest power of two that gives at most `buckets` buckets. So appending points
// changes only the last bucket until the series doubles, a view does not jump while a run grows,
// and a spike stays visible because each bucket keeps its minimum and maximum, not a sample.
// Non-finite values are left out of min/max (and so of the y-range) and come back as markers.

/** A non-finite value drawn as a marker at its x. */
export interface Marker {
  x: number;
  kind: 'NaN' | '+Inf' | '-Inf';
}

/** The points to draw: parallel x/y arrays (finite values only) and the markers. */
export interface Downsampled {
  x: Float64Array;
  y: Float64Array;
  length: number;
  markers: Marker[];
  /** Points per bucket (1 when nothing was merged). */
  bucketSize: number;
}

/** First index i in [0, n) with xs[i] >= x (xs ascending); n when none. */
export function lowerBound(xs: ArrayLike<number>, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index i in [0, n) with xs[i] > x (xs ascending); n when none. */
export function upperBound(xs: ArrayLike<number>, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Smallest power of two B with ceil(count / B) <= buckets. */
export function bucketSizeFor(count: number, buckets: number): number {
  let b = 1;
  const target = Math.max(1, Math.floor(buckets));
  while (Math.ceil(count / b) > target) b *= 2;
  return b;
}

function markerKind(v: number): Marker['kind'] {
  return Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf';
}

/**
 * Downsamples the points with index in [i0, i1) of (xs, ys) into at most `buckets` buckets of
 * up to three points each (the bucket's minimum, maximum and last finite value, in index order).
 * A bucket with non-finite values adds one marker at the first of them.
 * O(i1 - i0) time; output arrays of 3 * buckets + 3 entries.
 */
export function downsample(xs: ArrayLike<number>, ys: ArrayLike<number>, i0: number, i1: number, buckets: number): Downsampled {
  const count = Math.max(0, i1 - i0);
  const B = bucketSizeFor(count, buckets);
  const nb = Math.ceil(count / B) + 1;
  const ox = new Float64Array(3 * nb);
  const oy = new Float64Array(3 * nb);
  const markers: Marker[] = [];
  let len = 0;
  const emit = (i: number) => {
    ox[len] = xs[i]!;
    oy[len] = ys[i]!;
    len++;
  };
  for (let b = Math.floor(i0 / B) * B; b < i1; b += B) {
    const lo = Math.max(b, i0);
    const hi = Math.min(b + B, i1);
    let iMin = -1;
    let iMax = -1;
    let iLast = -1;
    let iBad = -1;
    let vMin = Infinity;
    let vMax = -Infinity;
    for (let i = lo; i < hi; i++) {
      const v = ys[i]!;
      // v - v is 0 for finite v and NaN for NaN and ±Infinity.
      if (v - v !== 0) {
        if (iBad < 0) iBad = i;
        continue;
      }
      if (v < vMin || iMin < 0) {
        vMin = v;
        iMin = i;
      }
      if (v > vMax || iMax < 0) {
        vMax = v;
        iMax = i;
      }
      iLast = i;
    }
    if (iBad >= 0) markers.push({ x: xs[iBad]!, kind: markerKind(ys[iBad]!) });
    if (iLast < 0) continue;
    // Emit the distinct indices in index order, so the drawn line follows the data.
    const a = Math.min(iMin, iMax);
    const c = Math.max(iMin, iMax);
    emit(a);
    if (c !== a) emit(c);
    if (iLast !== c) emit(iLast);
  }
  return { x: ox, y: oy, length: len, markers, bucketSize: B };
}

/** A min/max band downsampled on the same buckets: per bucket, the lowest `lo` and the highest `hi`, at the bucket's last x. */
export interface Band {
  x: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
  length: number;
}

/** Points of one series: x ascending, the first `length` entries valid. */
export interface XY {
  readonly x: ArrayLike<number>;
  readonly y: ArrayLike<number>;
  readonly length: number;
}

/**
 * A min/max band from two series that need not share their x values (a Q minimum and a Q
 * maximum, each streamed as its own frame summaries): x in [x0, x1] is cut into buckets of equal
 * width, a power of two times the unit and aligned to multiples of it (so buckets stay put while
 * a run grows), at most about `buckets` of them; each bucket with finite values in both series
 * gives the lowest `lo` value, the highest `hi` value and the last x of either. Non-finite values
 * are left out. O(points in range).
 */
export function downsampleBand(lo: XY, hi: XY, x0: number, x1: number, buckets: number): Band {
  const a0 = Math.max(x0, Math.min(lo.length ? lo.x[0]! : Infinity, hi.length ? hi.x[0]! : Infinity));
  const a1 = Math.min(x1, Math.max(lo.length ? lo.x[lo.length - 1]! : -Infinity, hi.length ? hi.x[hi.length - 1]! : -Infinity));
  const empty = { x: new Float64Array(0), lo: new Float64Array(0), hi: new Float64Array(0), length: 0 };
  if (!(a1 >= a0)) return empty;
  const target = Math.max(1, Math.floor(buckets));
  const width = 2 ** Math.ceil(Math.log2(Math.max((a1 - a0) / target, 2 ** -30)));
  const first = Math.floor(a0 / width);
  const nb = Math.floor(a1 / width) - first + 1;
  const bx = new Float64Array(nb).fill(-Infinity);
  const bl = new Float64Array(nb).fill(Infinity);
  const bh = new Float64Array(nb).fill(-Infinity);
  const scan = (s: XY, into: Float64Array, better: (v: number, cur: number) => boolean) => {
    for (let i = lowerBound(s.x, s.length, a0); i < s.length && s.x[i]! <= a1; i++) {
      const v = s.y[i]!;
      if (v - v !== 0) continue;
      const b = Math.floor(s.x[i]! / width) - first;
      if (better(v, into[b]!)) into[b] = v;
      if (s.x[i]! > bx[b]!) bx[b] = s.x[i]!;
    }
  };
  scan(lo, bl, (v, cur) => v < cur);
  scan(hi, bh, (v, cur) => v > cur);
  const out = { x: new Float64Array(nb), lo: new Float64Array(nb), hi: new Float64Array(nb), length: 0 };
  for (let b = 0; b < nb; b++) {
    if (bl[b] === Infinity || bh[b] === -Infinity) continue;
    out.x[out.length] = bx[b]!;
    out.lo[out.length] = bl[b]!;
    out.hi[out.length] = bh[b]!;
    out.length++;
  }
  return out;
}
