// CartPole copies on the device, one thread per copy, running the host copy's step
// (env/cartpole_dynamics.h); launchers declared in env_launch.cuh.
#include "kernels/env_cartpole.cuh"

namespace dqn::cuda::detail {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) ResetKernel(CartPoleDevice env, float* obs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= env.n) return;
  Rng rng = LoadCopyRng(env.rng, i);
  double* s = env.state + 4 * i;
  cartpole::ResetCopy(s, env.elapsed[i], rng);
  for (int k = 0; k < 4; ++k) obs[4 * i + k] = static_cast<float>(s[k]);
  StoreCopyRng(env.rng, i, rng);
}

__global__ void __launch_bounds__(kThreads) StepKernel(CartPoleDevice env, const int32_t* actions, EnvStepOut out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= env.n) return;
  StepCartPoleCopy(env, i, actions[i], out.next_obs + 4 * i, out.rewards[i], out.terminated[i], out.truncated[i],
                   out.final_obs + 4 * i);
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
