// The trading environment on the device (issue 24 item 1; DESIGN section 7): `num_envs` copies
// of the host's trading environment of one role, stepped by kernels/env_trading.cu, one thread
// per copy. The market features, the walk plan and the step's numbers are computed once on the
// host by PrepareTrading (env/trading_env.h, what MakeTradingEnv builds from too) and copied to
// the device as tables; each copy's step is the host copy's (env/trading_step.h), and copy i
// draws its training starts from the host copy's stream, so with the same actions a device copy
// follows its host copy bit for bit (native/test/cuda/env_cuda_tool.cpp checks it). Evaluation
// walks step on the device too (cuda/device_eval_walk.h: one copy of the kValidation or kTest
// role, its steps recorded there and reported on the host by the host env's code).
//
// Usage:
//   DeviceTradingEnv env(spec, EnvRole::kTrain);       // throws std::invalid_argument, CudaError
//   env.reset(d_obs, stream);                           // d_obs: [num_envs x obs_dim] f32 on the device
//   env.step(d_actions, out, stream);                   // queued; nothing waits
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <vector>

#include "env/trading_env.h"
#include "kernels/env_launch.cuh"

namespace dqn::cuda {

class DeviceTradingEnv {
 public:
  /// Prepares the tables of `role` from spec on the host (PrepareTrading), copies them to the
  /// device in one allocation with the copies' states and reset streams (copy i's starts as the
  /// host env's trading::CopyRng(spec.seed, i)), and waits for the copies. No copy is reset yet.
  /// @throws std::invalid_argument for the spec's or the bars' faults (as MakeTradingEnv);
  ///   CudaError when the tables do not fit ("out of memory: the GPU trading environment of E
  ///   copies needs N GiB, M GiB free") or a copy fails.
  DeviceTradingEnv(const EnvSpec& spec, EnvRole role);
  ~DeviceTradingEnv();
  DeviceTradingEnv(const DeviceTradingEnv&) = delete;
  DeviceTradingEnv& operator=(const DeviceTradingEnv&) = delete;

  int num_envs() const { return view_.n; }
  int obs_dim() const { return trading::ObsDim(view_.params); }
  int num_actions() const { return trading::NumActions(view_.params); }

  /// Restarts every copy and writes the first observations into obs ([num_envs x obs_dim] f32,
  /// device memory), queued on `stream`. @throws CudaError when the launch fails.
  void reset(float* obs, cudaStream_t stream);
  /// Steps every copy with actions ([num_envs] i32 in [0, num_actions()), device memory; not
  /// checked) into out (device pointers, obs rows of obs_dim floats), queued on `stream`; a copy
  /// whose episode ended restarts, its next observation the new episode's first.
  /// @throws CudaError when the launch fails.
  void step(const int32_t* actions, const detail::EnvStepOut& out, cudaStream_t stream);

  /// The device view the kernels read (for a collector that steps the copies itself).
  const detail::TradingDevice& view() const { return view_; }
  /// The host setup the tables came from.
  const TradingSetup& setup() const { return setup_; }
  /// Bytes of device memory held.
  size_t device_bytes() const { return bytes_; }

  /// The copies' states and reset streams, copied back (synchronizes the device; for checks).
  std::vector<trading::CopyState> copies() const;
  std::vector<std::array<uint64_t, 4>> rng_states() const;

 private:
  TradingSetup setup_;
  detail::TradingDevice view_;
  void* block_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace dqn::cuda
