// Test helpers for the learner: the addon's `learnerTesting` surface, typed, and an independent
// float64 reference of the Q-network forward pass (dense layers W [in x out] row-major then b,
// ReLU trunk, dueling Q = V + A - mean(A) or a plain Q layer), as DESIGN section 4 specifies.
import { loadAddon } from '../../addon.ts';

export interface NetSpec { stateDim: number; nActions: number; hidden: number[]; dueling: boolean }
export interface Slot { w: number; b: number; in: number; out: number }
export interface Layout { size: number; trunk: Slot[]; value?: Slot; advantage: Slot }

export interface LearnerBatch {
  states: Float32Array; actions: Int32Array; rewards: Float32Array; nextStates: Float32Array;
  discounts: Float32Array; weights: Float32Array;
}
export interface LearnerStep { loss: number; tdMse: number; gradNorm: number; qMean: number; causal: number; flags: number; td: Float32Array }
export interface TestLearner {
  step(batch: LearnerBatch): LearnerStep;
  online(): Float32Array;
  target(): Float32Array;
  greedy(states: Float32Array): Int32Array;
}
export interface CartPoleStep { nextObs: Float32Array; rewards: Float32Array; terminated: Uint8Array; truncated: Uint8Array; finalObs: Float32Array }
export interface TestCartPole {
  reset(): Float32Array;
  step(actions: Int32Array): CartPoleStep;
  setState(env: number, state: Float64Array, elapsedSteps: number): void;
  state(env: number): Float64Array;
}
export interface Transitions {
  states: Float32Array; actions: Int32Array; rewards: Float32Array; nextStates: Float32Array;
  dones: Uint8Array; discounts: Float32Array; pending: number[];
}
export interface NStepInput { env: number; s: Float32Array; a: number; r: number; sNext: Float32Array; terminated: boolean; truncated: boolean }

export interface LearnerTesting {
  gemmBackend: 'cblas' | 'portable';
  matmul(op: 'nn' | 'nt' | 'tn', impl: 'auto' | 'portable', m: number, n: number, k: number, a: Float32Array, b: Float32Array): Float32Array;
  netInit(net: NetSpec, seed: number): { params: Float32Array; layout: Layout };
  netForward(net: NetSpec, params: Float32Array, states: Float32Array): Float32Array;
  netBackward(net: NetSpec, params: Float32Array, states: Float32Array, dq: Float32Array): Float32Array;
  causalSensitivity(net: NetSpec, params: Float32Array, states: Float32Array, features: Int32Array): { mean: number; perFeature: Float64Array };
  qStats(q: Float32Array, nActions: number): { mean: number; min: number; max: number; var: number; meanMax: number };
  tdLoss(input: {
    q: Float32Array; qNextOnline: Float32Array; qNextTarget: Float32Array; actions: Int32Array; rewards: Float32Array;
    discounts: Float32Array; weights: Float32Array; nActions: number; doubleDqn: boolean; huberDelta: number;
  }): { loss: number; tdMse: number; td: Float32Array; dq: Float32Array };
  adamUpdate(input: { t: number; lr: number; beta1: number; beta2: number; eps: number; gradScale: number; g: Float32Array; w: Float32Array; m: Float32Array; v: Float32Array }): void;
  clipGradients(g: Float32Array, maxNorm: number): { norm: number; coefficient: number };
  nStep(options: { numEnvs: number; stateDim: number; n: number; gamma: number }, steps: NStepInput[]): Transitions;
  CartPole: new (numEnvs: number, seed: number, maxEpisodeSteps: number) => TestCartPole;
  Learner: new (net: NetSpec, options: {
    lr: number; adamEps: number; gradClip: number; batchSize: number; doubleDqn: boolean; huberDelta: number;
    target: { kind: 'hard'; interval: number } | { kind: 'polyak'; tau: number };
  }, seed: number) => TestLearner;
}

/** The addon's learner testing surface. */
export function learnerTesting(): LearnerTesting {
  return loadAddon().learnerTesting as LearnerTesting;
}

/** A seeded uniform generator in [lo, hi) (mulberry32), independent of the addon's. */
export function uniformSource(seed: number): (lo: number, hi: number) => number {
  let a = seed >>> 0;
  return (lo, hi) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return lo + (hi - lo) * u;
  };
}

/** Float32Array of n values uniform in [lo, hi). */
export function randomArray(n: number, rand: (lo: number, hi: number) => number, lo = -1, hi = 1): Float32Array {
  return Float32Array.from({ length: n }, () => rand(lo, hi));
}

function dense(p: ArrayLike<number>, s: Slot, x: number[], relu: boolean): number[] {
  const y: number[] = [];
  for (let j = 0; j < s.out; j++) {
    let v = p[s.b + j]!;
    for (let i = 0; i < s.in; i++) v += x[i]! * p[s.w + i * s.out + j]!;
    y.push(relu ? Math.max(0, v) : v);
  }
  return y;
}

/** Float64 reference forward: Q [rows x nActions] of states [rows x stateDim]. */
export function referenceForward(net: NetSpec, layout: Layout, params: ArrayLike<number>, states: ArrayLike<number>): number[] {
  const rows = states.length / net.stateDim;
  const q: number[] = [];
  for (let r = 0; r < rows; r++) {
    let h = Array.from({ length: net.stateDim }, (_, i) => states[r * net.stateDim + i]!);
    for (const s of layout.trunk) h = dense(params, s, h, true);
    const a = dense(params, layout.advantage, h, false);
    if (!net.dueling) { q.push(...a); continue; }
    const v = dense(params, layout.value!, h, false)[0]!;
    const mean = a.reduce((x, y) => x + y, 0) / a.length;
    q.push(...a.map((x) => v + x - mean));
  }
  return q;
}
