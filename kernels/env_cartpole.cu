// CartPole copies on the device, one thread per copy, running the host copy's step
// (env/cartpole_dynamics.h); launchers declared in env_launch.cuh.
#include "env/cartpole_dynamics.h"
#include "kernels/env_launch.cuh"

namespace dqn::cuda::detail {
namespace {

constexpr int kThreads = 256;

/// Copy i's reset stream, loaded from device memory.
__device__ inline Rng LoadRng(const uint64_t* words) { return Rng(std::array<uint64_t, 4>{words[0], words[1], words[2], words[3]}); }

__device__ inline void StoreRng(const Rng& rng, uint64_t* words) {
  const std::array<uint64_t, 4> s = rng.state();
  for (int k = 0; k < 4; ++k) words[k] = s[k];
}

__global__ void __launch_bounds__(kThreads) ResetKernel(CartPoleDevice env, float* obs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= env.n) return;
  Rng rng = LoadRng(env.rng + 4 * i);
  double* s = env.state + 4 * i;
  cartpole::ResetCopy(s, env.elapsed[i], rng);
  for (int k = 0; k < 4; ++k) obs[4 * i + k] = static_cast<float>(s[k]);
  StoreRng(rng, env.rng + 4 * i);
}

__global__ void __launch_bounds__(kThreads) StepKernel(CartPoleDevice env, const int32_t* actions, EnvStepOut out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= env.n) return;
  double s[4];
  for (int k = 0; k < 4; ++k) s[k] = env.state[4 * i + k];
  int32_t elapsed = env.elapsed[i];
  Rng rng = LoadRng(env.rng + 4 * i);
  cartpole::StepCopy(s, elapsed, rng, actions[i], env.max_episode_steps, out.next_obs + 4 * i, out.rewards[i],
                     out.terminated[i], out.truncated[i], out.final_obs + 4 * i);
  for (int k = 0; k < 4; ++k) env.state[4 * i + k] = s[k];
  env.elapsed[i] = elapsed;
  StoreRng(rng, env.rng + 4 * i);
}

unsigned Blocks(int n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

}  // namespace

cudaError_t LaunchCartPoleReset(const CartPoleDevice& env, float* obs, cudaStream_t stream) {
  if (env.n < 1) return cudaErrorInvalidValue;
  ResetKernel<<<Blocks(env.n), kThreads, 0, stream>>>(env, obs);
  return cudaGetLastError();
}

cudaError_t LaunchCartPoleStep(const CartPoleDevice& env, const int32_t* actions, const EnvStepOut& out, cudaStream_t stream) {
  if (env.n < 1) return cudaErrorInvalidValue;
  StepKernel<<<Blocks(env.n), kThreads, 0, stream>>>(env, actions, out);
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
