// The scalar block: the one struct of live training scalars (DESIGN section 4).
// The CPU learner fills it in place; the CUDA learner fills a device copy and copies it
// asynchronously into a pinned host block of this exact layout. The addon exports every
// field's byte offset and type (scalarLayout), so no JavaScript hard-codes an offset.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dqn {

/// Largest number of features whose causal sensitivity is kept one by one.
inline constexpr int kMaxCausalFeatures = 64;
/// Largest C51 support (heads.c51.atoms) whose greedy-action distribution the block keeps.
inline constexpr int kMaxAtoms = 101;

/// Bit per tensor checked for NaN/Inf; a set bit halts the run and names the tensor.
enum NanFlag : uint32_t {
  kNanLoss = 1u << 0,       ///< the batch loss
  kNanQOnline = 1u << 1,    ///< online-network Q-values
  kNanQTarget = 1u << 2,    ///< target-network Q-values (bootstrap)
  kNanGradients = 1u << 3,  ///< gradient buffer
  kNanWeights = 1u << 4,    ///< online parameters after the Adam update
  kNanReward = 1u << 5,     ///< a reward handed to the replay buffer
  kNanObservation = 1u << 6 ///< an observation handed to the replay buffer
};

/// Names of the NanFlag bits, in bit order (exported to JS with the layout).
inline constexpr const char* kNanFlagNames[] = {"loss", "q_online", "q_target", "gradients",
                                                "weights", "reward", "observation"};

/// Live scalars of one run. f64 for every real value, i64 for counters.
/// Values may come from adjacent steps (the host reads without a sync); that is fine for charts.
/// The host's fields (collection) come first; the learner's fields, from `step` on, are one
/// contiguous range (kLearnerScalarsBegin..sizeof): the CUDA learner copies exactly that range
/// from its device block into the pinned host block at the end of every step graph.
struct ScalarBlock {
  // ---- Written by the host (collection). ----
  int64_t env_steps = 0;       ///< environment steps collected (all env copies)
  int64_t episodes = 0;        ///< episodes finished during training
  double epsilon = 0;          ///< current exploration rate
  double episodic_return = 0;  ///< return of the last finished training episode
  double episode_length = 0;   ///< length of the last finished training episode
  // ---- Written by the learner (on the device with the CUDA backend). ----
  int64_t step = 0;            ///< gradient updates done
  double loss = 0;             ///< the last step's loss: the sum of its parts' (plain Q: the IS-weighted Huber loss)
  double td_mse = 0;           ///< mean squared TD error of the last batch (C51: of the expected values)
  double grad_norm = 0;        ///< global L2 norm of the summed parts' gradients before clipping
  /// Cumulative sums over the `sum_steps` healthy steps so far: the exact mean of loss, TD mse
  /// and grad norm over any polling interval is the difference of two reads over the
  /// difference of their sum_steps.
  double loss_sum = 0;
  double td_mse_sum = 0;
  double grad_norm_sum = 0;
  int64_t sum_steps = 0;
  double q_mean = 0;           ///< Q-stats (every q_stats_interval steps): mean over batch x actions
  double q_min = 0;
  double q_max = 0;
  double q_var = 0;
  double mean_max_q = 0;       ///< mean over the batch of max_a Q(s, a)
  int64_t q_stats_step = -1;   ///< step at which the Q-stats were taken
  double causal_sensitivity = 0; ///< mean over features of mean |Q(s) - Q(s_do(f))|
  int64_t causal_step = -1;    ///< step at which causal sensitivity was taken
  int32_t causal_features = 0; ///< how many entries of causal_per_feature are valid
  uint32_t nan_flags = 0;      ///< NanFlag bits
  double is_weight_mean = 0;   ///< mean IS weight of the last batch
  // PER health (the replay's own numbers; the four fields stay together).
  int64_t nan_td_rejected = 0; ///< TD errors rejected as NaN/Inf by the priority update (cumulative)
  double per_total = 0;        ///< sum-tree root: total priority mass
  double per_max_priority = 0; ///< running max priority (|td| domain, before alpha)
  double beta = 0;             ///< IS exponent of the last batch
  double causal_per_feature[kMaxCausalFeatures] = {}; ///< per-feature sensitivity
  // Heads and parts (model/heads_config.h): each part's loss of the last step and its gradient's
  // L2 norm before and after its budget clip (0 while the part is off). `loss` is their sum and
  // `grad_norm` the norm of the summed gradients before any clip.
  double main_loss = 0;            ///< the main head's loss (Q: Huber; C51: cross-entropy; IQN: quantile Huber)
  double main_grad_norm = 0;
  double main_grad_clipped = 0;
  double iqn_loss = 0;             ///< the auxiliary IQN head's quantile Huber loss
  double iqn_grad_norm = 0;
  double iqn_grad_clipped = 0;
  double ensemble_loss = 0;        ///< mean over the ensemble heads of their masked Huber losses
  double ensemble_grad_norm = 0;
  double ensemble_grad_clipped = 0;
  double cql_loss = 0;             ///< alpha * mean(logsumexp_a Q(s, a) - Q(s, a_data))
  double cql_grad_norm = 0;
  double cql_grad_clipped = 0;
  double ensemble_disagreement = 0; ///< mean over the batch of std_k Q_k(s, a_greedy) (with the Q-stats)
  double sigma_max_seen = 0;        ///< largest spectral-norm estimate of the normalised matrices, before scaling
  int32_t c51_atoms = 0;            ///< valid entries of c51_greedy_dist
  uint32_t heads_reserved = 0;
  /// Mean over the batch of the C51 distribution of the greedy action at s (with the Q-stats).
  double c51_greedy_dist[kMaxAtoms] = {};
};

/// First byte of the learner's range of the block (see ScalarBlock).
inline constexpr size_t kLearnerScalarsBegin = offsetof(ScalarBlock, step);

/// Copies the learner's range of `from` into `to` (the host's fields of `to` are kept).
inline void CopyLearnerScalars(const ScalarBlock& from, ScalarBlock& to) {
  std::memcpy(reinterpret_cast<char*>(&to) + kLearnerScalarsBegin, reinterpret_cast<const char*>(&from) + kLearnerScalarsBegin,
              sizeof(ScalarBlock) - kLearnerScalarsBegin);
}

}  // namespace dqn
