// The Q head (DESIGN section 4): expected Q-values, plain (one linear layer, Mnih et al. 2015) or
// dueling, Q = V + A - mean_a(A) (Wang et al. 2016, eq. 9, with rules::DuelingQ), trained with
// the n-step Double DQN target and the IS-weighted Huber loss (ComputeTdLoss, model/td_loss.h).
// Its layers are those of version-1 checkpoints and of the CUDA learner: dueling "value" [F -> 1]
// then "advantage" [F -> A]; plain "q" [F -> A].
#pragma once
#include "model/action_outputs.h"
#include "model/head.h"

namespace dqn {

/// The plain or dueling Q head on F trunk features, for A actions (the main head, kMain).
class QHead final : public Head {
 public:
  /// @param features F, the trunk's output width; n_actions A. @throws std::invalid_argument when
  ///        either is < 1.
  QHead(int features, int n_actions, bool dueling);
  std::string name() const override { return "q"; }
  PartKind part() const override { return PartKind::kMain; }
  std::vector<LayerSpec> layers() const override { return outputs_.layers(); }
  std::vector<ConfigField> fields() const override { return {{"heads.main", "q"}}; }
  std::unique_ptr<HeadState> make_state(int64_t max_rows) const override;
  /// Q [rows x A] (dueling: V [rows] and A [rows x A] first, combined per row in f32).
  void forward(std::span<const DenseView> p, const float* features, int64_t rows, const ForwardContext& ctx,
               HeadState& s) const override;
  /// Q [rows x A].
  std::span<float> outputs(HeadState& s, int64_t rows) const override;
  /// Q [rows x A], copied.
  void q_values(const HeadState& s, int64_t rows, float* q) const override;
  /// ComputeTdLoss: y = r + discount Q_target(s', a*), a* from the online (double_dqn) or target
  /// Q at s'; td = y - Q(s, a); loss (1/B) sum_i w_i huber(td_i); dL/dQ nonzero at the taken actions.
  HeadLoss loss(const LossBatch& batch, HeadState& online, const HeadState& target, float* td) const override;
  /// dL/dQ = dq.
  void q_gradient(HeadState& s, const float* dq, int64_t rows) const override;
  /// dL/dQ [rows x A].
  std::span<float> output_gradient(HeadState& s, int64_t rows) const override;
  /// Dueling: dL/dV = sum_a dQ_a, dL/dA_k = dQ_k - mean_a dQ_a; then the dense layers.
  void backward(HeadState& s, std::span<const DenseView> p, const float* features, int64_t rows,
                std::span<const DenseView> g, float* d_features, bool accumulate) const override;

 private:
  int n_actions_;
  ActionOutputs outputs_;  // n = 1 value per action
};

}  // namespace dqn
