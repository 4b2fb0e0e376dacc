// The CUDA replay with its runtime fallback (DESIGN section 5): every call runs on the GPU
// buffer until a replay kernel fails with a non-sticky CUDA error; the buffer's contents then
// move to a CPU reference buffer, which serves the failed call and the rest of the run, and the
// reason is kept for the UI. A sticky error (context lost) is rethrown: the trainer handles it.
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <memory>
#include <string>

#include "cuda/cuda_replay.h"
#include "replay/replay.h"

namespace dqn::cuda {

class FallbackReplay final : public Replay {
 public:
  FallbackReplay(const ReplayConfig& config, std::unique_ptr<CudaReplay> gpu);

  void insert(const TransitionBatch& batch) override;
  void sample(int64_t batch_size, SampleBatch& out) override;
  UpdateResult update_priorities(const int32_t* indices, const uint32_t* generations, const float* td_errors,
                                 int64_t n) override;
  int64_t size() const override { return active().size(); }
  int64_t capacity() const override { return active().capacity(); }
  int state_dim() const override { return active().state_dim(); }
  double total_priority() const override;
  double max_priority() const override;
  double beta() const override;
  int64_t sample_steps() const override;
  void set_sample_steps(int64_t steps) override;
  void leaf_priorities(double* out) const override;
  std::string backend() const override { return active().backend(); }
  int64_t host_memory_bytes() const override { return active().host_memory_bytes(); }

  /// Why the buffer moved to the CPU ("" while it is on the GPU).
  const std::string& fallback_reason() const { return reason_; }
  /// Moves the buffer to the CPU now, for a GPU failure met outside this class (the CUDA
  /// learner's device-path calls); `reason` is kept for the UI. No effect after a fallback.
  void fall_back(const std::string& reason) {
    if (gpu_) move_to_cpu(reason);
  }
  /// The GPU buffer, or null after the fallback.
  CudaReplay* gpu() const { return gpu_.get(); }

 private:
  const Replay& active() const { return gpu_ ? static_cast<const Replay&>(*gpu_) : *cpu_; }
  Replay& active() { return gpu_ ? static_cast<Replay&>(*gpu_) : *cpu_; }
  /// Runs f on self's active buffer (const or not, as Self is); on a non-sticky CudaError moves
  /// to the CPU and runs f again.
  template <typename Self, typename F>
  static decltype(auto) Guarded(Self& self, F f);
  /// Copies the GPU buffer into a new CPU buffer (slot for slot, same cursor, leaf priorities
  /// through their |td| preimage, same sample step) and drops the GPU buffer.
  void move_to_cpu(const std::string& reason) const;

  ReplayConfig config_;
  mutable std::unique_ptr<CudaReplay> gpu_;
  mutable std::unique_ptr<Replay> cpu_;
  mutable std::string reason_;
};

/// A CUDA replay behind the runtime fallback. Throws CudaError when the GPU buffer cannot be
/// built (the caller falls back with that error's message).
std::unique_ptr<FallbackReplay> MakeCudaReplayWithFallback(const ReplayConfig& config, const CudaReplayOptions& options);

}  // namespace dqn::cuda
