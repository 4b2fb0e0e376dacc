// The device environments of the GPU collector (issue 24; DESIGN sections 1, 4 and 7): plain
// structs shared by host code and kernels, and the launchers host code calls. Compiles with a
// host C++ compiler: no device code here (that is in env_*.cu).
//
// A copy on the device runs the host copy's own step (env/cartpole_dynamics.h and
// env/trading_step.h StepCopy: one definition, the same float64 operations and the same reset
// stream), so device copies follow host copies bit for bit; native/test/cuda/env_cuda_tool.cpp
// checks that step by step.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "env/trading_step.h"

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

/// One step's outputs, as VecEnv::step writes them (device pointers); obs_dim is 4 for CartPole,
/// trading::ObsDim(params) for trading.
struct EnvStepOut {
  float* next_obs = nullptr;     ///< [n x obs_dim] after the auto-reset of a copy whose episode ended
  float* rewards = nullptr;      ///< [n]
  uint8_t* terminated = nullptr; ///< [n]
  uint8_t* truncated = nullptr;  ///< [n]
  float* final_obs = nullptr;    ///< [n x obs_dim] before any reset
};

/// `n` trading copies in device memory over one walk (cuda/device_trading_env.h builds it from
/// the host's TradingSetup); copy i's reset stream starts as the host env's trading::CopyRng(seed, i).
struct TradingDevice {
  trading::Walk walk;                    ///< device arrays: plan bars [N], segment_start, timestamps, close [num_bars], features [num_bars x 7]
  trading::Params params;                ///< the step's fixed numbers (by value)
  trading::CopyState* copies = nullptr;  ///< [n]
  uint64_t* rng = nullptr;               ///< [n x 4] xoshiro256** states
  int n = 0;
};

/// Resets every copy (state from its stream, elapsed 0) and writes the first observations obs [n x 4].
cudaError_t LaunchCartPoleReset(const CartPoleDevice& env, float* obs, cudaStream_t stream);
/// Steps every copy with actions [n] (each 0 or 1: the caller's policy; not checked here).
cudaError_t LaunchCartPoleStep(const CartPoleDevice& env, const int32_t* actions, const EnvStepOut& out, cudaStream_t stream);

/// Restarts every trading copy (a start from its stream in training, the first decision in
/// evaluation) and writes the first observations obs [n x obs_dim].
cudaError_t LaunchTradingReset(const TradingDevice& env, float* obs, cudaStream_t stream);
/// Steps every trading copy with actions [n] (each in [0, trading::NumActions(params)): the
/// caller's policy; not checked here), auto-resetting the copies whose episode ended.
cudaError_t LaunchTradingStep(const TradingDevice& env, const int32_t* actions, const EnvStepOut& out, cudaStream_t stream);
/// Copies a block of LaunchTradingStep when it stages observation rows of obs_dim floats in shared
/// memory (and writes them coalesced): 64 or 32; 0 when each copy's rows are written by its own thread.
int TradingStagedCopies(int obs_dim);

}  // namespace dqn::cuda::detail
