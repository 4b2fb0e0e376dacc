import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../common/random.ts';
import { bucketSizeFor, downsample, downsampleBand } from './downsample.ts';

/** Deterministic pseudo-random numbers, so a failure can be replayed. */
const rng = seededRandom;

function series(n: number, seed: number) {
  const r = rng(seed);
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    xs[i] = i * 10;
    ys[i] = r();
  }
  return { xs, ys };
}

test('a single spike in 100k noisy points survives downsampling to 300 buckets, up and down', () => {
  for (const seed of [1, 2, 3]) {
    const { xs, ys } = series(100_000, seed);
    const at = Math.floor(rng(seed + 100)() * 100_000);
    const down = Math.floor(rng(seed + 200)() * 100_000);
    ys[at] = 50;
    ys[down] = -40;
    const d = downsample(xs, ys, 0, xs.length, 300);
    assert.ok(d.length <= 3 * Math.ceil(100_000 / d.bucketSize));
    const ys2 = Array.from(d.y.subarray(0, d.length));
    const xs2 = Array.from(d.x.subarray(0, d.length));
    assert.equal(Math.max(...ys2), 50);
    assert.equal(xs2[ys2.indexOf(50)], at * 10);
    assert.equal(Math.min(...ys2), -40);
  }
});

test('each bucket holds its min, max and last value, compared with a brute-force pass', () => {
  const { xs, ys } = series(10_000, 7);
  const d = downsample(xs, ys, 0, 10_000, 100);
  const B = d.bucketSize;
  assert.equal(B, 128, 'smallest power of two with ceil(10000 / B) <= 100');
  const got = Array.from(d.x.subarray(0, d.length));
  const expected: number[] = [];
  for (let b = 0; b < 10_000; b += B) {
    const idx = Array.from({ length: Math.min(B, 10_000 - b) }, (_, k) => b + k);
    const vals = idx.map((i) => ys[i]!);
    const iMin = idx[vals.indexOf(Math.min(...vals))]!;
    const iMax = idx[vals.indexOf(Math.max(...vals))]!;
    const iLast = idx.at(-1)!;
    expected.push(...[...new Set([iMin, iMax, iLast])].sort((a, c) => a - c).map((i) => xs[i]!));
  }
  assert.deepEqual(got, expected);
});

test('buckets are stable under appends: completed buckets do not change while the series grows', () => {
  const { xs, ys } = series(20_000, 11);
  const before = downsample(xs, ys, 0, 12_000, 200); // B = 64
  const after = downsample(xs, ys, 0, 12_700, 200); // same B, 11 more buckets
  assert.equal(before.bucketSize, after.bucketSize);
  const fullBuckets = Math.floor(12_000 / before.bucketSize);
  const boundaryX = fullBuckets * before.bucketSize * 10;
  const prefix = (d: ReturnType<typeof downsample>) => Array.from(d.x.subarray(0, d.length)).filter((x) => x < boundaryX);
  assert.deepEqual(prefix(after), prefix(before));
  // Buckets are aligned to absolute indices, so a zoomed window reuses the same boundaries.
  const win = downsample(xs, ys, 640, 12_000, 200);
  assert.equal(win.bucketSize, 64);
  assert.deepEqual(Array.from(win.x.subarray(0, win.length)).filter((x) => x < boundaryX), prefix(before).filter((x) => x >= 6400));
});

test('NaN and Inf become markers and stay out of the y-values; a short series is drawn as is', () => {
  const xs = Float64Array.from([0, 1, 2, 3, 4, 5]);
  const ys = Float64Array.from([1, NaN, 2, Infinity, -Infinity, 3]);
  const d = downsample(xs, ys, 0, 6, 100);
  assert.equal(d.bucketSize, 1);
  assert.deepEqual(Array.from(d.y.subarray(0, d.length)), [1, 2, 3]);
  assert.deepEqual(d.markers, [{ x: 1, kind: 'NaN' }, { x: 3, kind: '+Inf' }, { x: 4, kind: '-Inf' }]);
  assert.equal(bucketSizeFor(0, 10), 1);
  assert.equal(downsample(xs, ys, 3, 3, 10).length, 0);
});

test('a Q band keeps the lowest min and the highest max per x bucket, from series with different x values', () => {
  const xy = (pts: [number, number][]) => ({ x: Float64Array.from(pts.map((p) => p[0])), y: Float64Array.from(pts.map((p) => p[1])), length: pts.length });
  // Frame summaries: q/min's points sit at its minima, q/max's at its maxima; both end at the frame's last read.
  const lo = xy([[0, 0], [1, -5], [3, 1], [5, NaN], [6, 2], [7, 2]]);
  const hi = xy([[2, 9], [3, 3], [4, 4], [7, 7]]);
  const band = downsampleBand(lo, hi, -Infinity, Infinity, 2); // width 4: buckets [0, 4) and [4, 8)
  assert.equal(band.length, 2);
  assert.deepEqual([band.x[0], band.lo[0], band.hi[0]], [3, -5, 9]);
  assert.deepEqual([band.x[1], band.lo[1], band.hi[1]], [7, 2, 7]);
  const zoomed = downsampleBand(lo, hi, 4, 7, 100);
  assert.deepEqual(Array.from(zoomed.x.subarray(0, zoomed.length)), [7], 'in the zoomed range only x = 7 has both a min and a max');
  assert.equal(downsampleBand(xy([]), hi, -Infinity, Infinity, 10).length, 0);
});
