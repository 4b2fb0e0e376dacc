// The IQN head (Dabney, Ostrovski, Silver and Munos 2018, "Implicit Quantile Networks for
// Distributional Reinforcement Learning"): the return distribution of each action as its
// quantile function, sampled at fractions tau ~ U[0, 1) drawn per row from Philox
// (rules::QuantileFraction), as the main head (heads.main = iqn) or as an auxiliary head beside a
// Q or C51 main head (heads.iqn.auxiliary; its own part of the gradient budget; it does not act).
//
// Network (sec. 3.1): Z_tau(s, a) = f(psi(s) ⊙ phi(tau))_a, with psi(s) the trunk's features [F],
// phi(tau)_j = ReLU(sum_{i=0}^{n-1} cos(pi i tau) w_ij + b_j) (eq. 4; n = heads.iqn.embedding,
// rules::IqnCosineFeature; layer "embedding" [n -> F], He gain sqrt(2)) and f the Q head's layers
// (model/q_head.h) applied to each fraction's row psi ⊙ phi: plain "q" [F -> A], or dueling
// "value" [F -> 1] and "advantage" [F -> A] combined by rules::DuelingQ per fraction (gain 1).
//
// Fractions per pass (ForwardContext; heads.iqn.n = N, n_prime = N', k = K):
//   kOnline: the B rows of s draw N fractions each from kIqnOnline (row i); the B rows of s' draw
//            N' from kIqnTarget (row i - B), the fractions the target pass draws for the same row,
//            so the online and target quantiles of s' share them;
//   kTarget: N' fractions per row from kIqnTarget;
//   kAct:    K fractions per row from kIqnAct, at ctx.step (the training steps done).
//
// Loss (eq. 3, with the n-step target): for transition i, a* = argmax_a (1/N') sum_j Z_{tau'_j}
// (s', a) of the online network (double_dqn) or the target network (first index on ties; means
// in f64); target samples theta_j = r + discount Z^target_{tau'_j}(s', a*) (rules::BootstrapTarget,
// discount gamma^n, 0 at a terminal); L_i = (1/N') sum_{k<N} sum_{j<N'} rho^kappa_{tau_k}(theta_j
// - Z_{tau_k}(s, a)) (rules::QuantileHuberValue, kappa = heads.iqn.kappa); the loss is
// (1/B) sum_i w_i L_i, w the IS weights. f64 sums; the output gradient is rounded to f32.
#pragma once
#include "model/head.h"
#include "model/heads_config.h"
#include "model/q_head.h"

namespace dqn {

/// The IQN head on F trunk features for A actions.
class IqnHead final : public Head {
 public:
  /// part: PartKind::kMain (heads.main = iqn) or PartKind::kIqn (heads.iqn.auxiliary, whose
  /// budget share `share` is one of its fields()).
  /// @throws std::invalid_argument when features, n_actions or a count of iqn is < 1, kappa is
  ///         not a positive finite number, or part is neither kMain nor kIqn.
  IqnHead(int features, int n_actions, bool dueling, const IqnConfig& iqn, PartKind part, double share = 0);
  std::string name() const override { return "iqn"; }
  PartKind part() const override { return part_; }
  /// "embedding" [embedding -> F] (gain sqrt(2)), then the Q head's: dueling "value" [F -> 1] and
  /// "advantage" [F -> A], plain "q" [F -> A] (gain 1).
  std::vector<LayerSpec> layers() const override;
  /// Main: heads.main = iqn; auxiliary: heads.iqn.auxiliary = true and heads.iqn.share; then
  /// heads.iqn.n, n_prime, embedding and kappa. heads.iqn.k is left out: it changes acting only,
  /// neither the layout nor the step.
  std::vector<ConfigField> fields() const override;
  /// Buffers for max_rows rows of max(N, N', K) fractions each.
  std::unique_ptr<HeadState> make_state(int64_t max_rows) const override;
  /// The quantiles Z [sum over the rows of their fractions x A] (f32), row by row, each row's
  /// fractions in draw order (see the header comment for the fractions of each pass).
  void forward(std::span<const DenseView> p, const float* features, int64_t rows, const ForwardContext& ctx,
               HeadState& s) const override;
  /// The quantiles of the first `rows` rows (forward's layout).
  std::span<float> outputs(HeadState& s, int64_t rows) const override;
  /// q [rows x A] (f32): each row's mean of Z_tau(s, a) over the fractions its last forward drew
  /// (K in an acting pass: the paper's sample estimate of Q = E_tau[Z_tau], sec. 3), summed in f64.
  void q_values(const HeadState& s, int64_t rows, float* q) const override;
  /// The loss of the header comment (f64; return units, like the Huber loss). td [B] (f32): each
  /// transition's L_i, unweighted and >= 0, the signal of its priority. td_mse: the mean over the
  /// batch of ((1/N') sum_j theta_j - (1/N) sum_k Z_{tau_k}(s, a))^2, return units squared.
  /// dL/dZ_{tau_k}(s, a) = w_i / (B N') sum_j QuantileHuberGrad(theta_j - Z_{tau_k}(s, a)), 0 at
  /// the other actions.
  HeadLoss loss(const LossBatch& batch, HeadState& online, const HeadState& target, float* td) const override;
  /// @throws std::logic_error always: IQN has no deterministic Q-values to differentiate (the
  ///         config refuses CQL with an IQN main head).
  void q_gradient(HeadState& s, const float* dq, int64_t rows) const override;
  /// dL/dZ, forward's layout.
  std::span<float> output_gradient(HeadState& s, int64_t rows) const override;
  /// Through f (the Q head's backward) to dL/d(psi ⊙ phi); then dL/dpsi_j = sum over the row's
  /// fractions of dL/d(psi ⊙ phi)_j phi_j (into d_features) and dL/dphi_j = dL/d(psi ⊙ phi)_j
  /// psi_j where phi_j > 0 (the ReLU), then the embedding layer.
  void backward(HeadState& s, std::span<const DenseView> p, const float* features, int64_t rows,
                std::span<const DenseView> g, float* d_features, bool accumulate) const override;

 private:
  int features_, n_actions_;
  IqnConfig iqn_;
  PartKind part_;
  double share_;
  QHead quantile_;  ///< f: the Q head's layers on psi ⊙ phi, one row per fraction
};

}  // namespace dqn
