// Priority-update kernel of the CUDA replay (DESIGN section 3), with the CPU reference's rules:
// per distinct slot only the batch's last entry counts (the others are duplicates); that entry
// is rejected when its TD error is NaN/Inf, dropped as stale when its generation differs from
// the slot's, else applied; max_priority becomes the max of itself and the applied |td|.
// (The host path rejects indices outside [0, size) before launching, as the CPU does; on the
// device path such an entry is counted as stale and ignored.)
// One block processes the batch in chunks that it sorts by slot in shared memory (CUB
// BlockRadixSort, stable, so the last entry of each run of equal slots is the last writer).
// Chunks run from the batch's end to its start, and a per-slot epoch mark tells an earlier chunk
// that a later one already decided the slot, so the last entry wins across chunks too. The ancestors
// of the written leaves are then recomputed from their children level by level, one thread per
// distinct node and a block barrier between levels: no atomics on sums, no full rebuild.
#include <cuda_runtime.h>

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "kernels/replay_launch.cuh"
#include "kernels/replay_tree.cuh"

namespace dqn::cuda::detail {
namespace {

/// Bits needed to hold values in [0, x].
int BitsFor(int64_t x) {
  int b = 1;
  while ((int64_t{1} << b) <= x) ++b;
  return b;
}

constexpr int32_t kPositionMask = 0xffff, kFinite = 1 << 16, kCurrent = 1 << 17;

template <int K, int kThreads, int kItems>
__global__ void __launch_bounds__(kThreads, 1)
UpdateKernel(ReplayView v, const int32_t* indices, const uint32_t* generations, const float* td_errors,
             int64_t n, int key_bits) {
  constexpr int kChunk = kThreads * kItems;
  using Sort = cub::BlockRadixSort<uint32_t, kThreads, kItems, int32_t>;
  using Scan = cub::BlockScan<int32_t, kThreads>;
  __shared__ union {
    typename Sort::TempStorage sort;
    uint32_t leaves[kChunk];  // winners' slots in ascending order
  } sm;
  __shared__ typename Scan::TempStorage scan_tmp;
  __shared__ uint32_t warp_first[kThreads / 32 + 1];
  __shared__ unsigned long long counts[4];  // applied, rejected, stale, duplicates
  __shared__ unsigned int max_bits;         // max applied |td|, as f32 bits (order-preserving for >= 0)
  __shared__ int32_t winners;

  const DeviceState& st = *v.state;
  const int64_t size = st.size;
  const uint32_t tag = st.update_epoch + 1;
  const uint32_t sentinel = static_cast<uint32_t>(v.capacity);
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  double* leaf_base = v.sum + v.tree.offset[v.tree.levels];
  if (threadIdx.x < 4) counts[threadIdx.x] = 0;
  if (threadIdx.x == 0) max_bits = 0;
  unsigned applied = 0, rejected = 0, stale = 0, dups = 0;  // per thread: at most n <= 2^20
  unsigned int local_max = 0;

  for (int64_t c = chunks - 1; c >= 0; --c) {
    const int64_t chunk_first = c * kChunk;
    uint32_t key[kItems];
    int32_t pos[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int32_t local = threadIdx.x * kItems + k;
      const int64_t e = chunk_first + local;
      key[k] = sentinel;
      pos[k] = local;
      if (e < n) {
        // Classify before the sort, so the generation load overlaps with it: the value carries
        // the entry's position and whether its TD error is finite and its generation current.
        const int64_t slot = indices[e];
        if (slot < 0 || slot >= size) {
          ++stale;
        } else {
          key[k] = static_cast<uint32_t>(slot);
          pos[k] |= (isfinite(td_errors[e]) ? kFinite : 0) | (v.generations[slot] == generations[e] ? kCurrent : 0);
        }
      }
    }
    __syncthreads();  // the previous chunk is done with sm.leaves
    Sort(sm.sort).Sort(key, pos, 0, key_bits);
    // Each thread now holds sorted keys [threadIdx.x*kItems, +kItems); the next key after its
    // last one is the first key of the next thread.
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t next_first = __shfl_down_sync(0xffffffffu, key[0], 1);
    if (lane == 0) warp_first[warp] = key[0];
    if (threadIdx.x == 0) warp_first[kThreads / 32] = sentinel;
    __syncthreads();
    if (lane == 31) next_first = warp_first[warp + 1];
    int32_t win[kItems];
    int32_t my_winners = 0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const uint32_t next = k + 1 < kItems ? key[k + 1] : next_first;
      win[k] = 0;
      if (key[k] == sentinel) continue;
      if (key[k] == next) { ++dups; continue; }
      if (chunks > 1) {
        if (v.marks[key[k]] == tag) { ++dups; continue; }
        v.marks[key[k]] = tag;
      }
      if (!(pos[k] & kFinite)) { ++rejected; continue; }
      if (!(pos[k] & kCurrent)) { ++stale; continue; }
      const float td = td_errors[chunk_first + (pos[k] & kPositionMask)];
      leaf_base[key[k]] = LeafPriority(fabsf(td), v);
      local_max = max(local_max, __float_as_uint(fabsf(td)));
      win[k] = 1;
      ++applied;
      ++my_winners;
    }
    int32_t first_out = 0, chunk_winners = 0;
    __syncthreads();  // sort storage is reused as the winners list
    Scan(scan_tmp).ExclusiveSum(my_winners, first_out, chunk_winners);
#pragma unroll
    for (int k = 0; k < kItems; ++k)
      if (win[k]) sm.leaves[first_out++] = key[k];
    if (threadIdx.x == 0) winners = chunk_winners;
    __syncthreads();
    const int32_t w_count = winners;
    // Recompute every touched ancestor from its children, bottom level first.
    for (int l = v.tree.levels - 1; l >= 0; --l) {
      const int shift = v.tree.fan_log * (v.tree.levels - l);
      for (int32_t w = threadIdx.x; w < w_count; w += kThreads) {
        const uint32_t node = sm.leaves[w] >> shift;
        if (w == 0 || (sm.leaves[w - 1] >> shift) != node) RecomputeNode<K>(v, l, node);
      }
      __syncthreads();
    }
  }

  // Warp sums first, one shared atomic per warp and counter (contended shared atomics from every
  // thread serialize: they cost more than the rest of the kernel).
  const unsigned c_applied = __reduce_add_sync(0xffffffffu, applied), c_rejected = __reduce_add_sync(0xffffffffu, rejected);
  const unsigned c_stale = __reduce_add_sync(0xffffffffu, stale), c_dups = __reduce_add_sync(0xffffffffu, dups);
  const unsigned c_max = __reduce_max_sync(0xffffffffu, local_max);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&counts[0], static_cast<unsigned long long>(c_applied));
    atomicAdd(&counts[1], static_cast<unsigned long long>(c_rejected));
    atomicAdd(&counts[2], static_cast<unsigned long long>(c_stale));
    atomicAdd(&counts[3], static_cast<unsigned long long>(c_dups));
    atomicMax(&max_bits, c_max);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    DeviceState& ws = *v.state;
    UpdateCounts last;
    last.applied = static_cast<int64_t>(counts[0]);
    last.rejected_nonfinite = static_cast<int64_t>(counts[1]);
    last.stale = static_cast<int64_t>(counts[2]);
    last.duplicates = static_cast<int64_t>(counts[3]);
    ws.last_update = last;
    ws.total_update.applied += last.applied;
    ws.total_update.rejected_nonfinite += last.rejected_nonfinite;
    ws.total_update.stale += last.stale;
    ws.total_update.duplicates += last.duplicates;
    ws.max_priority = fmax(ws.max_priority, static_cast<double>(__uint_as_float(max_bits)));
    ws.update_epoch = tag;
  }
}

}  // namespace

cudaError_t LaunchUpdate(const ReplayView& v, const int32_t* indices, const uint32_t* generations,
                         const float* td_errors, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const int key_bits = BitsFor(v.capacity);
  DQN_FANOUT_SWITCH(v.tree.fan_log, K, {
    if (n <= 512) UpdateKernel<K, 256, 2><<<1, 256, 0, stream>>>(v, indices, generations, td_errors, n, key_bits);
    else UpdateKernel<K, 512, 8><<<1, 512, 0, stream>>>(v, indices, generations, td_errors, n, key_bits);
  })
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
