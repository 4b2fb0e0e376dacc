// The bootstrapped ensemble (Osband, Blundell, Pritzel and Van Roy 2016, "Deep Exploration via
// Bootstrapped DQN", sec. 3 and Algorithm 1): K = heads.ensemble.heads extra Q heads on the
// shared trunk, each plain or dueling as network.dueling says and each run by the Q head's own
// code (model/q_head.h), trained as the auxiliary part kEnsemble of the gradient budget with its
// share heads.ensemble.share. The main head acts; the ensemble never does.
//
// Masks (sec. 3: every transition carries a mask m^k per head from a masking distribution, here
// Bernoulli(p)). Head k trains on the transitions whose rules::BootstrapMask(seed, slot,
// generation, k, p) is 1, computed from the batch's replay slots and generations at every step
// and never stored: a transition keeps its mask for its whole life in its slot, and gets a fresh
// draw when the slot is overwritten (its generation changes). p = heads.ensemble.bootstrap_p;
// p = 1 trains every head on every transition.
//
// Loss (Algorithm 1, with this project's n-step Double DQN target, model/td_loss.h). Head k's
// target is its own:
//   y_ik = r_i + discount_i Q_k^target(s'_i, a*_ik),  a*_ik = argmax_a Q_k^online(s'_i, a)
// (classic DQN with double_dqn false: the target head's max), discount_i = gamma^n, 0 at a
// terminal. The part's loss is the mean over the heads of their masked, IS-weighted Huber losses:
//   L = (1/K) sum_k L_k,   L_k = (1/B) sum_i m_ik w_i huber(y_ik - Q_k(s_i, a_i)).
// L_k divides by the batch size B, not by the number of transitions m_k keeps: this is sec. 3's
// masked gradient g_i^k = m_i^k (y_i - Q_k(s_i, a_i)) grad Q_k averaged over the minibatch, so a
// kept transition weighs as much in L_k as in the main head's loss, and a head's gradient scale
// does not depend on how many transitions its mask happened to keep (dividing by
// that count would weigh each kept transition more when fewer are kept, and divide by 0 when none
// is). Head k's expected gradient is p times its full-batch gradient. The mean over the heads
// scales the trunk's gradient by 1/K, as Osband et al. normalise the shared network's gradient
// (sec. 6.1); each head's own layers get the same constant 1/K, which Adam's per-parameter step
// size absorbs. The ensemble writes no TD signal: the priorities come from the main head alone.
//
// Disagreement (ScalarBlock::ensemble_disagreement, with the Q-stats): the mean over the batch of
// the population standard deviation over the K heads of Q_k(s, a_g), a_g the main head's greedy
// action at s (first index on ties).
#pragma once
#include "model/head.h"
#include "model/heads_config.h"
#include "model/q_head.h"

namespace dqn {

/// K Q heads on F trunk features for A actions, trained on bootstrap-masked batches (kEnsemble).
/// Its outputs are Q_k(s, a) [rows x K x A] (row r, head k, action a), f32, return units.
class EnsembleHead final : public Head {
 public:
  /// @param features F (>= 1); n_actions A (>= 1); dueling as network.dueling; heads: its
  ///        ensemble_heads (K, in [1, 2^24)), ensemble_p (p, in (0, 1]) and ensemble_share.
  /// @throws std::invalid_argument naming the field when K or p is out of range, or F or A < 1.
  EnsembleHead(int features, int n_actions, bool dueling, const HeadsConfig& heads);
  std::string name() const override { return "ensemble"; }
  PartKind part() const override { return PartKind::kEnsemble; }
  /// Head k's Q-head layers in order, named "head<k>.value", "head<k>.advantage" (dueling) or
  /// "head<k>.q" (plain), heads in order 0..K-1.
  std::vector<LayerSpec> layers() const override;
  /// heads.ensemble.heads, heads.ensemble.bootstrap_p, heads.ensemble.share.
  std::vector<ConfigField> fields() const override;
  std::unique_ptr<HeadState> make_state(int64_t max_rows) const override;
  /// Every head's Q-head forward; Q_k [rows x K x A].
  void forward(std::span<const DenseView> p, const float* features, int64_t rows, const ForwardContext& ctx,
               HeadState& s) const override;
  /// Q_k [rows x K x A].
  std::span<float> outputs(HeadState& s, int64_t rows) const override;
  /// The mean over the heads, (1/K) sum_k Q_k [rows x A] (f64 sums rounded to f32). Nothing acts
  /// on it; it is what q_gradient differentiates.
  void q_values(const HeadState& s, int64_t rows, float* q) const override;
  /// L = (1/K) sum_k L_k (see the file comment), f64; td_mse: the mean over the heads of
  /// (1/B) sum_i (y_ik - Q_k(s_i, a_i))^2 over the whole batch (masks ignored). Needs the batch's
  /// slots and generations. Writes nothing into td (priorities come from the main head).
  /// dL/dQ_k = -m_ik w_i clamp(y_ik - Q_k, -delta, delta) / (B K) at the taken actions, 0 elsewhere.
  HeadLoss loss(const LossBatch& batch, HeadState& online, const HeadState& target, float* td) const override;
  /// dL/dQ_k = dq / K for every head k: the gradient of sum(dq ⊙ q_values).
  void q_gradient(HeadState& s, const float* dq, int64_t rows) const override;
  /// dL/dQ_k [rows x K x A].
  std::span<float> output_gradient(HeadState& s, int64_t rows) const override;
  /// Every head's Q-head backward from its block of output_gradient; their dL/dfeatures summed.
  void backward(HeadState& s, std::span<const DenseView> p, const float* features, int64_t rows,
                std::span<const DenseView> g, float* d_features, bool accumulate) const override;
  /// ensemble_disagreement: (1/rows) sum_r sqrt((1/K) sum_k (Q_k(s_r, g_r) - mean_k Q_k(s_r, g_r))^2)
  /// with g_r = argmax_a main_q[r, a] (first index on ties), f64, return units (0 for rows = 0).
  void probe_auxiliary(const HeadState& s, int64_t rows, const float* main_q, ScalarBlock& out) const override;

 private:
  /// Head k's layers within the ensemble's `p` (or `g`).
  std::span<const DenseView> head_layers(std::span<const DenseView> p, int k) const;

  QHead q_;  ///< every head's forward, loss and backward (heads differ only in their parameters)
  int n_actions_, heads_;
  double p_, share_;
  size_t per_head_;  ///< layers per head: 2 dueling, 1 plain
};

}  // namespace dqn
