// The CPU DQN learner (the reference, and the fallback): online and target networks in flat
// buffers, Adam state, and the training step (Mnih et al. 2015 with Double DQN, van Hasselt et
// al. 2016; prioritized replay's IS weights, Schaul et al. 2016) over the run's heads (model/
// head.h) and loss parts (train/loss_parts.h). The step in cpu_learner.cpp reads top to bottom as
// the algorithm.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "env/vec_env.h"
#include "model/param_layout.h"
#include "model/q_network.h"
#include "replay/replay.h"
#include "train/adam.h"
#include "train/learner.h"
#include "train/loss_parts.h"
#include "train/scalar_block.h"

namespace dqn {

/// Online/target networks, optimizer state and the DQN step, on the CPU in f32.
class CpuLearner final : public Learner {
 public:
  /// Initializes the online network with He-uniform weights from `seed` and copies it to the
  /// target. causal_features: observation indices the causal probe intervenes on (the scalar
  /// block keeps the first kMaxCausalFeatures of them one by one; the mean covers all).
  /// @throws std::invalid_argument for a bad shape or option.
  CpuLearner(const NetConfig& net, const LearnerConfig& config, uint64_t seed, std::vector<FeatureGroup> causal_features);

  // ---- Learner ----
  /// Samples config.batch_size transitions, steps, writes the TD errors back as priorities and
  /// the step's scalars (PER health included) into `out`; returns step()'s NanFlag bits.
  uint32_t train(Replay& replay, ScalarBlock& out) override;
  uint32_t finish(ScalarBlock&) override { return 0; }
  void insert(Replay& replay, const TransitionBatch& batch) override { replay.insert(batch); }
  void greedy(const float* states, int64_t rows, int32_t* actions) override;
  int64_t steps() const override { return steps_; }  ///< gradient steps done (Adam's t)
  void set_steps(int64_t steps) override { steps_ = steps; }
  const ParamLayout& layout() const override { return layout_; }
  void save_params(LearnerTensors& out) override;
  void load_params(const LearnerTensors& in) override;
  std::string backend() const override { return "cpu"; }
  void inject_nan(uint32_t flag, int64_t at_step) override { inject_flag_ = flag; inject_step_ = at_step; }

  /// One gradient step on a sampled batch of config.batch_size transitions: writes the main
  /// head's TD signal (Q head: y - Q(s, a); C51: the cross-entropy) into td_errors [B] and the
  /// step's scalars into `out`. Returns the NanFlag bits of the tensors found non-finite (0 when
  /// healthy); a flagged step is not counted in steps(), and one flagged before the Adam update
  /// (head outputs, loss, gradients) changes no parameter.
  uint32_t step(const SampleBatch& batch, float* td_errors, ScalarBlock& out);

  const LearnerConfig& config() const { return config_; }
  /// Flat buffers of layout().size() floats, for checkpoints and tests (fixed storage: the
  /// tensor pointers computed at construction stay valid).
  std::span<float> online() { return online_; }
  std::span<float> target() { return target_; }
  /// The gradient Adam read in the last step (tests): the main part's unclipped gradient when
  /// it is the only part (Adam scales it by its clip coefficient), else the sum of the parts'
  /// clipped gradients.
  std::span<const float> gradients() const { return parts_.size() == 1 ? part_grads_[0] : grad_sum_; }
  /// The loss parts, main part first (train/loss_parts.h), and part k's unclipped gradient of
  /// the last step (tests).
  const std::vector<std::unique_ptr<LossPart>>& parts() const { return parts_; }
  std::span<const float> part_gradient(size_t k) const { return part_grads_[k]; }

 private:
  void poison(uint32_t flag, int64_t t, float* x) const;
  /// Every part's gradient clipped to its budget, Adam on their sum; the step's gradient scalars.
  /// Returns kNanGradients when a gradient is not finite (no parameter changed), else 0.
  uint32_t optimize(int64_t t, ScalarBlock& out);
  void update_target(int64_t t);
  void probes(int64_t t, const float* states, ScalarBlock& out);

  ParamLayout layout_;
  LearnerConfig config_;
  std::vector<FeatureGroup> causal_features_;
  uint64_t seed_;
  std::vector<float> online_, target_, m_, v_;
  ParamView online_view_, target_view_;
  std::vector<std::unique_ptr<LossPart>> parts_;   // main part first (train/loss_parts.h)
  std::vector<double> part_loss_;                  // each part's loss of the last step
  std::vector<std::vector<float>> part_grads_;     // each part's gradient, one full buffer each
  std::vector<ParamView> part_views_;
  std::vector<float> grad_sum_;                    // the clipped parts' sum (more than one part)
  Workspace ws_online_;  // 2B rows: s and s' in one pass
  Workspace ws_target_;  // B rows: s'
  Workspace ws_probe_;   // B rows: interventions of the causal probe
  Workspace ws_act_;     // act_rows rows: greedy actions
  std::vector<float> inputs_, td_aux_, probe_states_;
  SampleBuffers batch_;  // train()'s sampled batch
  std::vector<float> td_;
  std::vector<double> probe_per_feature_;
  int64_t steps_ = 0;
  uint32_t inject_flag_ = 0;
  int64_t inject_step_ = -1;
};

}  // namespace dqn
