// Typed access to the addon's `rulesTesting` surface: the heads' scalar rules
// (native/src/rules/head_rules.h: C51 projection and loss, quantile Huber, IQN fractions and
// cosine features, CQL(H), the gradient budget, bootstrap masks) and the CPU spectral
// normalisation (native/src/model/spectral_norm.h), one by one, for tests.
import { loadAddon } from './addon.ts';

/** A loss and its gradient (a number for a scalar rule, one entry per input otherwise). */
export interface ValueAndGrad<G> { value: number; grad: G }
/** An auxiliary part of the gradient budget: on or off, and its share of gradClip in [0, 1]. */
export interface BudgetShare { enabled: boolean; share: number }

/** The functions of `rulesTesting` (see native/src/addon/rules_testing_binding.cpp). */
export interface RulesTesting {
  /** softmax(x) in float64. x: 1 to 2^20 logits. */
  softmax(x: Float32Array): Float64Array;
  /** C51's projection of p [atoms >= 2] through T z = reward + discount z onto the support [vMin, vMax] (Bellemare et al. 2017, Alg. 1). */
  categoricalProjection(p: Float64Array, vMin: number, vMax: number, reward: number, discount: number): Float64Array;
  /** -sum_j m_j log softmax(logits)_j and its gradient wrt the logits. */
  categoricalCrossEntropy(logits: Float32Array, m: Float64Array): ValueAndGrad<Float64Array>;
  /** sum_j z_j softmax(logits)_j on the support z_j = vMin + j (vMax - vMin) / (atoms - 1). */
  categoricalQ(logits: Float32Array, vMin: number, vMax: number): number;
  /** rho^kappa_tau(u) with u = target - prediction, and its derivative wrt the prediction; kappa > 0. */
  quantileHuber(u: number, tau: number, kappa: number): ValueAndGrad<number>;
  /** cos(pi i tau), rounded to f32. */
  iqnCosineFeature(i: number, tau: number): number;
  /** IQN's fractions in [0, 1) of `rows` batch rows x `count` fractions at training step `step`. */
  quantileFractions(seed: number, stream: 'online' | 'target' | 'act', step: number, rows: number, count: number): Float32Array;
  /** CQL(H) of one state: logsumexp(q) - q[action], and its gradient softmax(q) - onehot(action). */
  cql(q: Float32Array, action: number): ValueAndGrad<Float64Array>;
  /**
   * The gradient budget of gradClip (0: clipping off) and the clip coefficient of each part's
   * gradient norm; budget, norms and coefficient in the order main, iqn, ensemble, cql.
   */
  gradientBudget(gradClip: number, parts: { iqn: BudgetShare; ensemble: BudgetShare; cql: BudgetShare }, norms: Float64Array):
    { budget: Float64Array; coefficient: Float64Array };
  /** Bootstrapped-DQN masks (0 / 1), [slots x heads], of the transitions in slots written with generations. */
  bootstrapMasks(seed: number, slots: Uint32Array, generations: Uint32Array, heads: number, p: number): Uint8Array;
  /**
   * CartPole's sin and cos of each of 1 to 2^20 angles (native/src/env/cartpole_dynamics.h SinCos:
   * double-double Taylor series rounded once, the same bits on the host and on the GPU for |x| <= 0.5).
   */
  cartpoleSinCos(x: Float64Array): { sin: Float64Array; cos: Float64Array };
  /** The first power-iteration vector u [out] (unit length) of matrix number `matrix`. */
  powerIterationVector(out: number, seed: number, matrix: number): Float32Array;
  /**
   * `steps` spectral normalisation steps of w [in x out] (row-major, y = x w) with the persistent
   * u [out], both updated in place; returns each step's sigma estimate (sigmaMax 0: iterate only).
   */
  spectralNormalize(w: Float32Array, inDim: number, outDim: number, u: Float32Array, sigmaMax: number, steps: number): Float64Array;
}

/** The addon's rulesTesting object. @throws Error when the addon is not built. */
export function rulesTesting(): RulesTesting {
  return loadAddon().rulesTesting as RulesTesting;
}
