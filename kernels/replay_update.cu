// Priority-update kernel of the CUDA replay (DESIGN section 3), with the CPU reference's rules:
// per distinct slot only the batch's last entry counts (the others are duplicates); that entry
// is rejected when its TD error is NaN/Inf, dropped as stale when its generation differs from
// the slot's, else applied; max_priority becomes the max of itself and the applied |td|.
// (The host path rejects indices outside [0, size) before launching, as the CPU does; on the
// device path such an entry is counted as stale and ignored.)
//
// Multi-block, one launch. The tree is cut at a partition level P: block g owns a contiguous
// range of level-P nodes, hence the slots and every node under them, so it can recompute its
// part of the tree level by level with block barriers only. Each block reads all entries and
// keeps those in its range; the last entry per slot wins through a shared-memory hash table
// (slot -> largest batch position, atomicMax). Batches longer than one window (4096 entries)
// are taken window by window from the batch's end, and a per-slot epoch mark tells an earlier
// window that a later one already decided the slot. The ancestors of the written leaves are
// recomputed from their children level by level inside the block (a bitmap per level lets one
// thread per distinct node do it); the last block to finish (atomic counter) recomputes the
// few nodes above level P, bottom up, keeping small levels in shared memory, and moves the
// update's counts into the device state. No atomics on sums, no full rebuild.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/replay_chain.cuh"
#include "kernels/replay_launch.cuh"
#include "kernels/replay_tree.cuh"

namespace dqn::cuda::detail {
namespace {

constexpr int kThreads = 512;
constexpr int kItems = 8;                      // entries per thread per window
constexpr int kWindow = kThreads * kItems;     // 4096 entries
constexpr int kMaxHashBits = 13;               // 2 * kWindow table entries (64 KB)
constexpr int kBitmapWords = 1024;             // 32768 claim bits for the in-block levels
constexpr int64_t kEntriesPerBlock = 16;       // grid size target: about this many entries per block
constexpr int64_t kTopPartitionNodes = 32;     // levels above P hold at most this many needed nodes
constexpr int kTopCache = 256;                 // top levels of at most this many nodes stay in shared memory
constexpr unsigned long long kEmpty = ~0ull;

/// Host-computed shape of one update launch.
struct UpdatePlan {
  int part_level = 0;       ///< P: blocks own ranges of level-P nodes
  int64_t part_nodes = 0;   ///< level-P nodes that cover stored slots
  int hash_bits = 6;        ///< log2 of the hash table's entries
  unsigned blocks = 1;
};

/// Inserts (slot, pos) into the open-addressing table (key slot, value the largest pos seen)
/// and returns the entry's index. Slots are < 2^31, so no key equals kEmpty.
__device__ __forceinline__ uint32_t HashInsert(unsigned long long* table, int bits, uint32_t slot, uint32_t pos) {
  const unsigned long long mine = (static_cast<unsigned long long>(slot) << 32) | pos;
  const uint32_t mask = (1u << bits) - 1u;
  uint32_t h = (slot * 0x9E3779B1u) >> (32 - bits);
  while (true) {
    const unsigned long long old = atomicCAS(&table[h], kEmpty, mine);
    if (old == kEmpty) return h;
    if (static_cast<uint32_t>(old >> 32) == slot) {
      atomicMax(&table[h], mine);
      return h;
    }
    h = (h + 1u) & mask;
  }
}

template <int K>
__global__ void __launch_bounds__(kThreads) UpdateKernel(ReplayView v, UpdatePlan plan, const int32_t* indices,
                                                         const uint32_t* generations, const float* td_errors, int64_t n) {
  extern __shared__ unsigned long long table[];
  __shared__ uint32_t claimed[kBitmapWords];
  __shared__ double cache_sum[2][kTopCache], cache_min[2][kTopCache];
  __shared__ unsigned long long counts[4];  // applied, rejected, stale, duplicates
  __shared__ unsigned int max_bits;         // max applied |td|, as f32 bits (order-preserving for >= 0)
  __shared__ bool is_last;
  __shared__ int64_t offset[kMaxTreeLevels + 1];
  const uint32_t table_size = 1u << plan.hash_bits;
  const auto clear_shared = [&] {
    for (uint32_t i = threadIdx.x; i < table_size; i += kThreads) table[i] = kEmpty;
    for (int i = threadIdx.x; i < kBitmapWords; i += kThreads) claimed[i] = 0;
  };
  // Shared-memory set-up touches no global memory: it overlaps the previous kernel's tail.
  clear_shared();
  if (threadIdx.x < 4) counts[threadIdx.x] = 0;
  if (threadIdx.x == 0) max_bits = 0;
  StageOffsets(v, offset);
  WaitForPriorGrids();
  AllowNextGrid();

  DeviceState& ws = *v.state;
  // State that only the last block writes, at its very end: loaded now, off the critical path.
  UpdateCounts total;
  double max_priority = 0;
  if (threadIdx.x == 0) {
    total = ws.total_update;
    max_priority = ws.max_priority;
  }
  const int64_t size = ws.size;
  const uint32_t tag = ws.update_epoch + 1;
  const int L = v.tree.levels, P = plan.part_level, f = v.tree.fan_log;
  const int64_t blocks = gridDim.x, g = blockIdx.x;
  const int64_t node_lo = g * plan.part_nodes / blocks, node_hi = (g + 1) * plan.part_nodes / blocks;
  const int64_t slot_lo = node_lo << (f * (L - P)), slot_hi = node_hi << (f * (L - P));
  const int64_t windows = (n + kWindow - 1) / kWindow;
  unsigned applied = 0, rejected = 0, stale = 0, dups = 0;  // per thread: at most n <= 2^20
  unsigned int local_max = 0;
  __syncthreads();  // shared set-up and `offset` done
  double* leaves = v.sum + offset[L];

  for (int64_t w = windows - 1; w >= 0; --w) {
    const int64_t first = w * kWindow;
    int32_t slot[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int64_t e = first + k * kThreads + threadIdx.x;
      slot[k] = e < n ? indices[e] : -1;
    }
    // Keep this block's entries and issue all their generation and TD loads first; the hash
    // inserts and the new leaf priorities (a pow off the dependent chain) follow while they fly.
    float td[kItems];
    uint32_t slot_gen[kItems], entry_gen[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int64_t e = first + k * kThreads + threadIdx.x;
      const int64_t s = slot[k];
      td[k] = 0;
      slot_gen[k] = entry_gen[k] = 0;
      if (e >= n) continue;
      if (s < 0 || s >= size) {
        if (g == 0) ++stale;
        slot[k] = -1;
        continue;
      }
      if (s < slot_lo || s >= slot_hi) {
        slot[k] = -1;
        continue;
      }
      td[k] = td_errors[e];
      slot_gen[k] = v.generations[s];
      entry_gen[k] = generations[e];
    }
    uint32_t at[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      at[k] = 0;
      if (slot[k] >= 0)
        at[k] = HashInsert(table, plan.hash_bits, static_cast<uint32_t>(slot[k]),
                           static_cast<uint32_t>(first + k * kThreads + threadIdx.x));
    }
    double priority[kItems];
    unsigned current = 0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      priority[k] = slot[k] >= 0 ? LeafPriority(fabsf(td[k]), v) : 0.0;
      if (slot[k] >= 0 && slot_gen[k] == entry_gen[k]) current |= 1u << k;
    }
    __syncthreads();  // every insert is in the table
    unsigned won = 0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (slot[k] < 0) continue;
      const int32_t s = slot[k];
      const uint32_t e = static_cast<uint32_t>(first + k * kThreads + threadIdx.x);
      if (static_cast<uint32_t>(table[at[k]]) != e) { ++dups; continue; }
      if (windows > 1) {
        if (v.marks[s] == tag) { ++dups; continue; }
        v.marks[s] = tag;
      }
      if (!isfinite(td[k])) { ++rejected; continue; }
      if (!(current >> k & 1u)) { ++stale; continue; }
      leaves[s] = priority[k];
      local_max = max(local_max, __float_as_uint(fabsf(td[k])));
      ++applied;
      won |= 1u << k;
    }
    __syncthreads();  // leaves written
    // Ancestors inside the block's range, bottom level first. Level l's claim bits cover the
    // block's nodes of that level; the thread that sets a node's bit recomputes it.
    int64_t bit_base = 0;
    for (int l = L - 1; l >= P; --l) {
      const int shift = f * (L - l);
      const int64_t level_lo = node_lo << (f * (l - P));
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        if (!(won >> k & 1u)) continue;
        const int64_t node = static_cast<int64_t>(slot[k]) >> shift;
        const int64_t bit = bit_base + node - level_lo;
        const uint32_t b = 1u << (bit & 31);
        if (!(atomicOr(&claimed[bit >> 5], b) & b)) RecomputeNode<K>(v, offset, l, node);
      }
      bit_base += (node_hi - node_lo) << (f * (l - P));
      __syncthreads();
    }
    if (w > 0) {
      clear_shared();
      __syncthreads();
    }
  }

  // Block counts: warp sums, one shared atomic per warp and counter, then one global atomic per
  // non-zero counter into the pending counts.
  const unsigned c_applied = __reduce_add_sync(0xffffffffu, applied), c_rejected = __reduce_add_sync(0xffffffffu, rejected);
  const unsigned c_stale = __reduce_add_sync(0xffffffffu, stale), c_dups = __reduce_add_sync(0xffffffffu, dups);
  const unsigned c_max = __reduce_max_sync(0xffffffffu, local_max);
  if ((threadIdx.x & 31) == 0) {
    if (c_applied) atomicAdd(&counts[0], static_cast<unsigned long long>(c_applied));
    if (c_rejected) atomicAdd(&counts[1], static_cast<unsigned long long>(c_rejected));
    if (c_stale) atomicAdd(&counts[2], static_cast<unsigned long long>(c_stale));
    if (c_dups) atomicAdd(&counts[3], static_cast<unsigned long long>(c_dups));
    if (c_max) atomicMax(&max_bits, c_max);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int c = 0; c < 4; ++c)
      if (counts[c]) atomicAdd(&ws.pending[c], counts[c]);
    if (max_bits) atomicMax(&ws.pending_max_bits, max_bits);
    is_last = ArriveAcqRel(&ws.update_blocks_done) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  // Take the pending counts now; their round trip overlaps the recomputation below.
  unsigned long long pending[4] = {0, 0, 0, 0};
  unsigned pending_max = 0;
  if (threadIdx.x == 0) {
    for (int c = 0; c < 4; ++c) pending[c] = atomicExch(&ws.pending[c], 0ull);
    pending_max = atomicExch(&ws.pending_max_bits, 0u);
  }

  // The last block: every needed node above level P, bottom up. A level of at most kTopCache
  // nodes is also kept in shared memory, and the level above it is computed from there (same
  // child order and rule as NodeValue; children past the needed ones are empty: 0 and +inf).
  for (int l = P - 1; l >= 0; --l) {
    const int64_t count = NeededNodes(v, l), below = NeededNodes(v, l + 1);
    const bool from_cache = l + 1 < P && below <= kTopCache, to_cache = count <= kTopCache;
    const double* prev_sum = cache_sum[(l + 1) & 1];
    const double* prev_min = cache_min[(l + 1) & 1];
    for (int64_t j = threadIdx.x; j < count; j += kThreads) {
      double s = 0, m = INFINITY;
      if (from_cache) {
        for (int64_t c = K * j; c < K * j + K && c < below; ++c) {
          s += prev_sum[c];
          m = fmin(m, prev_min[c]);
        }
      } else {
        NodeValue<K>(v, offset, l, j, s, m);
      }
      v.sum[offset[l] + j] = s;
      v.min[offset[l] + j] = m;
      if (to_cache) {
        cache_sum[l & 1][j] = s;
        cache_min[l & 1][j] = m;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    UpdateCounts last;
    last.applied = static_cast<int64_t>(pending[0]);
    last.rejected_nonfinite = static_cast<int64_t>(pending[1]);
    last.stale = static_cast<int64_t>(pending[2]);
    last.duplicates = static_cast<int64_t>(pending[3]);
    total.applied += last.applied;
    total.rejected_nonfinite += last.rejected_nonfinite;
    total.stale += last.stale;
    total.duplicates += last.duplicates;
    ws.last_update = last;
    ws.total_update = total;
    ws.max_priority = fmax(max_priority, static_cast<double>(__uint_as_float(pending_max)));
    ws.update_epoch = tag;
    ws.update_blocks_done = 0;
  }
}

/// Partition level, grid and hash size for an update of n entries: P is the first level below
/// the root with more than kTopPartitionNodes needed nodes (deeper when one block's claim bits
/// would not fit), about kEntriesPerBlock entries per block, at most two blocks per SM unless
/// the claim bits need more.
UpdatePlan PlanUpdate(const ReplayView& v, int64_t n) {
  const int levels = v.tree.levels, f = v.tree.fan_log;
  UpdatePlan plan;
  int p = 1;
  while (p < levels && NeededNodes(v, p) <= kTopPartitionNodes) ++p;
  const int64_t want = std::min<int64_t>((n + kEntriesPerBlock - 1) / kEntriesPerBlock, 2 * int64_t{v.sm_count});
  for (;; ++p) {
    const int64_t nodes = NeededNodes(v, p);
    int64_t bits_per_node = 0;
    for (int l = p; l < levels; ++l) bits_per_node += int64_t{1} << (f * (l - p));
    int64_t blocks = std::max<int64_t>(1, std::min(want, nodes));
    if (bits_per_node > 0) {
      const int64_t per_block = int64_t{kBitmapWords} * 32 / bits_per_node;
      if (per_block == 0) continue;
      blocks = std::max(blocks, (nodes + per_block - 1) / per_block);
    }
    plan.part_level = p;
    plan.part_nodes = nodes;
    plan.blocks = static_cast<unsigned>(blocks);
    break;
  }
  const int64_t entries = std::min<int64_t>(n, kWindow);
  plan.hash_bits = 6;
  while ((int64_t{1} << plan.hash_bits) < 2 * entries) ++plan.hash_bits;
  return plan;
}

}  // namespace

cudaError_t PrepareUpdateKernels() {
  static const cudaError_t once = [] {
    const int bytes = static_cast<int>(sizeof(unsigned long long)) << kMaxHashBits;
    cudaError_t e = cudaFuncSetAttribute(UpdateKernel<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(UpdateKernel<16>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(UpdateKernel<32>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    return e;
  }();
  return once;
}

cudaError_t LaunchUpdate(const ReplayView& v, const int32_t* indices, const uint32_t* generations,
                         const float* td_errors, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const UpdatePlan plan = PlanUpdate(v, n);
  const size_t smem = sizeof(unsigned long long) << plan.hash_bits;
  DQN_FANOUT_SWITCH(v.tree.fan_log, K, {
    return LaunchChained(v.chained_launches, UpdateKernel<K>, plan.blocks, kThreads, smem, stream, v, plan, indices,
                         generations, td_errors, n);
  })
  return cudaErrorInvalidValue;  // not reached: every fan-out case returns
}

}  // namespace dqn::cuda::detail
