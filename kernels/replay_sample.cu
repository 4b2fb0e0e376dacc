// Sampling kernel of the CUDA replay: draws B slots (proportional: stratified sum-tree descent;
// rank-based: stratified inverse power-law CDF; uniform), gathers the transitions, computes the
// IS weights, and in its last block normalises them (batch-max option), takes their mean and
// advances the Philox counter and the beta schedule. One launch, no host sync: capturable.
#include <cuda_runtime.h>

#include "kernels/philox.cuh"
#include "kernels/replay_launch.cuh"
#include "kernels/replay_tree.cuh"

namespace dqn::cuda::detail {
namespace {

constexpr int kSampleThreads = 128;

/// Rank r in [0, n) with cdf[r-1] <= target < cdf[r] (binary search), the last rank if none.
__device__ int64_t RankOf(const double* cdf, int64_t n, double target) {
  int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const int64_t mid = (lo + hi) >> 1;
    if (target < cdf[mid]) hi = mid; else lo = mid + 1;
  }
  return lo;
}

template <int K, bool kBf16>
__global__ void __launch_bounds__(kSampleThreads) SampleKernel(ReplayView v, SampleView out, int64_t batch) {
  const DeviceState& st = *v.state;
  const int64_t size = st.size;
  const uint64_t call = st.rng_calls;
  const double beta = BetaAt(v, st.sample_steps);
  const int lane = threadIdx.x & 31;
  const int64_t i = (static_cast<int64_t>(blockIdx.x) * kSampleThreads + threadIdx.x) / K;  // sample of this group
  const bool active = i < batch;

  // One Philox block per sample: counter (i, call, 0), key = seed.
  const Philox4x32 r = Philox4x32_10(
      Philox4x32{{static_cast<uint32_t>(i), static_cast<uint32_t>(call), static_cast<uint32_t>(call >> 32), 0u}}, v.seed);
  const double u = UniformDouble(r.v[0], r.v[1]);
  const double stratum = (static_cast<double>(i) + u) / static_cast<double>(batch);

  int64_t slot = 0;
  double weight = 1.0;
  if (v.sampler == SamplerKind::kProportional) {
    const double total = v.sum[0];
    const double m = fmin(stratum * total, Below(total));
    slot = Descend<K>(v, m);
    const double p = v.sum[v.tree.offset[v.tree.levels] + slot];
    weight = v.batch_max_weights ? pow(static_cast<double>(size) * p / total, -beta) : pow(p / v.min[0], -beta);
  } else if (v.sampler == SamplerKind::kRank) {
    const int64_t n = st.sorted_size;
    const int64_t rank = RankOf(v.rank_cdf, n, stratum * v.rank_cdf[n - 1]);
    slot = v.rank_slots[rank];
    // P(rank) = (rank+1)^-alpha / H_n; the smallest is P(n). w = (P/P_min)^-beta = ((rank+1)/n)^(alpha beta);
    // batch-max: (n P)^-beta, normalised below.
    weight = v.batch_max_weights ? pow(static_cast<double>(n) * pow(static_cast<double>(rank + 1), -v.alpha) / v.rank_cdf[n - 1], -beta)
                                 : pow(static_cast<double>(rank + 1) / static_cast<double>(n), v.alpha * beta);
  } else {
    slot = static_cast<int64_t>(u * static_cast<double>(size));
  }
  slot = slot < size ? slot : size - 1;

  if (active && (threadIdx.x & (K - 1)) == 0) {
    out.indices[i] = static_cast<int32_t>(slot);
    out.generations[i] = v.generations[slot];
    out.weights[i] = static_cast<float>(weight);
    out.actions[i] = v.actions[slot];
    out.rewards[i] = v.rewards[slot];
    out.dones[i] = v.dones[slot];
    out.discounts[i] = v.discounts[slot];
  }
  // Gather the state rows: the whole warp copies each of its 32/K samples in turn.
  const int d = v.state_dim;
  const int64_t warp_first = i - (lane / K);
#pragma unroll 1
  for (int s = 0; s < 32 / K; ++s) {
    const int64_t row = __shfl_sync(0xffffffffu, slot, s * K);
    const int64_t b = warp_first + s;
    if (b >= batch) break;
    for (int k = lane; k < d; k += 32) {
      out.states[b * d + k] = LoadState<kBf16>(v.states, row * d + k);
      out.next_states[b * d + k] = LoadState<kBf16>(v.next_states, row * d + k);
    }
  }

  // The last block to finish normalises (batch max), averages, and advances the counters.
  __shared__ bool is_last;
  __shared__ double red[kSampleThreads / 32];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    is_last = atomicAdd(&v.state->blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  double wmax = 0;
  if (v.batch_max_weights) {
    for (int64_t b = threadIdx.x; b < batch; b += kSampleThreads) wmax = fmax(wmax, static_cast<double>(__ldcg(out.weights + b)));
    for (int off = 16; off > 0; off >>= 1) wmax = fmax(wmax, __shfl_xor_sync(0xffffffffu, wmax, off));
    if (lane == 0) red[threadIdx.x / 32] = wmax;
    __syncthreads();
    wmax = red[0];
    for (int w = 1; w < kSampleThreads / 32; ++w) wmax = fmax(wmax, red[w]);
    __syncthreads();
  }
  double sum = 0;
  for (int64_t b = threadIdx.x; b < batch; b += kSampleThreads) {
    float w = __ldcg(out.weights + b);
    if (v.batch_max_weights) {
      w = static_cast<float>(static_cast<double>(w) / wmax);
      out.weights[b] = w;
    }
    sum += w;
  }
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (lane == 0) red[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total = 0;
    for (int w = 0; w < kSampleThreads / 32; ++w) total += red[w];
    DeviceState& ws = *v.state;
    ws.weight_mean = total / static_cast<double>(batch);
    ws.beta_used = beta;
    ws.sample_steps += 1;
    ws.rng_calls += 1;
    ws.blocks_done = 0;
  }
}

}  // namespace

cudaError_t LaunchSample(const ReplayView& v, const SampleView& out, int64_t batch, cudaStream_t stream) {
  if (batch <= 0) return cudaErrorInvalidValue;
  DQN_FANOUT_SWITCH(v.tree.fan_log, K, {
    const int64_t threads = batch * K;
    const unsigned grid = static_cast<unsigned>((threads + kSampleThreads - 1) / kSampleThreads);
    if (v.state_bf16) SampleKernel<K, true><<<grid, kSampleThreads, 0, stream>>>(v, out, batch);
    else SampleKernel<K, false><<<grid, kSampleThreads, 0, stream>>>(v, out, batch);
  })
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
