// Choosing where the replay buffer lives (DESIGN sections 3 and 5): the CPU reference or the
// CUDA backend, with the reason whenever the CUDA backend was wanted but not used, so the UI
// can show it ("Replay: CPU PER (fallback: out of memory, 3.80 GiB asked, 1.20 GiB free)").
//
// Usage:
//   dqn::ReplayChoice c = dqn::MakeReplay(config, {.device = dqn::ReplayDevice::kAuto});
//   c.replay->backend();   // "cuda", or "cpu" with c.fallback_reason = "no CUDA device"
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "replay/replay.h"

namespace dqn {

enum class ReplayDevice { kAuto, kCpu, kCuda };

/// Where and how to place the buffer.
struct ReplayPlacement {
  ReplayDevice device = ReplayDevice::kAuto; ///< auto and cuda use the GPU when one is usable
  bool state_bf16 = false;    ///< CUDA: store states as bf16 (config replay.state_dtype)
  bool simulate_oom = false;  ///< test switch (also env DQN_SIMULATE_REPLAY_OOM=1): act as if the GPU allocation failed
  /// Test switch (also env DQN_SIMULATE_REPLAY_KERNEL_ERROR=1): the first GPU sample fails with
  /// a real non-sticky launch error, so the buffer moves to the CPU at run time.
  bool simulate_kernel_error = false;
  int fan_log = 5;            ///< CUDA: sum-tree fan-out 2^fan_log (1, 4 or 5; 32-ary measured fastest, bench/RESULTS.md)
};

/// The buffer and, when the GPU was wanted (auto or cuda) but the CPU is used, why.
struct ReplayChoice {
  std::unique_ptr<Replay> replay;
  std::string fallback_reason;  ///< "" when the buffer is where it was asked to be
  /// Reason of a fallback that happened after construction (a replay kernel failed), or "".
  /// Valid while `replay` lives.
  std::function<std::string()> runtime_fallback_reason = [] { return std::string(); };
};

/// Builds the buffer. Throws std::invalid_argument for an invalid config (both backends accept
/// and refuse the same configs). A GPU that is missing, out of memory or failing is never an
/// exception: the CPU buffer is returned with the reason.
ReplayChoice MakeReplay(const ReplayConfig& config, const ReplayPlacement& placement);

}  // namespace dqn
