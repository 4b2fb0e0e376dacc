// Trading copies on the device, one thread per copy, running the host copy's step and reset
// (env/trading_step.h); launchers declared in env_launch.cuh.
//
// A copy's observation rows (ObsDim floats, 51 at lags 7) are far apart for neighbouring threads,
// so a thread writing its rows straight to global memory touches a cache sector per float. The
// step kernel therefore stages the block's rows in shared memory (the same StepCopy writing
// there) and the block copies them out with consecutive threads on consecutive floats; rows too
// wide for kStagedBytes of shared memory are written directly.
#include "kernels/env_trading.cuh"

namespace dqn::cuda::detail {
namespace {

constexpr int kThreads = 64;              // copies per block (staged: both obs rows of each in shared memory)
constexpr int kStagedBytes = 48 * 1024;   // shared memory a block may stage without an opt-in

__global__ void __launch_bounds__(kThreads) ResetKernel(TradingDevice env, float* obs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= env.n) return;
  trading::CopyState c;
  Rng rng = LoadTradingRng(env, i);
  trading::Restart(env.walk, env.params, c, rng);
  trading::WriteObs(env.walk, env.params, c, trading::Bar(env.walk, c), obs + static_cast<int64_t>(trading::ObsDim(env.params)) * i);
  env.copies[i] = c;
  StoreTradingRng(env, i, rng);
}

/// kStaged: the block's rows go through shared memory ([2 x kThreads x d] floats: final, next).
template <bool kStaged>
__global__ void __launch_bounds__(kThreads) StepKernel(TradingDevice env, const int32_t* actions, EnvStepOut out) {
  const int first = blockIdx.x * kThreads;
  const int i = first + threadIdx.x;
  const int d = trading::ObsDim(env.params);
  if constexpr (!kStaged) {
    if (i >= env.n) return;
    const int64_t row = static_cast<int64_t>(d) * i;
    StepTradingCopy(env, i, actions[i], out.next_obs + row, out.rewards[i], out.terminated[i], out.truncated[i], out.final_obs + row);
  } else {
    extern __shared__ float rows[];  // [kThreads x d] final rows, then [kThreads x d] next rows
    float* final_rows = rows;
    float* next_rows = rows + kThreads * d;
    if (i < env.n)
      StepTradingCopy(env, i, actions[i], next_rows + threadIdx.x * d, out.rewards[i], out.terminated[i], out.truncated[i],
                      final_rows + threadIdx.x * d);
    __syncthreads();
    const int copies = env.n - first < kThreads ? env.n - first : kThreads;
    const int count = copies * d;  // the block's rows are contiguous in both outputs
    const int64_t base = static_cast<int64_t>(d) * first;
    for (int k = threadIdx.x; k < count; k += kThreads) {
      out.final_obs[base + k] = final_rows[k];
      out.next_obs[base + k] = next_rows[k];
    }
  }
}

unsigned Blocks(int n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

}  // namespace

cudaError_t LaunchTradingReset(const TradingDevice& env, float* obs, cudaStream_t stream) {
  if (env.n < 1) return cudaErrorInvalidValue;
  ResetKernel<<<Blocks(env.n), kThreads, 0, stream>>>(env, obs);
  return cudaGetLastError();
}

cudaError_t LaunchTradingStep(const TradingDevice& env, const int32_t* actions, const EnvStepOut& out, cudaStream_t stream) {
  if (env.n < 1) return cudaErrorInvalidValue;
  const size_t staged = 2 * sizeof(float) * kThreads * static_cast<size_t>(trading::ObsDim(env.params));
  if (staged <= kStagedBytes)
    StepKernel<true><<<Blocks(env.n), kThreads, staged, stream>>>(env, actions, out);
  else
    StepKernel<false><<<Blocks(env.n), kThreads, 0, stream>>>(env, actions, out);
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
