// Typed access to the addon's `learnerTesting` surface: the learner's building blocks one by one
// (matrix products, Q-network forward/backward, each head's outputs, loss and backward, TD loss,
// Adam, clipping, n-step accumulation, probes, a Learner on caller-given batches, CartPole with
// settable state), for tests and benchmarks. The Trainer (trainer.ts) is the production entry point.
import type { HeadsConfig } from '../common/config.ts';
import { loadAddon } from './addon.ts';

/** Q-network shape with the plain or dueling Q head. */
export interface NetSpec { stateDim: number; nActions: number; hidden: number[]; dueling: boolean }
/** A network with the heads of a run's `heads` section (HeadsSchema.parse fills the defaults). */
export interface HeadsNetSpec extends NetSpec { heads: HeadsConfig }
/** A dense layer's offsets in the flat parameter buffer: W [in x out] row-major at w, b [out] at b. */
export interface Slot { w: number; b: number; in: number; out: number }
/** A loss part of the gradient budget (PartKind). */
export type PartKind = 'main' | 'iqn' | 'ensemble' | 'cql';
/** A head's layers (native/src/model/head.h Head::layers), in the order they follow the trunk, and its budget part. */
export interface HeadLayout { name: string; part: PartKind; layers: (Slot & { name: string })[] }
/** The layout of a Q-head network: value and advantage are the Q head's layers (plain: advantage is its q layer). */
export interface Layout { size: number; trunk: Slot[]; heads: HeadLayout[]; value?: Slot; advantage: Slot }
/** The layout of a network with any heads: the trunk, then each head's layers. */
export interface HeadsLayout { size: number; trunk: Slot[]; heads: HeadLayout[] }

export interface LearnerBatch {
  states: Float32Array; actions: Int32Array; rewards: Float32Array; nextStates: Float32Array;
  discounts: Float32Array; weights: Float32Array;
  /** Replay slots and their generations (bootstrap masks draw from them); default 0..B-1 and 0. */
  slots?: Int32Array; generations?: Uint32Array;
}
/**
 * One budget part's loss and its gradient's L2 norm before and after its clip (0 while the part is
 * off), and its unclipped gradient [params] when the run has the part.
 */
export interface PartScalars { loss: number; gradNorm: number; clipped: number; gradient?: Float32Array }
export interface LearnerStep {
  loss: number; tdMse: number; gradNorm: number; qMean: number; causal: number; ensembleDisagreement: number; flags: number; td: Float32Array;
  parts: Record<PartKind, PartScalars>;
  /** Largest spectral-norm estimate of the normalised matrices before scaling (0 without spectral normalisation). */
  sigmaMaxSeen: number;
  /** C51: mean over the batch of the greedy action's distribution (empty for other heads). */
  c51GreedyDist: Float64Array;
}
/** The main head's loss on a batch (native Head::loss), as the learner's main part computes it. */
export interface HeadLossResult {
  loss: number; tdMse: number;
  /** The TD signal of each transition (Q: y - Q(s, a); C51: the cross-entropy). */
  td: Float32Array;
  /** dL/d(outputs) of the main head for the B rows of s, shaped as headOutputs()[0]. */
  dOutputs: Float32Array;
  /** dL/d(every online parameter); 0 for the other heads' layers. */
  grads: Float32Array;
}
export interface TestLearner {
  step(batch: LearnerBatch): LearnerStep;
  online(): Float32Array;
  target(): Float32Array;
  /** Overwrites the online and target parameters (Adam's moments and the step count are kept). */
  setParams(online: Float32Array, target: Float32Array): void;
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
  netInit(net: HeadsNetSpec, seed: number): { params: Float32Array; layout: HeadsLayout };
  netInit(net: NetSpec, seed: number): { params: Float32Array; layout: Layout };
  /** The main head's Q-values [rows x nActions] of an acting pass at training step act.step of the run seeded act.seed (default 0, 0; IQN draws its K fractions from them). */
  netForward(net: NetSpec | HeadsNetSpec, params: Float32Array, states: Float32Array, act?: { seed: number; step: number }): Float32Array;
  /** Gradients of sum(dq * Q) for the main head's Q-values Q; 0 for the other heads. */
  netBackward(net: NetSpec | HeadsNetSpec, params: Float32Array, states: Float32Array, dq: Float32Array): Float32Array;
  /** Each head's raw outputs (Q: Q [rows x A]; C51: logits [rows x A x atoms]), in layout order. */
  headOutputs(net: NetSpec | HeadsNetSpec, params: Float32Array, states: Float32Array): Float32Array[];
  /** Gradients of sum_k sum(dOutputs[k] * outputs_k), one dOutputs entry per head shaped as headOutputs(). */
  headBackward(net: NetSpec | HeadsNetSpec, params: Float32Array, states: Float32Array, dOutputs: Float32Array[]): Float32Array;
  /** The main head's loss on `batch` with online and target parameters (step and seed default to 1 and 0). */
  headLoss(net: NetSpec | HeadsNetSpec, online: Float32Array, target: Float32Array, batch: LearnerBatch,
    options: { doubleDqn: boolean; huberDelta: number; step?: number; seed?: number }): HeadLossResult;
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
  Learner: new (net: NetSpec | HeadsNetSpec, options: {
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
