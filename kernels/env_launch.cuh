// The device environments of the GPU collector (issue 24; DESIGN sections 1, 4 and 7): plain
// structs shared by host code and kernels, and the launchers host code calls. Compiles with a
// host C++ compiler: no device code here (that is in env_*.cu).
//
// A copy on the device runs the host copy's own step (env/cartpole_dynamics.h StepCopy: one
// definition, the same float64 operations and the same reset stream), so device copies follow
// host copies bit for bit; native/test/cuda/env_cuda_tool.cpp checks that step by step.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace dqn::cuda::detail {

/// `n` CartPole copies in device memory; copy i's reset stream starts as the host's Rng(seed,
/// 1000 + i) (CartPoleVecEnv).
struct CartPoleDevice {
  double* state = nullptr;     ///< [n x 4] x, x_dot, theta, theta_dot
  int32_t* elapsed = nullptr;  ///< [n] steps since the copy's reset
  uint64_t* rng = nullptr;     ///< [n x 4] xoshiro256** states
  int n = 0;
  int max_episode_steps = 500;
};

/// One step's outputs, as VecEnv::step writes them (device pointers).
struct EnvStepOut {
  float* next_obs = nullptr;     ///< [n x 4] after the auto-reset of a copy whose episode ended
  float* rewards = nullptr;      ///< [n]
  uint8_t* terminated = nullptr; ///< [n]
  uint8_t* truncated = nullptr;  ///< [n]
  float* final_obs = nullptr;    ///< [n x 4] before any reset
};

/// Resets every copy (state from its stream, elapsed 0) and writes the first observations obs [n x 4].
cudaError_t LaunchCartPoleReset(const CartPoleDevice& env, float* obs, cudaStream_t stream);
/// Steps every copy with actions [n] (each 0 or 1: the caller's policy; not checked here).
cudaError_t LaunchCartPoleStep(const CartPoleDevice& env, const int32_t* actions, const EnvStepOut& out, cudaStream_t stream);

}  // namespace dqn::cuda::detail
