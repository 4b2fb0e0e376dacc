// The CPU DQN learner: online and target networks in flat buffers, Adam state, and the training
// step (Mnih et al. 2015 with Double DQN, van Hasselt et al. 2016; dueling head, Wang et al.
// 2016; prioritized replay's IS weights, Schaul et al. 2016). The step in learner.cpp reads top
// to bottom as the algorithm.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "env/vec_env.h"
#include "model/param_layout.h"
#include "model/q_network.h"
#include "replay/replay.h"
#include "train/adam.h"
#include "train/scalar_block.h"

namespace dqn {

enum class TargetUpdate { kHard, kPolyak };

/// Learner options (see common/config.ts, optim and schedule sections, for defaults and ranges).
struct LearnerConfig {
  AdamConfig adam;
  double lr_end = 0;            ///< learning rate reached after lr_decay_steps (linear schedule)
  int64_t lr_decay_steps = 0;   ///< 0 = constant adam.lr
  double grad_clip = 10;  ///< global grad-norm clip, 0 = off
  int64_t batch_size = 256;
  bool double_dqn = true;
  double huber_delta = 1;
  TargetUpdate target_update = TargetUpdate::kHard;
  int64_t target_interval = 1000;  ///< hard: copy every C steps
  double tau = 0.005;              ///< Polyak: target += tau (online - target) every step
  int64_t q_stats_interval = 100;
  int64_t causal_interval = 1000;
  int64_t act_rows = 64;  ///< rows per forward of greedy() (larger calls are chunked)
};

/// Online/target networks, optimizer state and the DQN step.
class Learner {
 public:
  /// Initializes the online network with He-uniform weights from `seed` and copies it to the
  /// target. causal_features: observation indices the causal probe intervenes on (the scalar
  /// block keeps the first kMaxCausalFeatures of them one by one; the mean covers all).
  /// @throws std::invalid_argument for a bad shape or option.
  Learner(const NetConfig& net, const LearnerConfig& config, uint64_t seed, std::vector<FeatureGroup> causal_features);

  /// One gradient step on a sampled batch of config.batch_size transitions: writes the TD errors
  /// (y - Q(s, a)) into td_errors [B] and the step's scalars into `out`. Returns the NanFlag bits
  /// of the tensors found non-finite (0 when healthy); a flagged step is not counted in steps(),
  /// and one flagged before the Adam update (Q, loss, gradients) changes no parameter.
  uint32_t step(const SampleBatch& batch, float* td_errors, ScalarBlock& out);

  /// Greedy actions argmax_a Q_online(s, a) (first index on ties) for states [rows x D].
  void greedy(const float* states, int64_t rows, int32_t* actions);

  int64_t steps() const { return steps_; }  ///< gradient steps done (Adam's t)
  void set_steps(int64_t steps) { steps_ = steps; }
  const ParamLayout& layout() const { return layout_; }
  const LearnerConfig& config() const { return config_; }
  /// Flat buffers of layout().size() floats, for checkpoints and tests (fixed storage: the
  /// tensor pointers computed at construction stay valid).
  std::span<float> online() { return online_; }
  std::span<float> target() { return target_; }
  std::span<float> adam_m() { return m_; }
  std::span<float> adam_v() { return v_; }

  /// Test-only fault injection (DESIGN section 5: every halt can be forced in a test): at
  /// gradient step `at_step`, one element of the tensor named by `flag` (kNanQOnline, kNanQTarget,
  /// kNanLoss, kNanGradients or kNanWeights) is set to NaN just before it is checked.
  void inject_nan(uint32_t flag, int64_t at_step) { inject_flag_ = flag; inject_step_ = at_step; }

 private:
  void poison(uint32_t flag, int64_t t, float* x) const;
  void update_target(int64_t t);
  void probes(int64_t t, const float* states, ScalarBlock& out);

  ParamLayout layout_;
  LearnerConfig config_;
  std::vector<FeatureGroup> causal_features_;
  std::vector<float> online_, target_, grad_, m_, v_;
  ParamView online_view_, target_view_, grad_view_;
  Workspace ws_online_;  // 2B rows: s and s' in one pass
  Workspace ws_target_;  // B rows: s'
  Workspace ws_probe_;   // B rows: interventions of the causal probe
  Workspace ws_act_;     // act_rows rows: greedy actions
  std::vector<float> inputs_, td_dq_, probe_states_;
  std::vector<double> probe_per_feature_;
  int64_t steps_ = 0;
  uint32_t inject_flag_ = 0;
  int64_t inject_step_ = -1;
};

}  // namespace dqn
