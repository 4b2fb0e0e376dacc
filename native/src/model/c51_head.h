// The C51 head (Bellemare, Dabney and Munos 2017, "A Distributional Perspective on Reinforcement
// Learning"): for each action a categorical return distribution on the fixed support z_j =
// v_min + j dz, j = 0..atoms-1, as logits [rows x A x atoms] with p(s, a) = softmax over atoms
// (sec. 4). Dueling form as in Rainbow (Hessel et al. 2018, sec. 3, "dueling networks"): a value
// stream [F -> atoms] and an advantage stream [F -> A x atoms] combined per atom,
// logits_a = V + A_a - mean_a' A_a' (rules::DuelingQ); plain: one layer [F -> A x atoms].
//
// Loss (Algorithm 1, with Double DQN's action choice as in Rainbow, sec. 3 "multi-step learning"
// and "double Q-learning"): a* = argmax_a Q(s', a) of the online network's expected values
// (double_dqn) or the target network's; the target network's distribution of a* at s' moved
// through the n-step Bellman update and projected onto the support (rules::CategoricalProjection,
// with the stored n-step reward and discount gamma^n, 0 at a terminal); the cross-entropy of that
// target against p(s, a) (rules::CategoricalCrossEntropy), weighted by the IS weights and
// averaged over the batch. The priority signal is each transition's cross-entropy (Hessel et al.
// 2018, sec. 3, "prioritized replay": the KL loss). It acts by argmax_a of the expected value
// Q(s, a) = sum_j z_j p_j(s, a) (rules::CategoricalQ).
#pragma once
#include "model/action_outputs.h"
#include "model/head.h"
#include "model/heads_config.h"

namespace dqn {

/// The C51 head on F trunk features for A actions (the main head, kMain).
class C51Head final : public Head {
 public:
  /// @throws std::invalid_argument when features or n_actions < 1, atoms is outside
  ///         [2, kMaxAtoms] or the support is not finite and increasing (v_min < v_max).
  C51Head(int features, int n_actions, bool dueling, const C51Config& c51);
  std::string name() const override { return "c51"; }
  PartKind part() const override { return PartKind::kMain; }
  /// Dueling: "value" [F -> atoms], "advantage" [F -> A x atoms]; plain: "logits" [F -> A x atoms].
  std::vector<LayerSpec> layers() const override { return outputs_.layers(); }
  /// heads.main, heads.c51.atoms, heads.c51.v_min, heads.c51.v_max.
  std::vector<ConfigField> fields() const override;
  std::unique_ptr<HeadState> make_state(int64_t max_rows) const override;
  /// logits [rows x A x atoms] (f32).
  void forward(std::span<const DenseView> p, const float* features, int64_t rows, const ForwardContext& ctx,
               HeadState& s) const override;
  /// logits [rows x A x atoms].
  std::span<float> outputs(HeadState& s, int64_t rows) const override;
  /// Expected values sum_j z_j p_j [rows x A] (f64 sums rounded to f32).
  void q_values(const HeadState& s, int64_t rows, float* q) const override;
  /// The IS-weighted mean cross-entropy (nats) against the projected target; td [B] = each
  /// transition's cross-entropy; td_mse: mean of (sum_j z_j m_j - Q(s, a))^2 with m the projected
  /// target. dL/dlogits = w (softmax - m) / B at the taken action, 0 at the others.
  HeadLoss loss(const LossBatch& batch, HeadState& online, const HeadState& target, float* td) const override;
  /// dL/dlogits_{a,k} = dq_a p_k (z_k - Q(s, a)), the gradient of sum(dq ⊙ Q).
  void q_gradient(HeadState& s, const float* dq, int64_t rows) const override;
  /// dL/dlogits [rows x A x atoms].
  std::span<float> output_gradient(HeadState& s, int64_t rows) const override;
  /// Dueling: dL/dV_j = sum_a dlogits_{a,j}, dL/dA_{a,j} = dlogits_{a,j} - mean_a' dlogits_{a',j}.
  void backward(HeadState& s, std::span<const DenseView> p, const float* features, int64_t rows,
                std::span<const DenseView> g, float* d_features, bool accumulate) const override;
  /// c51_atoms and c51_greedy_dist: the mean over the rows of p(s, argmax_a Q(s, a)).
  void probe(const HeadState& s, int64_t rows, ScalarBlock& out) const override;

 private:
  /// argmax_a of the expected values of one row's logits [A x atoms] (first index on ties).
  int Greedy(const float* logits) const;
  double Atom(int j) const;  ///< z_j

  int n_actions_;
  C51Config c51_;
  ActionOutputs outputs_;  // n = atoms logits per action
};

}  // namespace dqn
