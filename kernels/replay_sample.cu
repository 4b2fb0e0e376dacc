// Sampling kernel of the CUDA replay: draws B slots (proportional: stratified sum-tree descent;
// rank-based: stratified inversion of the power-law CDF; uniform), gathers the transitions and
// computes the IS weights; with batch-max normalisation (option) its last block divides by the
// batch's largest weight. The blocks advance the call counter (beta schedule, Philox counter)
// with one atomic each (DeviceState::sample_ticks). One launch, no host sync: capturable in a
// CUDA graph.
// Random numbers, masses, probabilities and weights follow the CPU reference
// (replay/cpu_replay.cpp) expression by expression, so both backends draw the same numbers.
#include <cuda_runtime.h>

#include "kernels/replay_chain.cuh"
#include "kernels/replay_launch.cuh"
#include "kernels/replay_tree.cuh"
#include "replay/philox.h"
#include "rules/step_rules.h"

namespace dqn::cuda::detail {
namespace {

constexpr int kSampleThreads = kTopThreads;
/// Shared-memory copy of the tree's levels 1 .. P (the partition level), read by every descent
/// of the block: level P - 1 holds at most 32 nodes, level P at most 32 K (32 + 32 * 32 at K = 32;
/// fewer in all at K = 16 and 2). LaunchSample checks that the layout fits.
constexpr int kTopNodes = 32 + 32 * 32;
/// State elements per lane and array that the gather loads before it stores them.
constexpr int kGatherChunk = 8;

/// Rank r in [1, n] with C(r - 1) <= m < C(r) (the CPU's upper_bound over C(1..n)).
__device__ int64_t RankOf(const double* cdf, int64_t n, double m) {
  int64_t lo = 1, hi = n + 1;  // first r in [1, n] with C(r) > m, n + 1 if none
  while (lo < hi) {
    const int64_t mid = (lo + hi) >> 1;
    if (m < cdf[mid]) hi = mid; else lo = mid + 1;
  }
  return lo <= n ? lo : n;
}

template <int K, bool kBf16>
__global__ void __launch_bounds__(kSampleThreads)
    SampleKernel(const __grid_constant__ ReplayView v, const __grid_constant__ SampleView out, int64_t batch) {
  __shared__ double top[kTopNodes];
  __shared__ TopShared top_shared;
  __shared__ uint64_t ticket;
  __shared__ int64_t offset[kMaxTreeLevels + 1];
  WarmParams(v);
  WarmParams(out, 4);  // warps 4..6: ReplayView's 13 reads (768 bytes) wrap around onto warps 0..4
  StageOffsets(v, offset);
  WaitForPriorGrids();
  AllowNextGrid();
  // Every global access of the prologue is issued before the first use of any of them: this
  // block's share of the call counter (see DeviceState::sample_ticks), level P of the trees
  // and the size. The barrier then waits for one round trip, not for a chain of them. The
  // levels above P are derived here from level P (the update does not store them).
  uint64_t my_ticket = 0;
  if (threadIdx.x == 0) {
    const uint64_t share = kTicksPerSample / gridDim.x + (blockIdx.x < kTicksPerSample % gridDim.x ? 1 : 0);
    my_ticket = atomicAdd(reinterpret_cast<unsigned long long*>(&v.state->sample_ticks), share);
  }
  const bool proportional = v.sampler == SamplerKind::kProportional;
  TopChunk<K> chunk;
  if (proportional) chunk = LoadTopChunk<K>(v);
  const DeviceState& st = *v.state;
  const int64_t size = st.size;
  if (proportional) StageTop<K, false>(chunk, v, top, top_shared);
  if (threadIdx.x == 0) ticket = my_ticket;
  __syncthreads();  // `top`, level P - 1, the warps' shares, `ticket` and `offset` are in
  double total = 0, min_leaf = 0;  // the roots of the sum and min trees (proportional)
  if (proportional) {
    RootFromWarps(top_shared, total, min_leaf);
    // Levels P - 2 .. 1 (only K < 32 trees have them) go to `top` from warp 0.
    if (v.tree.part_level > 2) {
      if (threadIdx.x < 32)
        StoreUpperLevels<K, false>(v, top_shared, [&](int l, int j, double sum, double) { top[offset[l] - offset[1] + j] = sum; });
      __syncthreads();
    }
  }
  const int64_t step = static_cast<int64_t>(ticket / kTicksPerSample);
  const double beta = rules::BetaAt(v.beta0, v.beta_steps, step);
  const int lane = threadIdx.x & 31;
  const int64_t k = (static_cast<int64_t>(blockIdx.x) * kSampleThreads + threadIdx.x) / K;  // draw of this group
  const bool active = k < batch;

  // Draw k of call `step`: counter {k, 0, low32(step), high32(step)}, key = seed (as on the CPU).
  const PhiloxCounter bits = Philox4x32_10(
      {static_cast<uint32_t>(k), 0u, static_cast<uint32_t>(step), static_cast<uint32_t>(step >> 32)},
      {v.seed[0], v.seed[1]});
  const double u = UniformFromBits(bits[0], bits[1]);

  int64_t slot;
  double p, p_min;  // P(slot) and the smallest P over the stored slots
  if (v.sampler == SamplerKind::kProportional) {
    const double m = fmin((static_cast<double>(k) + u) * (total / static_cast<double>(batch)), Below(total));
    double leaf;
    slot = Descend<K>(v, offset, m, top, v.tree.part_level, leaf);
    p = leaf / total;
    p_min = min_leaf / total;
  } else if (v.sampler == SamplerKind::kRank) {
    const double rank_total = v.rank_cdf[size];
    const double m = fmin((static_cast<double>(k) + u) * (rank_total / static_cast<double>(batch)), Below(rank_total));
    const int64_t r = RankOf(v.rank_cdf, size, m);
    // Slots added since the last sort hold the max priority: they rank first, newest first.
    const int64_t added = size - st.sorted_size;
    slot = r <= added ? size - r : v.rank_slots[r - added - 1];
    p = (v.rank_cdf[r] - v.rank_cdf[r - 1]) / rank_total;  // the width of rank r's interval, as on the CPU
    p_min = (v.rank_cdf[size] - v.rank_cdf[size - 1]) / rank_total;
  } else {
    slot = static_cast<int64_t>(floor(u * static_cast<double>(size)));
    p = p_min = 1.0 / static_cast<double>(size);
  }
  slot = slot < size ? slot : size - 1;

  // Gather. Every load (the draw's fields by the group's first lane, the state rows by the whole
  // warp) is issued before the stores that depend on it, chunk by chunk: a load written after a
  // store to `out` could not be moved above it (they might alias), so interleaving them would
  // cost one memory round trip per field.
  const bool leader = active && (threadIdx.x & (K - 1)) == 0;
  uint32_t generation = 0;
  int32_t action = 0;
  float reward = 0, discount = 0;
  uint8_t done = 0;
  if (leader) {
    generation = __ldg(v.generations + slot);
    action = __ldg(v.actions + slot);
    reward = __ldg(v.rewards + slot);
    done = __ldg(v.dones + slot);
    discount = __ldg(v.discounts + slot);
  }
  // The warp's draws warp_first .. warp_first + rows - 1 have contiguous output rows: element e
  // of that block (row e / d) comes from the slot held by lane (e / d) * K.
  const int d = v.state_dim;
  const int64_t warp_first = k - lane / K;
  const int rows = static_cast<int>(min(static_cast<int64_t>(32 / K), max(batch - warp_first, int64_t{0})));
  const int elems = rows * d;  // the same in every lane of the warp: the loop below is warp-uniform
  float weight = 0;
  float* out_states = out.states + warp_first * d;
  float* out_next = out.next_states + warp_first * d;
#pragma unroll 1
  for (int first = 0; first < elems; first += 32 * kGatherChunk) {
    float a[kGatherChunk], b[kGatherChunk];
#pragma unroll
    for (int j = 0; j < kGatherChunk; ++j) {
      const int e = first + j * 32 + lane;
      int r = 0;
      int64_t row = slot;  // K == 32: one draw per warp, every lane holds its slot
      if constexpr (K < 32) {
        r = min(e / d, rows - 1);
        row = __shfl_sync(0xffffffffu, slot, r * K);
      }
      const int64_t at = row * d + (e - r * d);
      a[j] = e < elems ? LoadState<kBf16>(v.states, at) : 0.f;
      b[j] = e < elems ? LoadState<kBf16>(v.next_states, at) : 0.f;
    }
    // The IS weight's pow runs while the first chunk's loads are in flight (state_dim >= 1, so
    // every warp with a draw runs this loop).
    if (first == 0 && leader && !v.batch_max_weights) weight = static_cast<float>(IsWeight(p_min / p, beta));
#pragma unroll
    for (int j = 0; j < kGatherChunk; ++j) {
      const int e = first + j * 32 + lane;
      if (e < elems) {
        out_states[e] = a[j];
        out_next[e] = b[j];
      }
    }
  }
  if (leader) {
    out.indices[k] = static_cast<int32_t>(slot);
    out.generations[k] = generation;
    out.probabilities[k] = p;
    if (!v.batch_max_weights) out.weights[k] = weight;
    out.actions[k] = action;
    out.rewards[k] = reward;
    out.dones[k] = done;
    out.discounts[k] = discount;
  }
  if (!v.batch_max_weights) return;

  // Batch-max normalisation: the last block to finish divides by the batch's largest weight.
  __shared__ bool is_last;
  __shared__ double red[kSampleThreads / 32];
  __syncthreads();
  if (threadIdx.x == 0) is_last = ArriveAcqRel(&v.state->blocks_done) == gridDim.x - 1;
  __syncthreads();
  if (!is_last) return;
  double pmin = INFINITY;
  for (int64_t b = threadIdx.x; b < batch; b += kSampleThreads) pmin = fmin(pmin, __ldcg(out.probabilities + b));
  for (int off = 16; off > 0; off >>= 1) pmin = fmin(pmin, __shfl_xor_sync(0xffffffffu, pmin, off));
  if (lane == 0) red[threadIdx.x / 32] = pmin;
  __syncthreads();
  pmin = red[0];
  for (int w = 1; w < kSampleThreads / 32; ++w) pmin = fmin(pmin, red[w]);
  for (int64_t b = threadIdx.x; b < batch; b += kSampleThreads)
    out.weights[b] = static_cast<float>(IsWeight(pmin / __ldcg(out.probabilities + b), beta));
  if (threadIdx.x == 0) v.state->blocks_done = 0;
}

__global__ void NeverRunsKernel() {}

}  // namespace

cudaError_t LaunchInvalidConfiguration(cudaStream_t stream) {
  NeverRunsKernel<<<1, 4096, 0, stream>>>();  // 4096 threads per block: more than any GPU allows
  return cudaGetLastError();
}

cudaError_t LaunchSample(const ReplayView& v, const SampleView& out, int64_t batch, cudaStream_t stream) {
  if (batch <= 0) return cudaErrorInvalidValue;
  const int P = v.tree.part_level;
  if (v.tree.offset[P] + v.tree.count[P] - v.tree.offset[1] > kTopNodes) return cudaErrorInvalidConfiguration;
  DQN_FANOUT_SWITCH(v.tree.fan_log, K, {
    const int64_t threads = batch * K;
    const unsigned grid = static_cast<unsigned>((threads + kSampleThreads - 1) / kSampleThreads);
    const auto kernel = v.state_bf16 ? SampleKernel<K, true> : SampleKernel<K, false>;
    return LaunchChained(v.chained_launches, v.l2_window, 0, kernel, grid, kSampleThreads, 0, stream, v, out, batch);
  })
  return cudaErrorInvalidValue;  // not reached: every fan-out case returns
}

}  // namespace dqn::cuda::detail
