// The heads' scalar rules (issue 23; DESIGN section 4, "The step is defined once" and "Heads"):
// the C51 projection and loss, IQN's quantile Huber loss, cosine feature and fractions, the CQL(H)
// term, the gradient budget, the spectral scale and the bootstrapped-DQN masks. Like
// rules/step_rules.h, every function is inline or constexpr and `__host__ __device__` under nvcc
// (DQN_HD), takes raw pointers with their sizes, allocates nothing and uses only C++17, so the CPU
// learner and the CUDA kernels call the same arithmetic. Random draws come from the stateless
// Philox of replay/philox.h, so the CPU and the GPU draw the same numbers from the same seed.
//
// Usage (one C51 transition, then its loss gradient):
//   rules::Softmax(target_logits_of_a_star, atoms, p);                      // p [atoms] f64
//   rules::CategoricalProjection(p, atoms, v_min, v_max, r, discount, m);   // m [atoms] f64
//   const double loss = rules::CategoricalCrossEntropy(logits_of_a, m, atoms);
//   rules::CategoricalCrossEntropyGrad(logits_of_a, m, atoms, dlogits);     // dlogits [atoms] f64
#pragma once
#include <cmath>
#include <cstdint>

#include "replay/philox.h"
#include "rules/step_rules.h"

namespace dqn::rules {

// ---- Softmax over f32 scores (logits, Q-values) ----

/// log sum_j exp(x_j) of x [n] (f32, n >= 1), stable: max_j x_j + log sum_j exp(x_j - max). f64.
DQN_HD inline double LogSumExp(const float* x, int n) {
  double top = x[0];
  for (int j = 1; j < n; ++j) top = x[j] > top ? x[j] : top;
  double sum = 0;
  for (int j = 0; j < n; ++j) sum += exp(x[j] - top);
  return top + log(sum);
}

/// softmax(x)_j = exp(x_j - LogSumExp(x)) for x [n] (f32, n >= 1), written to p [n] (f64).
DQN_HD inline void Softmax(const float* x, int n, double* p) {
  const double lse = LogSumExp(x, n);
  for (int j = 0; j < n; ++j) p[j] = exp(x[j] - lse);
}

// ---- C51 (Bellemare, Dabney and Munos 2017) ----

/// Distance between neighbouring atoms of the support z_j = v_min + j dz, j = 0..atoms-1:
/// dz = (v_max - v_min) / (atoms - 1). atoms >= 2, v_max > v_min (the config checks both).
DQN_HD constexpr double AtomSpacing(int atoms, double v_min, double v_max) { return (v_max - v_min) / (atoms - 1); }

/// The categorical projection of Bellemare et al. 2017, Algorithm 1, for one transition: the
/// target distribution p [atoms] (f64, sums to 1) of the chosen next action a*, moved through
/// the n-step Bellman update T z_j = r + discount z_j (reward r = sum_k gamma^k r_k in return
/// units, discount = gamma^n, 0 at a terminal), clamped to [v_min, v_max], and projected back
/// onto the support by splitting each atom's mass between its two neighbours. Writes m [atoms]
/// (f64, sums to 1). p and m must not alias.
///
/// Algorithm 1 as printed gives m_l += p (u - b) and m_u += p (b - l), which loses the mass of an
/// atom that lands exactly on the support (b an integer, so l == u and both terms are 0; a
/// terminal with r on an atom loses all of it). Here such an atom's whole mass goes to atom b.
/// b is also clamped to [0, atoms - 1], which rounding of (v_max - v_min) / dz may overshoot, and
/// fmin/fmax send a NaN T z_j to v_min rather than to an index out of range (a NaN in p still
/// reaches m, and the loss).
DQN_HD inline void CategoricalProjection(const double* p, int atoms, double v_min, double v_max, float reward,
                                         float discount, double* m) {
  const double dz = AtomSpacing(atoms, v_min, v_max);
  for (int j = 0; j < atoms; ++j) m[j] = 0;
  for (int j = 0; j < atoms; ++j) {
    const double z = v_min + j * dz;
    const double tz = fmin(fmax(static_cast<double>(reward) + static_cast<double>(discount) * z, v_min), v_max);
    const double b = fmin((tz - v_min) / dz, static_cast<double>(atoms - 1));  // fractional index of T z_j
    const double l = floor(b), u = ceil(b);
    if (l == u) {
      m[static_cast<int>(l)] += p[j];  // on an atom: all the mass stays there (the fix above)
    } else {
      m[static_cast<int>(l)] += p[j] * (u - b);  // the nearer neighbour gets the larger part
      m[static_cast<int>(u)] += p[j] * (b - l);
    }
  }
}

/// Cross-entropy of the projected target m [atoms] (f64) against the predicted distribution
/// softmax(logits) (logits [atoms] f32): -sum_j m_j log softmax(logits)_j, the C51 loss of one
/// transition (Bellemare et al. 2017, sec. 4, before Algorithm 1). f64, in nats.
DQN_HD inline double CategoricalCrossEntropy(const float* logits, const double* m, int atoms) {
  const double lse = LogSumExp(logits, atoms);
  double loss = 0;
  for (int j = 0; j < atoms; ++j) loss -= m[j] * (logits[j] - lse);
  return loss;
}

/// Gradient of CategoricalCrossEntropy wrt the logits, written to grad [atoms] (f64):
/// softmax(logits)_k sum_j m_j - m_k, which is softmax - m for a projected m (sum 1).
DQN_HD inline void CategoricalCrossEntropyGrad(const float* logits, const double* m, int atoms, double* grad) {
  double mass = 0;
  for (int j = 0; j < atoms; ++j) mass += m[j];
  Softmax(logits, atoms, grad);
  for (int k = 0; k < atoms; ++k) grad[k] = grad[k] * mass - m[k];
}

/// The Q-value C51 acts on: the mean sum_j z_j softmax(logits)_j of the predicted distribution
/// (logits [atoms] f32) on the support z_j = v_min + j dz (Bellemare et al. 2017, sec. 4). f64,
/// in return units.
DQN_HD inline double CategoricalQ(const float* logits, int atoms, double v_min, double v_max) {
  const double lse = LogSumExp(logits, atoms), dz = AtomSpacing(atoms, v_min, v_max);
  double q = 0;
  for (int j = 0; j < atoms; ++j) q += (v_min + j * dz) * exp(logits[j] - lse);
  return q;
}

// ---- Random streams ----

/// The Philox streams of a run's draws. Every draw's counter holds `stream << 24 | index` in
/// word 1 (index < 2^24), so streams never share a counter; the key is always the run seed
/// (PhiloxKeyFromSeed). Stream 0 is the replay's sampling (counter {k, 0, low32(step),
/// high32(step)}, replay/cpu_replay.h and kernels/replay_sample.cu).
enum class RandomStream : uint32_t {
  kReplaySample = 0,
  kIqnOnline = 1,      ///< IQN's N fractions of the online quantiles of s
  kIqnTarget = 2,      ///< IQN's N' fractions of the target quantiles of s'
  kIqnAct = 3,         ///< IQN's K fractions averaged to act
  kBootstrapMask = 4,  ///< bootstrapped-DQN masks
  kSpectralInit = 5,   ///< spectral normalisation's first power-iteration vectors
};

/// Word 1 of a Philox counter: the stream in the high 8 bits, an index < 2^24 below.
DQN_HD constexpr uint32_t StreamWord(RandomStream stream, uint32_t index) {
  return static_cast<uint32_t>(stream) << 24 | index;
}

/// 24 random bits as a float in [0, 1): exact in f32 and f64, and never 1 (a double in [0, 1)
/// rounded to f32 may be).
DQN_HD constexpr float UnitFloatFromBits(uint32_t bits) { return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f); }

// ---- IQN (Dabney, Ostrovski, Silver and Munos 2018) ----

/// IQN's quantile fraction tau ~ U[0, 1) (f32, 24 random bits) for fraction `fraction` (< 2^24)
/// of batch row `row` at training step `step` of the run seeded `seed`, in `stream` (kIqnOnline,
/// kIqnTarget or kIqnAct): Philox4x32_10(counter {row, stream << 24 | fraction, low32(step),
/// high32(step)}, key = seed), word 0. Stateless, so the CPU and the GPU draw the same fractions.
DQN_HD inline float QuantileFraction(uint64_t seed, RandomStream stream, int64_t step, uint32_t row, uint32_t fraction) {
  const uint64_t s = static_cast<uint64_t>(step);
  const PhiloxCounter bits = Philox4x32_10(
      {row, StreamWord(stream, fraction), static_cast<uint32_t>(s), static_cast<uint32_t>(s >> 32)},
      PhiloxKeyFromSeed(seed));
  return UnitFloatFromBits(bits[0]);
}

/// Feature i of IQN's cosine embedding of a fraction tau: cos(pi i tau) (Dabney et al. 2018,
/// eq. 4; i = 0..embedding-1). Computed in f64 and rounded once to f32, so host and device agree.
DQN_HD inline float IqnCosineFeature(int i, float tau) {
  return static_cast<float>(cos(3.14159265358979323846 * i * static_cast<double>(tau)));
}

/// The quantile Huber loss rho^kappa_tau(u) = |tau - 1{u < 0}| L_kappa(u) / kappa (Dabney et al.
/// 2018, eq. 3; QR-DQN's eq. 10, Dabney, Rowland, Bellemare and Munos 2018, is the same without
/// the 1 / kappa) of the TD error
/// u = target - prediction of one (target sample, predicted quantile tau) pair, with L_kappa the
/// Huber loss (HuberValue). f64, return units. kappa > 0 (the config requires it; kappa = 0, the
/// plain quantile loss, is not supported: it divides by 0).
DQN_HD inline double QuantileHuberValue(double u, double tau, double kappa) {
  return fabs(tau - (u < 0 ? 1.0 : 0.0)) * HuberValue(u, kappa) / kappa;
}

/// d rho^kappa_tau(u) / d prediction with u = target - prediction:
/// -|tau - 1{u < 0}| clamp(u, -kappa, kappa) / kappa. f64; kappa > 0 as for QuantileHuberValue.
DQN_HD inline double QuantileHuberGrad(double u, double tau, double kappa) {
  return -fabs(tau - (u < 0 ? 1.0 : 0.0)) * HuberGrad(u, kappa) / kappa;
}

// ---- CQL(H) for discrete actions (Kumar, Zhou, Tucker and Levine 2020) ----

/// The CQL(H) regulariser of one state (Kumar et al. 2020, eq. 4, in the discrete-action form of
/// their Atari experiments): log sum_a exp Q(s, a) - Q(s, a_data), for
/// q [n_actions] (f32) and the stored action a_data in [0, n_actions). f64, >= 0; the config's
/// alpha multiplies it outside.
DQN_HD inline double CqlValue(const float* q, int n_actions, int action) {
  return LogSumExp(q, n_actions) - q[action];
}

/// Gradient of CqlValue wrt q [n_actions]: softmax(q) - onehot(a_data), written to grad
/// [n_actions] (f64).
DQN_HD inline void CqlGrad(const float* q, int n_actions, int action, double* grad) {
  Softmax(q, n_actions, grad);
  grad[action] -= 1.0;
}

// ---- Gradient budget (DESIGN section 4, "Gradient budget") ----

/// An auxiliary part of the gradient budget: whether it is on and its share of optim.grad_clip
/// (HeadsConfig's iqn_share with iqn_auxiliary, ensemble_share with ensemble_heads > 0,
/// cql_share with cql_alpha > 0).
struct BudgetShare {
  bool enabled;
  double share;
};

/// The max norm each part's gradient is clipped to (with ClipCoefficient), in gradient-norm
/// units. 0 means unclipped, as ClipCoefficient reads it.
struct GradientBudget {
  double main;
  double iqn;
  double ensemble;
  double cql;
};

/// Splits grad_clip (optim.grad_clip, >= 0; 0 = clipping off) between the parts: each enabled
/// auxiliary part gets share * grad_clip, the main head (1 - the enabled shares) * grad_clip; a
/// disabled part gets 0 and gives its share back, so the main head alone gets all of grad_clip.
/// With grad_clip = 0 every budget is 0 and every coefficient 1. The config keeps each share in
/// (0, 1) and their sum below 1, so no enabled budget is 0 while clipping is on.
DQN_HD constexpr GradientBudget SplitGradientBudget(double grad_clip, BudgetShare iqn, BudgetShare ensemble,
                                                    BudgetShare cql) {
  const double s_iqn = iqn.enabled ? iqn.share : 0.0, s_ens = ensemble.enabled ? ensemble.share : 0.0,
               s_cql = cql.enabled ? cql.share : 0.0;
  return {(1.0 - (s_iqn + s_ens + s_cql)) * grad_clip, s_iqn * grad_clip, s_ens * grad_clip, s_cql * grad_clip};
}

// ---- Spectral normalisation (Miyato, Kataoka, Koyama and Yoshida 2018; Gogianu et al. 2021) ----

/// The factor a weight matrix is multiplied by given its largest singular value's estimate sigma:
/// sigma_max / sigma when sigma > sigma_max, else 1. Miyato et al. 2018 (Algorithm 1) always divide
/// W by sigma; the bound sigma_max (HeadsConfig::sigma_max) leaves a matrix already below it untouched,
/// for value networks as studied by Gogianu et al. 2021. sigma_max <= 0 (off) and a NaN sigma give 1.
DQN_HD constexpr double SpectralScale(double sigma, double sigma_max) {
  return sigma_max > 0 && sigma > sigma_max ? sigma_max / sigma : 1.0;
}

// ---- Bootstrapped DQN (Osband, Blundell, Pritzel and Van Roy 2016) ----

/// Whether ensemble head `head` (< 2^24) trains on the transition in replay slot `slot` written
/// with generation `generation` (Osband et al. 2016, sec. 3: a Bernoulli(p) mask per head and
/// transition). Drawn, never stored: Philox4x32_10(counter {slot, kBootstrapMask << 24 | head,
/// generation, 0}, key = seed), words 0-1 as a uniform u in [0, 1) (UniformFromBits); mask = u < p.
/// A transition keeps its mask while it stays in its slot; an overwrite bumps the slot's
/// generation and draws a fresh one. p in [0, 1].
DQN_HD inline bool BootstrapMask(uint64_t seed, uint32_t slot, uint32_t generation, uint32_t head, double p) {
  const PhiloxCounter bits =
      Philox4x32_10({slot, StreamWord(RandomStream::kBootstrapMask, head), generation, 0u}, PhiloxKeyFromSeed(seed));
  return UniformFromBits(bits[0], bits[1]) < p;
}

}  // namespace dqn::rules
