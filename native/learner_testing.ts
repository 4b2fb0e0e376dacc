// Typed access to the addon's `learnerTesting` surface: the learner's building blocks one by one
// (matrix products, Q-network forward/backward, TD loss, Adam, clipping, n-step accumulation,
// probes, a Learner on caller-given batches, CartPole with settable state), for tests and
// benchmarks. The Trainer (trainer.ts) is the production entry point.
import type { HeadsConfig } from '../common/config.ts';
import { loadAddon } from './addon.ts';

/** Q-network shape; `heads` (a config's heads section, defaults filled in) absent: the plain Q head. */
export interface NetSpec { stateDim: number; nActions: number; hidden: number[]; dueling: boolean; heads?: HeadsConfig }
/** A dense layer's offsets in the flat parameter buffer: W [in x out] row-major at w, b [out] at b. */
export interface Slot { w: number; b: number; in: number; out: number }
/** A loss part of the gradient budget (PartKind). */
export type PartKind = 'main' | 'iqn' | 'ensemble' | 'cql';
/** A head on the trunk (MakeHeads order, main head first) and its layers' slots. */
export interface HeadLayout { name: string; part: PartKind; layers: (Slot & { name: string })[] }
export interface Layout { size: number; trunk: Slot[]; value?: Slot; advantage: Slot; heads: HeadLayout[] }

export interface LearnerBatch {
  states: Float32Array; actions: Int32Array; rewards: Float32Array; nextStates: Float32Array;
  discounts: Float32Array; weights: Float32Array;
}
/** One loss part's numbers of a step: its loss, its gradient's norm before and after its budget clip, its unclipped gradient [params]. */
export interface PartStep { kind: PartKind; loss: number; gradNorm: number; gradClipped: number; gradient: Float32Array }
export interface LearnerStep {
  loss: number; tdMse: number; gradNorm: number; qMean: number; causal: number; flags: number; td: Float32Array;
  /** The loss parts in order, main part first. */
  parts: PartStep[];
}
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

/** The functions and classes of `learnerTesting` (see native/src/addon/learner_testing_binding.cpp). */
export interface LearnerTesting {
  gemmBackend: 'cblas' | 'portable';
  matmul(op: 'nn' | 'nt' | 'tn', impl: 'auto' | 'portable', m: number, n: number, k: number, a: Float32Array, b: Float32Array): Float32Array;
  netInit(net: NetSpec, seed: number): { params: Float32Array; layout: Layout };
  /** The main head's Q-values [rows x nActions] of an acting pass at training step act.step of the run seeded act.seed (default 0, 0). */
  netForward(net: NetSpec, params: Float32Array, states: Float32Array, act?: { seed: number; step: number }): Float32Array;
  /** Gradients of sum(dq ⊙ Q) for the main head's Q-values. @throws Error for an IQN main head (no deterministic Q-values). */
  netBackward(net: NetSpec, params: Float32Array, states: Float32Array, dq: Float32Array): Float32Array;
  causalSensitivity(net: NetSpec, params: Float32Array, states: Float32Array, features: Int32Array): { mean: number; perFeature: Float64Array };
  qStats(q: Float32Array, nActions: number): { mean: number; min: number; max: number; var: number; meanMax: number };
  tdLoss(input: {
    q: Float32Array; qNextOnline: Float32Array; qNextTarget: Float32Array; actions: Int32Array; rewards: Float32Array;
    discounts: Float32Array; weights: Float32Array; nActions: number; doubleDqn: boolean; huberDelta: number;
  }): { loss: number; tdMse: number; td: Float32Array; dq: Float32Array };
  /** Learning rate of step t (1-based): linear from lr to lrEnd over decaySteps, then lrEnd; decaySteps 0: lr. */
  scheduledLearningRate(lr: number, lrEnd: number, decaySteps: number, t: number): number;
  adamUpdate(input: { t: number; lr: number; beta1: number; beta2: number; eps: number; gradScale: number; g: Float32Array; w: Float32Array; m: Float32Array; v: Float32Array }): void;
  clipGradients(g: Float32Array, maxNorm: number): { norm: number; coefficient: number };
  nStep(options: { numEnvs: number; stateDim: number; n: number; gamma: number }, steps: NStepInput[]): Transitions;
  CartPole: new (numEnvs: number, seed: number, maxEpisodeSteps: number) => TestCartPole;
  Learner: new (net: NetSpec, options: {
    lr: number; adamEps: number; gradClip: number; batchSize: number; doubleDqn: boolean; huberDelta: number;
    target: { kind: 'hard'; interval: number } | { kind: 'polyak'; tau: number };
    /** Steps between Q-stats / causal probes (default 1: every step). */
    qStatsInterval?: number; causalInterval?: number;
  }, seed: number) => TestLearner;
}

/** The addon's learnerTesting object. @throws Error when the addon is not built. */
export function learnerTesting(): LearnerTesting {
  return loadAddon().learnerTesting as LearnerTesting;
}
