// Device code of a trading copy on the GPU (TradingDevice, env_launch.cuh), shared by the
// environment's own kernels (env_trading.cu) and, later, the collector's: copy i's state and
// reset stream are loaded, stepped with the host copy's StepCopy (env/trading_step.h) and stored
// back.
#pragma once
#include "env/trading_step.h"
#include "kernels/env_launch.cuh"

namespace dqn::cuda::detail {

/// Copy i's reset stream, loaded from device memory.
__device__ inline Rng LoadTradingRng(const TradingDevice& env, int i) {
  const uint64_t* w = env.rng + 4 * static_cast<int64_t>(i);
  return Rng(std::array<uint64_t, 4>{w[0], w[1], w[2], w[3]});
}

__device__ inline void StoreTradingRng(const TradingDevice& env, int i, const Rng& rng) {
  const std::array<uint64_t, 4> s = rng.state();
  for (int k = 0; k < 4; ++k) env.rng[4 * static_cast<int64_t>(i) + k] = s[k];
}

/// One step of copy i under `action` (in [0, NumActions)): trading::StepCopy on the copy's stored
/// state; next_obs and final_obs are that copy's ObsDim floats (global or shared memory).
__device__ inline void StepTradingCopy(const TradingDevice& env, int i, int action, float* next_obs, float& reward,
                                       uint8_t& terminated, uint8_t& truncated, float* final_obs) {
  trading::CopyState c = env.copies[i];
  Rng rng = LoadTradingRng(env, i);
  const bool ended = trading::StepCopy(env.walk, env.params, c, rng, action, next_obs, reward, terminated, truncated, final_obs);
  env.copies[i] = c;
  if (ended) StoreTradingRng(env, i, rng);  // a training start drew from the stream
}

}  // namespace dqn::cuda::detail
