// Priority-update kernel of the CUDA replay (DESIGN section 3), with the CPU reference's rules:
// per distinct slot only the batch's last entry counts (the others are duplicates); that entry
// is rejected when its TD error is NaN/Inf, dropped as stale when its generation differs from
// the slot's, else applied; max_priority becomes the max of itself and the applied |td|.
// (The host path rejects indices outside [0, size) before launching, as the CPU does; on the
// device path such an entry is counted as stale and ignored.)
//
// Built for latency: one launch of one thread-block cluster (Hopper), two dependent global
// round trips per window of the batch, everything else on chip, and the results written back
// at the end. The tree is cut at a partition level P (the first level below the root with more
// than 32 needed nodes); block r of the cluster owns a contiguous range of level-P nodes, hence
// the slots and every node under them.
//  1. Every block reads the window's entries and keeps those in its range; the batch's last
//     entry per slot wins through a shared-memory hash table (slot -> largest batch position).
//  2. For the winners: each slot's generation and, copied asynchronously (cp.async, coalesced),
//     the K-group of the slot's leaf and of each of its ancestors below level P, into shared-
//     memory slabs, one per distinct group (claimed through a second hash table). Half of the
//     block claims and copies; the other half computes the new leaf priorities (a pow) meanwhile.
//     Block 0 has copied levels 1..P into shared memory.
//  3. The new leaves go into their slabs; level by level, bottom up, a group of K lanes sums each
//     slab (pairwise, as ReduceChildren) into its parent, held in the parent's slab: every
//     touched ancestor is recomputed from its children, deterministically, with no atomics on
//     sums.
//  4. The blocks send their new level-P nodes and their counts to block 0 (distributed shared
//     memory); after a cluster barrier they write their slabs back to global memory, and block 0
//     recomputes the levels above P (at most 32 nodes each) and stores them with the counts.
// Windows: batches longer than kWindow entries are taken window by window from the batch's end,
// and a per-slot epoch mark tells an earlier window that a later one already decided the slot.
// Rounds: winners beyond what the slabs hold are taken in rounds; each round but the last
// writes its slabs back before the next one loads.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/replay_chain.cuh"
#include "kernels/replay_launch.cuh"
#include "kernels/replay_tree.cuh"

namespace dqn::cuda::detail {
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr int kHalf = kThreads / 2;            // threads [0, kHalf) claim and copy, the others compute priorities
constexpr int kClusterBlocks = 8;              // the portable cluster size
constexpr int kItems = 4;                      // entries per thread per window
constexpr int kWindow = kThreads * kItems;     // 2048 entries
constexpr int kStageItems = 3;                 // staged top nodes per thread (block 0)
constexpr int64_t kTopPartitionNodes = 32;     // levels above P hold at most this many needed nodes
constexpr unsigned long long kEmpty = ~0ull;

/// Host-computed shape of one update launch, with the byte offsets of the dynamic shared memory.
struct UpdatePlan {
  int part_level = 0;        ///< P: block r owns level-P nodes [r * part_nodes / C, (r + 1) * part_nodes / C)
  int part_nodes = 0;        ///< level-P nodes that cover stored slots (at most 32 K)
  int part_per_block = 0;    ///< most level-P nodes one block owns
  int window = 0;            ///< entries per window: min(n, kWindow)
  int entry_bits = 6;        ///< log2 entries of the slot table
  int group_bits = 6;        ///< log2 entries of the group table
  int round = 1;             ///< winners per round (slab capacity per level)
  int top_nodes = 0;         ///< staged nodes of levels 1..P
  // Byte offsets into the dynamic shared memory.
  unsigned leaf_slabs = 0, inner_slabs = 0, slab_parent = 0, top_sum = 0, top_min = 0, inbox_sum = 0, inbox_min = 0,
           part_sum = 0, part_min = 0, priority = 0, entry_table = 0, group_keys = 0, winner_slot = 0, winner_td = 0,
           winner_gen = 0, group_slab = 0, inbox_flag = 0, touched = 0, bytes = 0;
};

/// Inserts (slot, pos) into the open-addressing table (key slot, value the largest pos seen)
/// and returns the entry's index. Slots are < 2^31, so no key equals kEmpty.
__device__ __forceinline__ uint32_t EntryInsert(unsigned long long* table, int bits, uint32_t slot, uint32_t pos) {
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

/// Key of the K-group of level-l nodes whose parent (level l - 1) is `parent`.
__device__ __forceinline__ unsigned long long GroupKey(int l, int64_t parent) {
  return (static_cast<unsigned long long>(l) << 48) | static_cast<unsigned long long>(parent);
}

__device__ __forceinline__ uint32_t GroupHash(unsigned long long key, int bits) {
  return (static_cast<uint32_t>(key) * 0x9E3779B1u + static_cast<uint32_t>(key >> 48) * 0x85EBCA6Bu) >> (32 - bits);
}

/// Inserts `key` into the group table; returns its index and sets `claimed` when this call put it there.
__device__ __forceinline__ uint32_t GroupInsert(unsigned long long* keys, int bits, unsigned long long key, bool& claimed) {
  const uint32_t mask = (1u << bits) - 1u;
  for (uint32_t h = GroupHash(key, bits);; h = (h + 1u) & mask) {
    const unsigned long long old = atomicCAS(&keys[h], kEmpty, key);
    if (old == kEmpty || old == key) {
      claimed = old == kEmpty;
      return h;
    }
  }
}

/// Index of `key`, which is in the table.
__device__ __forceinline__ uint32_t GroupFind(const unsigned long long* keys, int bits, unsigned long long key) {
  const uint32_t mask = (1u << bits) - 1u;
  uint32_t h = GroupHash(key, bits);
  while (keys[h] != key) h = (h + 1u) & mask;
  return h;
}

/// Asynchronous 16-byte copy from global to shared memory (cp.async, L2 only); WaitCopies()
/// waits for all of the thread's copies.
__device__ __forceinline__ void CopyAsync16(void* shared_dst, const void* global_src) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(global_src) : "memory");
}
__device__ __forceinline__ void WaitCopies() { asm volatile("cp.async.wait_all;" ::: "memory"); }

/// Barrier of threads [0, kHalf) only (named barrier 1): the claiming half, while the other
/// half computes priorities.
__device__ __forceinline__ void SyncClaimHalf() { asm volatile("bar.sync 1, %0;" ::"n"(kHalf) : "memory"); }

template <int K>
__global__ void __launch_bounds__(kThreads, 1) UpdateKernel(ReplayView v, UpdatePlan plan, const int32_t* indices,
                                                            const uint32_t* generations, const float* td_errors, int64_t n) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int64_t offset[kMaxTreeLevels + 1];
  __shared__ unsigned long long counts[4];  // this block's applied, rejected, stale, duplicates
  __shared__ unsigned int max_bits;         // max applied |td|, as f32 bits (order-preserving for >= 0)
  __shared__ unsigned long long block_counts[kClusterBlocks][5];  // block 0: every block's counts and max bits
  __shared__ int winners;
  __shared__ int used[kMaxTreeLevels + 1];  // slabs claimed at each level in this round
  const auto region = [&](unsigned at) { return smem + at; };
  double* leaf_slabs = reinterpret_cast<double*>(region(plan.leaf_slabs));    // level L: [round][K] sums
  double* inner_slabs = reinterpret_cast<double*>(region(plan.inner_slabs));  // levels L-1..P+1: [round][2K] sums, mins
  int64_t* slab_parent = reinterpret_cast<int64_t*>(region(plan.slab_parent));  // [L - l][round]: the group's parent
  double* top_sum = reinterpret_cast<double*>(region(plan.top_sum));  // block 0: levels 1..P
  double* top_min = reinterpret_cast<double*>(region(plan.top_min));
  double* inbox_sum = reinterpret_cast<double*>(region(plan.inbox_sum));  // block 0: new level-P nodes
  double* inbox_min = reinterpret_cast<double*>(region(plan.inbox_min));
  double* part_sum = reinterpret_cast<double*>(region(plan.part_sum));  // this block's new level-P nodes
  double* part_min = reinterpret_cast<double*>(region(plan.part_min));
  double* priority = reinterpret_cast<double*>(region(plan.priority));  // [round]: new leaf priority per winner
  unsigned long long* entry_table = reinterpret_cast<unsigned long long*>(region(plan.entry_table));
  unsigned long long* group_keys = reinterpret_cast<unsigned long long*>(region(plan.group_keys));
  int32_t* winner_slot = reinterpret_cast<int32_t*>(region(plan.winner_slot));
  float* winner_td = reinterpret_cast<float*>(region(plan.winner_td));
  uint32_t* winner_gen = reinterpret_cast<uint32_t*>(region(plan.winner_gen));
  int32_t* group_slab = reinterpret_cast<int32_t*>(region(plan.group_slab));
  uint8_t* inbox_flag = region(plan.inbox_flag);
  uint8_t* touched = region(plan.touched);

  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const bool leader = rank == 0;
  const int L = v.tree.levels, P = plan.part_level, f = v.tree.fan_log;
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const uint32_t entry_size = 1u << plan.entry_bits, group_size = 1u << plan.group_bits;
  const auto slab = [&](int l, int g) {
    return l == L ? leaf_slabs + static_cast<int64_t>(g) * K
                  : inner_slabs + (static_cast<int64_t>(L - 1 - l) * plan.round + g) * (2 * K);
  };
  const auto clear_entries = [&] {
    for (uint32_t i = threadIdx.x; i < entry_size; i += kThreads) entry_table[i] = kEmpty;
    if (threadIdx.x == 0) winners = 0;
  };
  const auto clear_groups = [&] {
    for (uint32_t i = threadIdx.x; i < group_size; i += kThreads) group_keys[i] = kEmpty;
    if (threadIdx.x <= kMaxTreeLevels) used[threadIdx.x] = 0;
  };
  // Shared-memory set-up touches no global memory: it overlaps the previous kernel's tail. The
  // cluster barrier's first phase (arrive now, wait before writing into block 0) orders block
  // 0's cleared inbox before the other blocks' writes; arriving before any global access keeps
  // its release fence cheap.
  clear_entries();
  clear_groups();
  for (int i = threadIdx.x; i < plan.part_per_block; i += kThreads) touched[i] = 0;
  for (int i = threadIdx.x; i < plan.part_nodes; i += kThreads) inbox_flag[i] = 0;
  if (threadIdx.x < 4) counts[threadIdx.x] = 0;
  if (threadIdx.x == 0) max_bits = 0;
  StageOffsets(v, offset);
  cluster.barrier_arrive();
  WaitForPriorGrids();
  AllowNextGrid();

  DeviceState& ws = *v.state;
  // State that only block 0 writes, at its very end: loaded now, off the critical path.
  UpdateCounts total;
  double max_priority = 0;
  if (leader && threadIdx.x == 0) {
    total = ws.total_update;
    max_priority = ws.max_priority;
  }
  const int64_t size = ws.size;
  const uint32_t tag = ws.update_epoch + 1;
  // Block 0's copy of levels 1..P (leaf mins: the positive leaves): loaded now, stored once the
  // first window's entries are on their way.
  const int64_t stage_first = v.tree.offset[1], leaf_level = v.tree.offset[L];
  double stage_sum[kStageItems], stage_min[kStageItems];
#pragma unroll
  for (int j = 0; j < kStageItems; ++j) {
    const int i = threadIdx.x + j * kThreads;
    stage_sum[j] = 0, stage_min[j] = INFINITY;
    if (leader && i < plan.top_nodes) {
      stage_sum[j] = __ldcg(v.sum + stage_first + i);
      if (stage_first + i < leaf_level) stage_min[j] = __ldcg(v.min + stage_first + i);
    }
  }

  const int64_t node_lo = rank * int64_t{plan.part_nodes} / kClusterBlocks;
  const int64_t node_hi = (rank + 1) * int64_t{plan.part_nodes} / kClusterBlocks;
  const int64_t slot_lo = node_lo << (f * (L - P)), slot_hi = node_hi << (f * (L - P));
  const int64_t windows = (n + kWindow - 1) / kWindow;
  unsigned applied = 0, rejected = 0, stale = 0, dups = 0;  // per thread: at most n <= 2^20
  unsigned int local_max = 0;

  // Slabs of this round back to global memory (whole groups: unchanged children are rewritten
  // with their own values), 16 bytes per thread, coalesced.
  const auto write_back = [&] {
    for (int l = L; l > P; --l) {
      const int chunks = l == L ? K / 2 : K, count = used[l] * chunks;
      for (int q = threadIdx.x; q < count; q += kThreads) {
        const int g = q / chunks, c = q % chunks, half = c / (K / 2), i = c % (K / 2);
        const int64_t at = offset[l] + K * slab_parent[(L - l) * plan.round + g] + 2 * i;
        *reinterpret_cast<double2*>((half ? v.min : v.sum) + at) =
            *reinterpret_cast<const double2*>(slab(l, g) + half * K + 2 * i);
      }
    }
  };

  for (int64_t w = windows - 1; w >= 0; --w) {
    // Round trip 1: this window's entries; keep this block's, the last per slot wins.
    const int64_t first = w * kWindow;
    int32_t slot[kItems];
    float td[kItems];
    uint32_t gen[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int64_t e = first + k * kThreads + threadIdx.x;
      slot[k] = e < n ? indices[e] : -1;
      td[k] = e < n ? td_errors[e] : 0.f;
      gen[k] = e < n ? generations[e] : 0u;
    }
    if (leader && w == windows - 1) {
#pragma unroll
      for (int j = 0; j < kStageItems; ++j) {
        const int i = threadIdx.x + j * kThreads;
        if (i >= plan.top_nodes) continue;
        top_sum[i] = stage_sum[j];
        top_min[i] = stage_first + i < leaf_level ? stage_min[j] : (stage_sum[j] > 0 ? stage_sum[j] : INFINITY);
      }
    }
    __syncthreads();  // tables clear, `offset` staged
    uint32_t at[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int64_t e = first + k * kThreads + threadIdx.x;
      const int64_t s = slot[k];
      at[k] = 0;
      if (e >= n) continue;
      if (s < 0 || s >= size) {
        if (leader) ++stale;
        slot[k] = -1;
      } else if (s < slot_lo || s >= slot_hi) {
        slot[k] = -1;
      } else {
        at[k] = EntryInsert(entry_table, plan.entry_bits, static_cast<uint32_t>(s), static_cast<uint32_t>(e));
      }
    }
    __syncthreads();  // every entry is in the table
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (slot[k] < 0) continue;
      if (static_cast<uint32_t>(entry_table[at[k]]) != static_cast<uint32_t>(first + k * kThreads + threadIdx.x)) {
        ++dups;
        continue;
      }
      const int i = atomicAdd(&winners, 1);
      winner_slot[i] = slot[k];
      winner_td[i] = td[k];
      winner_gen[i] = gen[k];
    }
    __syncthreads();  // the winners are listed
    const int count = winners;
    for (int r0 = 0; r0 < count; r0 += plan.round) {
      const int in_round = min(plan.round, count - r0);
      const bool last_round = w == 0 && r0 + plan.round >= count;
      const int t = r0 + static_cast<int>(threadIdx.x);
      const bool mine = static_cast<int>(threadIdx.x) < in_round;  // a claiming thread with a winner
      int64_t s = 0;
      uint32_t slot_gen = 0, mark = 0;
      if (threadIdx.x < kHalf) {
        // Round trip 2: the winner's slot generation (and mark) and the distinct groups below
        // level P, each claimed once (warp-aggregated slab numbers) and copied by the half.
        if (mine) {
          s = winner_slot[t];
          slot_gen = v.generations[s];
          if (windows > 1) mark = v.marks[s];
        }
        for (int l = L; l > P; --l) {
          bool claim = false;
          uint32_t h = 0;
          const int64_t parent = s >> (f * (L - l + 1));
          if (mine) h = GroupInsert(group_keys, plan.group_bits, GroupKey(l, parent), claim);
          const unsigned ballot = __ballot_sync(0xffffffffu, claim);
          if (!ballot) continue;
          const int first_lane = __ffs(ballot) - 1;
          int base = 0;
          if (lane == first_lane) base = atomicAdd(&used[l], __popc(ballot));
          base = __shfl_sync(0xffffffffu, base, first_lane);
          if (claim) {
            const int g = base + __popc(ballot & ((1u << lane) - 1u));
            group_slab[h] = g;
            slab_parent[(L - l) * plan.round + g] = parent;
          }
        }
        SyncClaimHalf();  // groups claimed
        for (int l = L; l > P; --l) {
          const int chunks = l == L ? K / 2 : K, total_chunks = used[l] * chunks;
          for (int q = threadIdx.x; q < total_chunks; q += kHalf) {
            const int g = q / chunks, c = q % chunks, half = c / (K / 2), i = c % (K / 2);
            const int64_t at = offset[l] + K * slab_parent[(L - l) * plan.round + g];
            CopyAsync16(slab(l, g) + half * K + 2 * i, (half ? v.min : v.sum) + at + 2 * i);
          }
        }
      } else {
        // The other half: the new leaf priorities, while the copies fly.
        for (int i = threadIdx.x - kHalf; i < in_round; i += kThreads - kHalf)
          priority[i] = LeafPriority(fabsf(winner_td[r0 + i]), v);
      }
      WaitCopies();
      __syncthreads();  // slabs loaded, priorities computed
      if (mine) {
        const float my_td = winner_td[t];
        const double p = priority[threadIdx.x];
        bool apply = false;
        if (windows > 1 && mark == tag) ++dups;
        else if (!isfinite(my_td)) ++rejected;
        else if (slot_gen != winner_gen[t]) ++stale;
        else apply = true;
        if (windows > 1 && mark != tag) v.marks[s] = tag;
        if (apply) {
          local_max = max(local_max, __float_as_uint(fabsf(my_td)));
          ++applied;
          if (L > P) {
            slab(L, group_slab[GroupFind(group_keys, plan.group_bits, GroupKey(L, s >> f))])[s & (K - 1)] = p;
          } else {  // the leaves are level P
            part_sum[s - node_lo] = p;
            part_min[s - node_lo] = p > 0 ? p : INFINITY;
            touched[s - node_lo] = 1;
          }
        }
      }
      __syncthreads();  // new leaves in their slabs
      // Bottom up: each group of K lanes sums a slab into its parent.
      for (int l = L; l > P; --l) {
        const int slabs = used[l];
        for (int base = warp * (32 / K); base < slabs; base += kWarps * (32 / K)) {
          const int g = base + lane / K, c = lane & (K - 1);
          const bool valid = g < slabs;
          double sum = 0, min = INFINITY;
          if (valid) {
            const double* x = slab(l, g);
            sum = x[c];
            min = l == L ? (sum > 0 ? sum : INFINITY) : x[K + c];
          }
          GroupReduce<K>(sum, min);
          if (valid && c == 0) {
            const int64_t parent = slab_parent[(L - l) * plan.round + g];
            if (l - 1 > P) {
              double* up = slab(l - 1, group_slab[GroupFind(group_keys, plan.group_bits, GroupKey(l - 1, parent >> f))]);
              up[parent & (K - 1)] = sum;
              up[K + (parent & (K - 1))] = min;
            } else {
              part_sum[parent - node_lo] = sum;
              part_min[parent - node_lo] = min;
              touched[parent - node_lo] = 1;
            }
          }
        }
        __syncthreads();
      }
      if (!last_round) {
        write_back();
        __syncthreads();  // written back and read before the next round's copies and claims
        clear_groups();
        __syncthreads();
      }
    }
    if (w > 0) {
      __syncthreads();  // `winners` was read
      clear_entries();
    }
  }

  // This block's counts: warp sums, one shared atomic per warp and non-zero counter.
  const unsigned c[4] = {__reduce_add_sync(0xffffffffu, applied), __reduce_add_sync(0xffffffffu, rejected),
                         __reduce_add_sync(0xffffffffu, stale), __reduce_add_sync(0xffffffffu, dups)};
  const unsigned c_max = __reduce_max_sync(0xffffffffu, local_max);
  if (lane == 0) {
    for (int j = 0; j < 4; ++j)
      if (c[j]) atomicAdd(&counts[j], static_cast<unsigned long long>(c[j]));
    if (c_max) atomicMax(&max_bits, c_max);
  }
  __syncthreads();
  // Into block 0 (distributed shared memory): the counts and the new level-P nodes.
  cluster.barrier_wait();
  if (threadIdx.x < 5) {
    unsigned long long* row = cluster.map_shared_rank(block_counts[rank], 0);
    row[threadIdx.x] = threadIdx.x < 4 ? counts[threadIdx.x] : max_bits;
  }
  double* inbox_sum0 = cluster.map_shared_rank(inbox_sum, 0);
  double* inbox_min0 = cluster.map_shared_rank(inbox_min, 0);
  uint8_t* inbox_flag0 = cluster.map_shared_rank(inbox_flag, 0);
  for (int64_t i = threadIdx.x; i < node_hi - node_lo; i += kThreads) {
    if (!touched[i]) continue;
    inbox_sum0[node_lo + i] = part_sum[i];
    inbox_min0[node_lo + i] = part_min[i];
    inbox_flag0[node_lo + i] = 1;
  }
  cluster.sync();  // every block's nodes and counts are in block 0
  // Write-back: the last round's slabs and this block's level-P nodes.
  write_back();
  for (int64_t i = threadIdx.x; i < node_hi - node_lo; i += kThreads) {
    if (!touched[i]) continue;
    v.sum[offset[P] + node_lo + i] = part_sum[i];
    if (P < L) v.min[offset[P] + node_lo + i] = part_min[i];
  }
  if (!leader) return;

  // Block 0: every needed node above level P, bottom up, from the staged levels (level P's new
  // nodes from the inbox), a group of K lanes per node.
  for (int l = P - 1; l >= 0; --l) {
    const int64_t nodes = NeededNodes(v, l);
    const int64_t child_at = offset[l + 1] - offset[1];
    for (int64_t base = warp * (32 / K); base < nodes; base += kWarps * (32 / K)) {
      const int64_t j = base + lane / K;
      const int c = lane & (K - 1);
      const bool valid = j < nodes;
      double sum = 0, min = INFINITY;
      if (valid) {
        const int64_t child = K * j + c;  // index in level l + 1
        const bool fresh = l + 1 == P && child < plan.part_nodes && inbox_flag[child];
        sum = fresh ? inbox_sum[child] : top_sum[child_at + child];
        min = fresh ? inbox_min[child] : top_min[child_at + child];
      }
      GroupReduce<K>(sum, min);
      if (valid && c == 0) {
        v.sum[offset[l] + j] = sum;
        v.min[offset[l] + j] = min;
        if (l > 0) {
          top_sum[offset[l] - offset[1] + j] = sum;
          top_min[offset[l] - offset[1] + j] = min;
        }
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    unsigned long long sums[5] = {0, 0, 0, 0, 0};
    for (int b = 0; b < kClusterBlocks; ++b) {
      for (int j = 0; j < 4; ++j) sums[j] += block_counts[b][j];
      sums[4] = max(sums[4], block_counts[b][4]);
    }
    UpdateCounts last;
    last.applied = static_cast<int64_t>(sums[0]);
    last.rejected_nonfinite = static_cast<int64_t>(sums[1]);
    last.stale = static_cast<int64_t>(sums[2]);
    last.duplicates = static_cast<int64_t>(sums[3]);
    total.applied += last.applied;
    total.rejected_nonfinite += last.rejected_nonfinite;
    total.stale += last.stale;
    total.duplicates += last.duplicates;
    ws.last_update = last;
    ws.total_update = total;
    ws.max_priority = fmax(max_priority, static_cast<double>(__uint_as_float(static_cast<unsigned>(sums[4]))));
    ws.update_epoch = tag;
  }
}

unsigned AlignUp16(unsigned x) { return (x + 15u) / 16u * 16u; }

int CeilLog2(int64_t x) {
  int b = 0;
  while ((int64_t{1} << b) < x) ++b;
  return b;
}

/// Partition level, table sizes, round size and shared-memory layout of an update of n entries
/// (round: the most winners whose slabs fit in `shared_bytes`). Throws nothing: a plan that does
/// not fit is refused by the launch.
UpdatePlan PlanUpdate(const ReplayView& v, int64_t n, int shared_bytes) {
  const int levels = v.tree.levels, k = 1 << v.tree.fan_log;
  UpdatePlan plan;
  int p = 1;
  while (p < levels && NeededNodes(v, p) <= kTopPartitionNodes) ++p;
  plan.part_level = p;
  plan.part_nodes = static_cast<int>(NeededNodes(v, p));
  plan.part_per_block = (plan.part_nodes + kClusterBlocks - 1) / kClusterBlocks;
  plan.window = static_cast<int>(std::min<int64_t>(n, kWindow));
  plan.entry_bits = std::max(6, CeilLog2(2 * int64_t{plan.window}));
  plan.top_nodes = static_cast<int>(v.tree.offset[p] + v.tree.count[p] - v.tree.offset[1]);
  const unsigned below = static_cast<unsigned>(levels - p);  // slab levels: the leaves and below - 1 internal ones
  const unsigned inner = below > 0 ? below - 1 : 0;
  const auto layout = [&](int round) {
    plan.round = round;
    plan.group_bits = std::max(6, CeilLog2(2 * int64_t{round} * std::max(below, 1u)));
    unsigned at = 0;
    const auto take = [&](unsigned bytes) {
      const unsigned here = at;
      at = AlignUp16(at + bytes);
      return here;
    };
    const unsigned r = static_cast<unsigned>(round), top = static_cast<unsigned>(plan.top_nodes);
    const unsigned part = static_cast<unsigned>(plan.part_nodes), mine = static_cast<unsigned>(plan.part_per_block);
    plan.leaf_slabs = take(8u * r * k * (below > 0));
    plan.inner_slabs = take(8u * r * 2 * k * inner);
    plan.slab_parent = take(8u * r * below);
    plan.top_sum = take(8u * top);
    plan.top_min = take(8u * top);
    plan.inbox_sum = take(8u * part);
    plan.inbox_min = take(8u * part);
    plan.part_sum = take(8u * mine);
    plan.part_min = take(8u * mine);
    plan.priority = take(8u * r);
    plan.entry_table = take(8u << plan.entry_bits);
    plan.group_keys = take(8u << plan.group_bits);
    plan.winner_slot = take(4u * plan.window);
    plan.winner_td = take(4u * plan.window);
    plan.winner_gen = take(4u * plan.window);
    plan.group_slab = take(4u << plan.group_bits);
    plan.inbox_flag = take(part);
    plan.touched = take(mine);
    plan.bytes = at;
  };
  int round = std::min(kHalf, plan.window);
  layout(round);
  while (round > 1 && plan.bytes > static_cast<unsigned>(shared_bytes)) layout(round = round * 7 / 8);
  return plan;
}

}  // namespace

cudaError_t PrepareUpdateKernels(int shared_bytes) {
  cudaError_t e = cudaFuncSetAttribute(UpdateKernel<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
  if (e == cudaSuccess) e = cudaFuncSetAttribute(UpdateKernel<16>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
  if (e == cudaSuccess) e = cudaFuncSetAttribute(UpdateKernel<32>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
  return e;
}

cudaError_t LaunchUpdate(const ReplayView& v, const int32_t* indices, const uint32_t* generations,
                         const float* td_errors, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const UpdatePlan plan = PlanUpdate(v, n, v.shared_bytes);
  if (plan.top_nodes > kStageItems * kThreads || plan.bytes > static_cast<unsigned>(v.shared_bytes))
    return cudaErrorInvalidConfiguration;
  DQN_FANOUT_SWITCH(v.tree.fan_log, K, {
    return LaunchChained(v.chained_launches, kClusterBlocks, UpdateKernel<K>, kClusterBlocks, kThreads, plan.bytes,
                         stream, v, plan, indices, generations, td_errors, n);
  })
  return cudaErrorInvalidValue;  // not reached: every fan-out case returns
}

}  // namespace dqn::cuda::detail
