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

/** Central differences (f(p + h e_i) - f(p - h e_i)) / 2h of a float64 function of the parameters, for every i. */
export function centralDifferences(f: (p: Float64Array) => number, params: ArrayLike<number>, h = 1e-6): Float64Array {
  const p64 = Float64Array.from(params);
  return Float64Array.from(p64, (keep, i) => {
    p64[i] = keep + h;
    const up = f(p64);
    p64[i] = keep - h;
    const down = f(p64);
    p64[i] = keep;
    return (up - down) / (2 * h);
  });
}
