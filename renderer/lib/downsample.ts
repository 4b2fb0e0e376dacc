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

/**
 * Downsamples a band given by two series recorded at the same x (e.g. Q min and Q max) over the
 * indices [i0, i1); non-finite values are left out. Same buckets as `downsample`.
 */
export function downsampleBand(xs: ArrayLike<number>, los: ArrayLike<number>, his: ArrayLike<number>, i0: number, i1: number, buckets: number): Band {
  const count = Math.max(0, i1 - i0);
  const B = bucketSizeFor(count, buckets);
  const nb = Math.ceil(count / B) + 1;
  const out = { x: new Float64Array(nb), lo: new Float64Array(nb), hi: new Float64Array(nb), length: 0 };
  for (let b = Math.floor(i0 / B) * B; b < i1; b += B) {
    let lo = Infinity;
    let hi = -Infinity;
    let last = -1;
    for (let i = Math.max(b, i0); i < Math.min(b + B, i1); i++) {
      const l = los[i]!;
      const h = his[i]!;
      if (!Number.isFinite(l) || !Number.isFinite(h)) continue;
      if (l < lo) lo = l;
      if (h > hi) hi = h;
      last = i;
    }
    if (last < 0) continue;
    out.x[out.length] = xs[last]!;
    out.lo[out.length] = lo;
    out.hi[out.length] = hi;
    out.length++;
  }
  return out;
}
