// Test helpers for the learner: a seeded generator independent of the addon's, and a float64
// reference of the Q-network forward pass (dense layers W [in x out] row-major then b, ReLU
// trunk, dueling Q = V + A - mean(A) or a plain Q layer), as DESIGN section 4 specifies, and
// central differences of a float64 function of the parameters.
import type { Layout, NetSpec, Slot } from '../../learner_testing.ts';
import { seededRandom } from '../../../common/random.ts';

export * from '../../learner_testing.ts';

/** A seeded uniform generator in [lo, hi) (mulberry32), independent of the addon's. */
export function uniformSource(seed: number): (lo: number, hi: number) => number {
  const u = seededRandom(seed);
  return (lo, hi) => lo + (hi - lo) * u();
}

/** Float32Array of n values uniform in [lo, hi). */
export function randomArray(n: number, rand: (lo: number, hi: number) => number, lo = -1, hi = 1): Float32Array {
  return Float32Array.from({ length: n }, () => rand(lo, hi));
}

/** Float64 dense layer: y [out] = x·W + b (ReLU when relu) for one row x [in], W and b at slot s of p. */
export function dense(p: ArrayLike<number>, s: Slot, x: number[], relu: boolean): number[] {
  const y: number[] = [];
  for (let j = 0; j < s.out; j++) {
    let v = p[s.b + j]!;
    for (let i = 0; i < s.in; i++) v += x[i]! * p[s.w + i * s.out + j]!;
    y.push(relu ? Math.max(0, v) : v);
  }
  return y;
}

/** The Q head's layers: dueling value [F -> 1] and advantage [F -> A], or plain (advantage: the q layer [F -> A]). */
export interface QLayers { value?: Slot; advantage: Slot }

/** Float64 Q head on features h [F]: Q [A] = V + A - mean(A) (dueling, value given) or h·W + b. */
export function referenceQ(head: QLayers, params: ArrayLike<number>, h: number[]): number[] {
  const a = dense(params, head.advantage, h, false);
  if (!head.value) return a;
  const v = dense(params, head.value, h, false)[0]!;
  const mean = a.reduce((x, y) => x + y, 0) / a.length;
  return a.map((x) => v + x - mean);
}

/** Float64 reference forward: Q [rows x nActions] of states [rows x stateDim]. */
export function referenceForward(net: NetSpec, layout: Layout, params: ArrayLike<number>, states: ArrayLike<number>): number[] {
  const rows = states.length / net.stateDim;
  const q: number[] = [];
  for (let r = 0; r < rows; r++) {
    let h = Array.from({ length: net.stateDim }, (_, i) => states[r * net.stateDim + i]!);
    for (const s of layout.trunk) h = dense(params, s, h, true);
    q.push(...referenceQ({ value: net.dueling ? layout.value : undefined, advantage: layout.advantage }, params, h));
  }
  return q;
}

/** Largest singular value of w [rows x cols] (row-major), float64: power iteration on W^T W. */
export function largestSingularValue(w: ArrayLike<number>, rows: number, cols: number): number {
  let x = Array.from({ length: cols }, (_, j) => 1 + j / cols);
  let lambda = 0;
  for (let iter = 0; iter < 100000; iter++) {
    const wx = Array.from({ length: rows }, (_, i) => x.reduce((s, xj, j) => s + w[i * cols + j]! * xj, 0));
    const y = x.map((_, j) => wx.reduce((s, wi, i) => s + w[i * cols + j]! * wi, 0));  // W^T W x
    const norm = Math.hypot(...y);
    const next = norm / Math.hypot(...x);
    x = y.map((v) => v / norm);
    if (Math.abs(next - lambda) <= 1e-15 * next) return Math.sqrt(next);
    lambda = next;
  }
  throw new Error('the reference power iteration did not converge');
}

/** Central finite differences (step h) of f at every coordinate of x (float64). */
export function finiteDifferences(x: ArrayLike<number>, f: (x: Float64Array) => number, h = 1e-6): Float64Array {
  const p = Float64Array.from(x), g = new Float64Array(p.length);
  for (let i = 0; i < p.length; i++) {
    const keep = p[i]!;
    p[i] = keep + h;
    const up = f(p);
    p[i] = keep - h;
    const down = f(p);
    p[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}
