// Device code of a CartPole copy on the GPU (CartPoleDevice, env_launch.cuh), shared by the
// environment's own kernels (env_cartpole.cu) and the collector's (collect.cu): copy i's state,
// elapsed steps and reset stream are loaded, stepped with the host copy's StepCopy
// (env/cartpole_dynamics.h) and stored back.
#pragma once
#include "env/cartpole_dynamics.h"
#include "kernels/env_copy_rng.cuh"
#include "kernels/env_launch.cuh"

namespace dqn::cuda::detail {

/// One step of copy i under `action` (0 or 1): cartpole::StepCopy on the copy's stored state.
__device__ inline void StepCartPoleCopy(const CartPoleDevice& env, int i, int action, float* next_obs, float& reward,
                                        uint8_t& terminated, uint8_t& truncated, float* final_obs) {
  double s[4];
  for (int k = 0; k < 4; ++k) s[k] = env.state[4 * static_cast<int64_t>(i) + k];
  int32_t elapsed = env.elapsed[i];
  Rng rng = LoadCopyRng(env.rng, i);
  cartpole::StepCopy(s, elapsed, rng, action, env.max_episode_steps, next_obs, reward, terminated, truncated, final_obs);
  for (int k = 0; k < 4; ++k) env.state[4 * static_cast<int64_t>(i) + k] = s[k];
  env.elapsed[i] = elapsed;
  StoreCopyRng(env.rng, i, rng);
}

}  // namespace dqn::cuda::detail
