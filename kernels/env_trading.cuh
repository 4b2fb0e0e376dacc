// Device code of a trading copy on the GPU (TradingDevice, env_launch.cuh), shared by the
// environment's own kernels (env_trading.cu) and, later, the collector's: copy i's state and
// reset stream are loaded, stepped with the host copy's StepCopy (env/trading_step.h) and stored
// back.
#pragma once
#include "env/trading_step.h"
#include "kernels/env_copy_rng.cuh"
#include "kernels/env_launch.cuh"

namespace dqn::cuda::detail {

/// One step of copy i under `action` (in [0, NumActions)): trading::StepCopy on the copy's stored
/// state; next_obs and final_obs are that copy's ObsDim floats (global or shared memory).
__device__ inline void StepTradingCopy(const TradingDevice& env, int i, int action, float* next_obs, float& reward,
                                       uint8_t& terminated, uint8_t& truncated, float* final_obs) {
  trading::CopyState c = env.copies[i];
  Rng rng = LoadCopyRng(env.rng, i);
  const bool ended = trading::StepCopy(env.walk, env.params, c, rng, action, next_obs, reward, terminated, truncated, final_obs);
  env.copies[i] = c;
  if (ended) StoreCopyRng(env.rng, i, rng);  // a training start drew from the stream
}

}  // namespace dqn::cuda::detail
