// The CPU reference implementation of Replay (DESIGN section 3): SoA ring storage, a binary sum
// tree and min tree with f64 sums, and proportional / rank-based / uniform samplers. Every other
// backend is tested against it.
//
// Usage (as run by native/test/replay.test.ts through the binding):
//   ReplayConfig c; c.capacity = 1000; c.state_dim = 4;
//   auto replay = MakeCpuReplay(c);
//   replay->insert(batch);                 // new transitions get the running max priority
//   replay->sample(256, out);              // out.indices, out.generations, out.weights, ...
//   replay->update_priorities(out.indices, out.generations, td, 256);
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "replay/index_sampler.h"
#include "replay/philox.h"
#include "replay/priority_trees.h"
#include "replay/replay.h"
#include "replay/transition_store.h"

namespace dqn::detail {

/// Random numbers: sample() call s (s = sample_steps before the call) draws uniform k of the
/// batch from Philox4x32_10(counter {k, 0, low32(s), high32(s)}, key = seed), words 0 and 1
/// made into a 53-bit double (UniformFromBits). Reproducible from (seed, s), so setting
/// sample_steps on resume continues the same stream, and the CUDA backend can draw the same
/// numbers with one thread per k.
class CpuReplay final : public Replay {
 public:
  /// Throws std::invalid_argument for an invalid config (ValidateReplayConfig).
  explicit CpuReplay(const ReplayConfig& config);

  /// Validates the whole batch first (std::invalid_argument naming the bad element), so a bad
  /// batch changes nothing. New slots get LeafPriority(max_priority()) (Schaul et al. 2016, Alg. 1).
  void insert(const TransitionBatch& batch) override;
  /// batch_size in [1, 2^31 - 1] (std::invalid_argument); std::runtime_error when empty.
  /// IS weights w_i = (size P(i))^-beta / max_j w_j = (P_min / P(i))^beta, P_min over the stored
  /// slots (IsNormalization::kBuffer) or over the batch (kBatch) (Schaul et al. 2016, sec. 3.4).
  void sample(int64_t batch_size, SampleBatch& out) override;
  /// Validates every index in [0, size) first (std::invalid_argument naming the entry). Then per
  /// distinct slot only its last entry counts (the others are `duplicates`); that entry is
  /// rejected when its TD error is NaN/Inf (`rejected_nonfinite`, checked first), dropped when
  /// its generation differs from the slot's (`stale`), else applied. max_priority() becomes the
  /// max of itself and the applied |td|.
  UpdateResult update_priorities(const int32_t* indices, const uint32_t* generations, const float* td_errors,
                                 int64_t n) override;

  int64_t size() const override { return store_.size(); }
  int64_t capacity() const override { return store_.capacity(); }
  int state_dim() const override { return store_.state_dim(); }
  double total_priority() const override { return trees_.total(); }
  double max_priority() const override { return max_priority_; }
  /// min(1, beta0 + (1 - beta0) min(1, sample_steps / beta_steps)).
  double beta() const override;
  int64_t sample_steps() const override { return sample_steps_; }
  /// Throws std::invalid_argument when steps < 0.
  void set_sample_steps(int64_t steps) override;
  void leaf_priorities(double* out) const override;
  std::string backend() const override { return "cpu"; }
  int64_t host_memory_bytes() const override;

 private:
  ReplayConfig config_;
  PhiloxKey key_;
  TransitionStore store_;
  PriorityTrees trees_;
  std::unique_ptr<IndexSampler> sampler_;
  double max_priority_ = 1.0;  ///< running max of |td|, raw (Schaul et al. 2016, Alg. 1: p_1 = 1)
  int64_t sample_steps_ = 0;
  // Working memory reused between calls (no allocation once the batch size is stable).
  std::vector<int64_t> slots_;
  std::vector<double> values_, uniforms_, probabilities_;
  std::vector<std::pair<int32_t, int64_t>> entries_;
};

}  // namespace dqn::detail
