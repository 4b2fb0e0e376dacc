// Trading copies on the device, one thread per copy, running the host copy's step and reset
// (env/trading_step.h); launchers declared in env_launch.cuh.
//
// A copy's observation rows (ObsDim floats, 51 at lags 7) are far apart for neighbouring threads,
// so a thread writing its rows straight to global memory touches a cache sector per float (on
// the H200 at 65,536 copies: 220 us a step for rows of 100 floats written so, 46 us for rows of
// 93 staged). The step kernel therefore stages the block's rows in shared memory (the same
// StepCopy writing there) and the block copies them out with consecutive threads on consecutive
// floats: 64 copies a block up to 96 floats a row, 32 up to 192 (lags 16, the config's bound, is
// 114); wider rows are written directly.
#include "kernels/env_trading.cuh"

namespace dqn::cuda::detail {
namespace {

constexpr int kThreads = 64;             // copies per block (reset, and steps with rows up to 96 floats)
constexpr int kStagedBytes = 48 * 1024;  // shared memory a block may stage without an opt-in

/// Shared memory of a block of `copies` staging both rows of each: [2 x copies x d] floats.
constexpr size_t StagedBytes(int copies, int d) { return 2 * sizeof(float) * static_cast<size_t>(copies) * static_cast<size_t>(d); }

__global__ void __launch_bounds__(kThreads) ResetKernel(TradingDevice env, float* obs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= env.n) return;
  trading::CopyState c;
  Rng rng = LoadCopyRng(env.rng, i);
  trading::Restart(env.walk, env.params, c, rng);
  trading::WriteObs(env.walk, env.params, c, trading::Bar(env.walk, c), obs + static_cast<int64_t>(trading::ObsDim(env.params)) * i);
  env.copies[i] = c;
  StoreCopyRng(env.rng, i, rng);
}

/// kBlock copies a block; kStaged: the block's rows go through shared memory (StagedBytes(kBlock, d)).
template <int kBlock, bool kStaged>
__global__ void __launch_bounds__(kBlock) StepKernel(TradingDevice env, const int32_t* actions, EnvStepOut out) {
  const int first = blockIdx.x * kBlock;
  const int i = first + threadIdx.x;
  const int d = trading::ObsDim(env.params);
  if constexpr (!kStaged) {
    if (i >= env.n) return;
    const int64_t row = static_cast<int64_t>(d) * i;
    StepTradingCopy(env, i, actions[i], out.next_obs + row, out.rewards[i], out.terminated[i], out.truncated[i], out.final_obs + row);
  } else {
    extern __shared__ float rows[];  // [kBlock x d] final rows, then [kBlock x d] next rows
    float* final_rows = rows;
    float* next_rows = rows + kBlock * d;
    if (i < env.n)
      StepTradingCopy(env, i, actions[i], next_rows + threadIdx.x * d, out.rewards[i], out.terminated[i], out.truncated[i],
                      final_rows + threadIdx.x * d);
    __syncthreads();
    const int copies = env.n - first < kBlock ? env.n - first : kBlock;
    const int count = copies * d;  // the block's rows are contiguous in both outputs
    const int64_t base = static_cast<int64_t>(d) * first;
    for (int k = threadIdx.x; k < count; k += kBlock) {
      out.final_obs[base + k] = final_rows[k];
      out.next_obs[base + k] = next_rows[k];
    }
  }
}

unsigned Blocks(int n, int block) { return static_cast<unsigned>((n + block - 1) / block); }

}  // namespace

int TradingStagedCopies(int obs_dim) {
  return StagedBytes(kThreads, obs_dim) <= kStagedBytes ? kThreads : StagedBytes(kThreads / 2, obs_dim) <= kStagedBytes ? kThreads / 2 : 0;
}

cudaError_t LaunchTradingReset(const TradingDevice& env, float* obs, cudaStream_t stream) {
  if (env.n < 1) return cudaErrorInvalidValue;
  ResetKernel<<<Blocks(env.n, kThreads), kThreads, 0, stream>>>(env, obs);
  return cudaGetLastError();
}

cudaError_t LaunchTradingStep(const TradingDevice& env, const int32_t* actions, const EnvStepOut& out, cudaStream_t stream) {
  if (env.n < 1) return cudaErrorInvalidValue;
  const int d = trading::ObsDim(env.params);
  switch (TradingStagedCopies(d)) {
    case kThreads:
      StepKernel<kThreads, true><<<Blocks(env.n, kThreads), kThreads, StagedBytes(kThreads, d), stream>>>(env, actions, out);
      break;
    case kThreads / 2:
      StepKernel<kThreads / 2, true><<<Blocks(env.n, kThreads / 2), kThreads / 2, StagedBytes(kThreads / 2, d), stream>>>(env, actions, out);
      break;
    default:
      StepKernel<kThreads, false><<<Blocks(env.n, kThreads), kThreads, 0, stream>>>(env, actions, out);
  }
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
