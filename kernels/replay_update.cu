// Priority-update kernel of the CUDA replay (DESIGN section 3), with the CPU reference's rules:
// per distinct slot only the batch's last entry counts (the others are duplicates); that entry
// is rejected when its TD error is NaN/Inf, dropped as stale when its generation differs from
// the slot's, else applied; max_priority becomes the max of itself and the applied |td|.
// (The host path rejects indices outside [0, size) before launching, as the CPU does; on the
// device path such an entry is counted as stale and ignored.)
//
// Built for latency: one launch of one thread-block cluster (Hopper), two dependent global
// round trips per window of the batch, everything else on chip. The tree is cut at its partition
// level P (TreeLayout::part_level); block r of the cluster owns a contiguous range of level-P
// nodes, hence the slots and every node under them. The levels above P are not stored: each
// sample block derives them from level P in its prologue (replay_launch.cuh's layout note).
//  1. Every block reads the window's entries and keeps those in its range; the batch's last
//     entry per slot wins through a shared-memory hash table (slot -> largest batch position).
//  2. For each winner, the slot's generation and, with asynchronous copies (cp.async), the
//     K-group of the slot's leaf and of each of its ancestors below level P are loaded into
//     shared-memory slabs, one slab per distinct group (claimed in a second hash table, copied
//     by one warp per group, coalesced). The new leaf priorities (a pow, ~1,500 cycles) are
//     computed by the block's last threads while the first ones claim the groups (computed
//     while the copies flew instead, about 0.4 us of it stayed on the critical path).
//  3. The new leaves go into their slabs; level by level, bottom up, the level's groups are
//     summed (pairwise: ReduceChildren, then ReduceLanes) into their parents, which are stored
//     to global memory and to the parents' slabs: every touched ancestor down to level P is
//     recomputed from its children, deterministically, with no atomics on sums. The whole block
//     works on each level, K / 8 lanes per group (8 children each, then shuffles) when the
//     level's groups fit the block so, else one thread per group (one thread summing 32 children
//     runs ~300 dependent instructions: the whole level's latency when only one warp holds
//     groups).
//  4. Each block sends its warps' counts into block 0's shared memory with st.async, whose
//     bytes complete a transaction barrier (mbarrier) there: no cluster barrier, so no block
//     waits for its global stores to drain. Block 0's last warp sums the counts and stores the
//     update's state.
// Shared-memory atomics are 32-bit only (64-bit ones measured about 970 cycles under contention).
// Windows: batches longer than kWindow entries are taken window by window from the batch's end,
// and a per-slot epoch mark tells an earlier window that a later one already decided the slot.
// Rounds: winners beyond what the slabs hold are taken in rounds (each reloads its groups, so
// it sees what the previous round stored).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>
#include <utility>

#include "kernels/replay_chain.cuh"
#include "kernels/replay_launch.cuh"
#include "kernels/replay_tree.cuh"

namespace dqn::cuda::detail {
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
/// The warp of block 0 that writes the update's counts and state.
constexpr int kStateWarp = kWarps - 1;
constexpr int kClusterBlocks = 8;              // the portable cluster size
constexpr int kItems = 4;                      // entries per thread per window
constexpr int kWindow = kThreads * kItems;     // 2048 entries
constexpr uint32_t kEmpty = ~0u;

/// Host-computed shape of one update launch, with the byte offsets of the dynamic shared memory.
struct UpdatePlan {
  int64_t part_nodes = 0;    ///< level-P nodes that cover stored slots: block r owns [r * part_nodes / C, (r + 1) * part_nodes / C)
  int window = 0;            ///< entries per window: min(n, kWindow)
  int entry_bits = 6;        ///< log2 entries of the slot table
  int group_bits = 6;        ///< log2 entries of the group table
  int round = 1;             ///< winners per round (slab capacity)
  int leaf_stride = 0, inner_stride = 0;  ///< slab strides in doubles (odd in 16-byte units: no bank conflicts)
  // Byte offsets into the dynamic shared memory.
  unsigned leaf_slabs = 0, inner_slabs = 0, leaf_src = 0,
           inner_src = 0, entry_keys = 0, entry_last = 0, group_keys = 0, winner_slot = 0, winner_td = 0, winner_gen = 0, winner_priority = 0,
           group_slab = 0,
           bytes = 0;
};

/// Inserts `slot` into the open-addressing slot table (keys: 32-bit slots, kEmpty free;
/// shared-memory atomics are 32-bit: 64-bit ones measured several times slower) and raises its
/// entry's `last` to pos (the largest batch position seen). Returns the entry's index.
__device__ __forceinline__ uint32_t EntryInsert(uint32_t* keys, uint32_t* last, int bits, uint32_t slot, uint32_t pos) {
  const uint32_t mask = (1u << bits) - 1u;
  for (uint32_t h = (slot * 0x9E3779B1u) >> (32 - bits);; h = (h + 1u) & mask) {
    const uint32_t old = atomicCAS(&keys[h], kEmpty, slot);
    if (old == kEmpty || old == slot) {
      atomicMax(&last[h], pos);
      return h;
    }
  }
}

/// Key of a K-group of nodes: the index in `sum` of its first node (unique across levels; below
/// 2^31 because capacity <= 2^30).
__device__ __forceinline__ uint32_t GroupHash(uint32_t key, int bits) { return (key * 0x9E3779B1u) >> (32 - bits); }

/// Inserts `key` into the group table; returns its index and sets `claimed` when this call put it there.
__device__ __forceinline__ uint32_t GroupInsert(uint32_t* keys, int bits, uint32_t key, bool& claimed) {
  const uint32_t mask = (1u << bits) - 1u;
  for (uint32_t h = GroupHash(key, bits);; h = (h + 1u) & mask) {
    const uint32_t old = atomicCAS(&keys[h], kEmpty, key);
    if (old == kEmpty || old == key) {
      claimed = old == kEmpty;
      return h;
    }
  }
}

/// Key of the K-group of level-l nodes whose parent is `parent`.
__device__ __forceinline__ uint32_t GroupKey(const int64_t* offset, int k, int l, int64_t parent) {
  return static_cast<uint32_t>(offset[l] + k * parent);
}

/// Index of `key`, which is in the table.
__device__ __forceinline__ uint32_t GroupFind(const uint32_t* keys, int bits, uint32_t key) {
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

/// 32-bit shared-memory address of a shared variable.
__device__ __forceinline__ unsigned SharedAddress(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

/// The address in block `rank`'s shared memory (shared::cluster window) of the variable at
/// `local` in this block's.
__device__ __forceinline__ unsigned ClusterAddress(unsigned local, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}

/// Stores `bits` at cluster address `dst` and credits the 4 bytes to the mbarrier at cluster
/// address `bar` in the same block (st.async: the receiver learns of the data through the
/// barrier's transaction count, the sender needs no fence).
__device__ __forceinline__ void SendAsync(unsigned dst, unsigned bits, unsigned bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(dst), "r"(bits), "r"(bar)
               : "memory");
}

/// Initialises the mbarrier at `bar` for one arrival and makes that visible to the cluster (a
/// cluster barrier arrive must follow before other blocks use it).
__device__ __forceinline__ void InitHandoff(unsigned bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// Arrival at the cluster barrier without release semantics: the blocks publish nothing through
/// it except block 0's mbarrier initialisation, which InitHandoff's fence already orders (the
/// default release arrival waits for the block's outstanding memory operations: MEMBAR.GPU).
__device__ __forceinline__ void ArriveRelaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }

/// The mbarrier's one arrival, announcing `bytes` of st.async to come.
__device__ __forceinline__ void ExpectBytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cluster.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

/// Waits (acquire, cluster scope) until the mbarrier's first phase is complete: its arrival
/// made and every announced byte landed.
__device__ __forceinline__ void WaitHandoff(unsigned bar) {
  unsigned done = 0;
  while (!done)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar)
        : "memory");
}

/// Sum and min (ReduceChildren) of a K-group held in shared memory: sums[0, K) and mins[0, K)
/// (16-byte aligned; mins unused when the children are leaves).
template <int K, bool kLeafChildren>
__device__ __forceinline__ void GroupValue(const double* sums, const double* mins, double& sum, double& min) {
  const double2* s = reinterpret_cast<const double2*>(sums);
  const double2* m = reinterpret_cast<const double2*>(mins);
  ReduceChildren<K, kLeafChildren>([&](int k) { return s[k]; }, [&](int k) { return m[k]; }, sum, min);
}

/// Sum and min of the K-group at sums[0, K) / mins[0, K) in shared memory by K / C lanes: lane j
/// of the group (in [0, K / C)) reduces children [jC, jC + C) (ReduceChildren<C>) and
/// ReduceLanes<K / C> joins the lanes: the pairwise order of ReduceChildren<K>, bit for bit. An
/// inactive lane contributes the neutral pair; all lanes of the warp must call it.
template <int K, int C, bool kLeafChildren>
__device__ __forceinline__ void GroupValueLanes(const double* sums, const double* mins, int j, bool active, double& sum,
                                                double& min) {
  sum = 0, min = INFINITY;
  if (active) GroupValue<C, kLeafChildren>(sums + j * C, mins + j * C, sum, min);
  ReduceLanes<K / C>(sum, min);
}

/// Sums and minima of `groups` K-groups in shared memory by the whole block (all threads call
/// it): at(i) gives group i's sums and mins (a pair of pointers to K doubles each; mins unused
/// for leaf children), store(i, sum, min) takes its result, called once per group. The lanes
/// per group are K / 8 (8 children per lane: a short ReduceChildren<8>, then log2(K / 8)
/// shuffle rounds of ReduceLanes, ~100 cycles each) when that fits the block in one pass, else
/// one (ReduceChildren<K> alone; K = 32: ~300 dependent instructions, but 32 groups per warp).
template <int K, bool kLeafChildren, typename At, typename Store>
__device__ __forceinline__ void ReduceGroups(int64_t groups, At at, Store store) {
  const auto pass = [&](auto children_per_lane) {
    constexpr int C = decltype(children_per_lane)::value, G = K / C;
    for (int64_t first = 0; first + (threadIdx.x & ~31u) / G < groups; first += kThreads / G) {  // warp-uniform
      const int64_t i = first + threadIdx.x / G;
      const auto group = at(i < groups ? i : groups - 1);
      double sum, min;
      GroupValueLanes<K, C, kLeafChildren>(group.first, group.second, threadIdx.x % G, i < groups, sum, min);
      if (i < groups && threadIdx.x % G == 0) store(i, sum, min);
    }
  };
  if constexpr (K > 8) {
    if (groups * (K / 8) <= kThreads) return pass(std::integral_constant<int, 8>{});
  }
  pass(std::integral_constant<int, K>{});
}

template <int K>
__global__ void __launch_bounds__(kThreads, 1)
    UpdateKernel(const __grid_constant__ ReplayView v, const __grid_constant__ UpdatePlan plan, const int32_t* indices,
                 const uint32_t* generations, const float* td_errors, int64_t n) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int64_t offset[kMaxTreeLevels + 1];
  // Block 0: every warp's counts (applied, rejected, stale, duplicates) and largest applied |td|
  // (f32 bits: order-preserving for values >= 0), as [block][warp][5].
  __shared__ unsigned warp_counts[kClusterBlocks][kWarps][5];
  __shared__ uint64_t handoff;              // block 0: the mbarrier that the blocks' st.async complete
  __shared__ int winners;
  __shared__ int used[kMaxTreeLevels + 1];  // groups claimed per level in this round
  const auto region = [&](unsigned at) { return smem + at; };
  double* leaf_slabs = reinterpret_cast<double*>(region(plan.leaf_slabs));
  double* inner_slabs = reinterpret_cast<double*>(region(plan.inner_slabs));
  int64_t* leaf_src = reinterpret_cast<int64_t*>(region(plan.leaf_src));
  int64_t* inner_src = reinterpret_cast<int64_t*>(region(plan.inner_src));
  uint32_t* entry_keys = reinterpret_cast<uint32_t*>(region(plan.entry_keys));
  uint32_t* entry_last = reinterpret_cast<uint32_t*>(region(plan.entry_last));
  uint32_t* group_keys = reinterpret_cast<uint32_t*>(region(plan.group_keys));
  int32_t* winner_slot = reinterpret_cast<int32_t*>(region(plan.winner_slot));
  float* winner_td = reinterpret_cast<float*>(region(plan.winner_td));
  uint32_t* winner_gen = reinterpret_cast<uint32_t*>(region(plan.winner_gen));
  double* winner_priority = reinterpret_cast<double*>(region(plan.winner_priority));
  int32_t* group_slab = reinterpret_cast<int32_t*>(region(plan.group_slab));

  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const bool leader = rank == 0;
  const int L = v.tree.levels, P = v.tree.part_level, f = v.tree.fan_log;
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const uint32_t entry_size = 1u << plan.entry_bits, group_size = 1u << plan.group_bits;
  const auto clear_entries = [&] {
    for (uint32_t i = threadIdx.x; i < entry_size; i += kThreads) entry_keys[i] = kEmpty, entry_last[i] = 0;
    if (threadIdx.x == 0) winners = 0;
  };
  const auto clear_groups = [&] {
    for (uint32_t i = threadIdx.x; i < group_size; i += kThreads) group_keys[i] = kEmpty;
    if (threadIdx.x <= kMaxTreeLevels) used[threadIdx.x] = 0;
  };
  // Set-up that touches no global memory overlaps the previous kernel's tail.
  WarmParams(v);
  WarmParams(plan, kWarps - 1);
  clear_entries();
  clear_groups();
  StageOffsets(v, offset);
  const unsigned handoff_at = SharedAddress(&handoff);
  // Block 0 announces its initialised mbarrier at the first cluster barrier, which every block
  // waits for before it sends to block 0.
  if (leader && threadIdx.x == 0) InitHandoff(handoff_at);
  __syncwarp();
  ArriveRelaxed();
  WaitForPriorGrids();
  AllowNextGrid();

  DeviceState& ws = *v.state;
  // State that only block 0's state warp writes, at the end: loaded now, off the critical path.
  const bool state_lane = leader && threadIdx.x == kStateWarp * 32;
  UpdateCounts total;
  double max_priority = 0;
  if (state_lane) {
    total = ws.total_update;
    max_priority = ws.max_priority;
  }
  const int64_t size = ws.size;
  // The epoch tag (update_epoch + 1) is formed where it is used: an add right after this load
  // stalled the thread for a round trip before it issued the entries' loads (Nsight Compute).
  const uint32_t epoch = ws.update_epoch;
  const int64_t node_lo = rank * plan.part_nodes / kClusterBlocks, node_hi = (rank + 1) * plan.part_nodes / kClusterBlocks;
  const int64_t slot_lo = node_lo << (f * (L - P)), slot_hi = node_hi << (f * (L - P));
  const int64_t windows = (n + kWindow - 1) / kWindow;
  double* const leaves = v.sum + v.tree.offset[L];
  unsigned applied = 0, rejected = 0, stale = 0, dups = 0;  // per thread: at most n <= 2^20
  unsigned int local_max = 0;
  // Slab of the i-th group claimed at level l (> P) in a round: leaf groups (level L) in
  // leaf_slabs, those of level l < L in inner_slabs from (L - 1 - l) * round on.
  const auto slab_of = [&](int l, int i) { return l == L ? i : (L - 1 - l) * plan.round + i; };

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
        at[k] = EntryInsert(entry_keys, entry_last, plan.entry_bits, static_cast<uint32_t>(s), static_cast<uint32_t>(e));
      }
    }
    __syncthreads();  // every entry is in the table
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (slot[k] < 0) continue;
      if (entry_last[at[k]] != static_cast<uint32_t>(first + k * kThreads + threadIdx.x)) {
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
      // Round trip 2: the winner's slot generation (and mark), and the distinct groups below
      // level P of this round's winners, each claimed by one winner and copied by one warp.
      const int t = r0 + static_cast<int>(threadIdx.x);
      const bool mine = threadIdx.x < static_cast<unsigned>(plan.round) && t < count;
      // Claims slot s's group of level l (> P) unless claimed already; returns its table entry.
      const auto claim = [&](int l, int64_t s) {
        const int64_t parent = s >> (f * (L - l + 1));
        bool mine_group = false;
        const uint32_t h = GroupInsert(group_keys, plan.group_bits, GroupKey(offset, K, l, parent), mine_group);
        if (mine_group) {
          const int slab = slab_of(l, atomicAdd(&used[l], 1));
          group_slab[h] = slab;
          (l == L ? leaf_src : inner_src)[slab] = offset[l] + K * parent;
        }
        return h;
      };
      // The winners claim their leaf groups; when the block has threads enough, those from
      // in_round on claim the groups of the levels above (thread in_round (1 + d) + i: winner
      // i's level L - 1 - d), so that no thread claims level after level (dependent atomics).
      const int in_round = min(plan.round, count - r0);
      const bool spread = (L - P + 1) * in_round <= kThreads;  // claims of all levels, and the pows (below)
      if (spread && static_cast<int>(threadIdx.x) >= in_round && static_cast<int>(threadIdx.x) < (L - P) * in_round) {
        const int d = static_cast<int>(threadIdx.x) / in_round - 1, i = static_cast<int>(threadIdx.x) % in_round;
        claim(L - 1 - d, winner_slot[r0 + i]);
      }
      int64_t s = 0;
      uint32_t slot_gen = 0, mark = 0, leaf_h = 0;  // leaf_h: the leaf group's entry in the group table
      if (mine) {
        s = winner_slot[t];
        slot_gen = v.generations[s];
        if (windows > 1) mark = v.marks[s];
        if (L > P) leaf_h = claim(L, s);
        if (!spread)
          for (int l = L - 1; l > P; --l) claim(l, s);
      }
      // The new leaf priority (a pow) of the round's j-th winner, by thread kThreads - 1 - j:
      // while the first threads claim, unless the round has more than kThreads / 2 winners (or,
      // spread, more than kThreads / (L - P + 1)).
      const int j = kThreads - 1 - static_cast<int>(threadIdx.x);
      if (j < plan.round && r0 + j < count) winner_priority[j] = LeafPriority(fabsf(winner_td[r0 + j]), v);
      const float my_td = mine ? winner_td[t] : 0.f;
      const uint32_t my_gen = mine ? winner_gen[t] : 0u;
      __syncthreads();  // groups claimed, priorities computed
      if (L > P)
        for (int g = warp; g < used[L]; g += kWarps)
          if (lane < K / 2) CopyAsync16(leaf_slabs + static_cast<int64_t>(g) * plan.leaf_stride + 2 * lane, v.sum + leaf_src[g] + 2 * lane);
      for (int l = L - 1; l > P; --l)
        for (int g = slab_of(l, warp); g < slab_of(l, used[l]); g += kWarps)
          if (lane < K) {
            const int half = lane / (K / 2), i = lane % (K / 2);  // sums, then mins
            CopyAsync16(inner_slabs + static_cast<int64_t>(g) * plan.inner_stride + half * K + 2 * i,
                        (half ? v.min : v.sum) + inner_src[g] + 2 * i);
          }
      const double priority = mine ? winner_priority[threadIdx.x] : 0.0;
      WaitCopies();
      __syncthreads();  // slabs loaded
      if (mine) {
        bool apply = false;
        const uint32_t tag = epoch + 1;
        if (windows > 1 && mark == tag) ++dups;
        else if (!isfinite(my_td)) ++rejected;
        else if (slot_gen != my_gen) ++stale;
        else apply = true;
        if (windows > 1 && mark != tag) v.marks[s] = tag;
        if (apply) {
          leaves[s] = priority;
          local_max = max(local_max, __float_as_uint(fabsf(my_td)));
          ++applied;
          if (L > P) leaf_slabs[static_cast<int64_t>(group_slab[leaf_h]) * plan.leaf_stride + (s & (K - 1))] = priority;
        }
      }
      __syncthreads();  // new leaves in their slabs
      // Bottom up, level by level: every group claimed at the level into its parent, which goes
      // to global memory and, below level P, to its own slab.
      for (int l = L; l > P; --l) {
        const auto store = [&](int64_t i, double sum, double min) {
          const int64_t parent = ((l == L ? leaf_src : inner_src)[slab_of(l, static_cast<int>(i))] - offset[l]) >> f;
          v.sum[offset[l - 1] + parent] = sum;
          v.min[offset[l - 1] + parent] = min;
          if (l - 1 > P) {
            const int up = group_slab[GroupFind(group_keys, plan.group_bits, GroupKey(offset, K, l - 1, parent >> f))];
            double* dst = inner_slabs + static_cast<int64_t>(up) * plan.inner_stride;
            dst[parent & (K - 1)] = sum;
            dst[K + (parent & (K - 1))] = min;
          }
        };
        if (l == L) {
          ReduceGroups<K, true>(used[l], [&](int64_t i) {
            const double* group = leaf_slabs + static_cast<int64_t>(slab_of(l, static_cast<int>(i))) * plan.leaf_stride;
            return std::make_pair(group, group);
          }, store);
        } else {
          ReduceGroups<K, false>(used[l], [&](int64_t i) {
            const double* group = inner_slabs + static_cast<int64_t>(slab_of(l, static_cast<int>(i))) * plan.inner_stride;
            return std::make_pair(group, group + K);
          }, store);
        }
        __syncthreads();
      }
      if (r0 + plan.round < count) {
        clear_groups();
        __syncthreads();
      }
    }
    if (w > 0) {
      __syncthreads();  // `winners` was read
      clear_entries();
      clear_groups();
    }
  }

  // This warp's counts (lane j < 5 holds the j-th) go into block 0 (st.async, credited to block
  // 0's mbarrier; block 0 writes its own). The first cluster barrier ordered the mbarrier's
  // initialisation before these.
  // (Selected, not indexed: an array indexed by lane would live in local memory.)
  const unsigned c_applied = __reduce_add_sync(0xffffffffu, applied), c_rejected = __reduce_add_sync(0xffffffffu, rejected),
                 c_stale = __reduce_add_sync(0xffffffffu, stale), c_dups = __reduce_add_sync(0xffffffffu, dups),
                 c_max = __reduce_max_sync(0xffffffffu, local_max);
  const unsigned my_count = lane == 0 ? c_applied : lane == 1 ? c_rejected : lane == 2 ? c_stale : lane == 3 ? c_dups : c_max;
  cluster.barrier_wait();
  if (!leader) {
    if (lane < 5) SendAsync(ClusterAddress(SharedAddress(&warp_counts[rank][warp][lane]), 0), my_count, ClusterAddress(handoff_at, 0));
    return;
  }
  if (lane < 5) warp_counts[0][warp][lane] = my_count;
  __syncthreads();  // block 0's own counts are in
  if (warp != kStateWarp) return;
  if (lane == 0) ExpectBytes(handoff_at, static_cast<unsigned>((kClusterBlocks - 1) * sizeof(warp_counts[0])));
  WaitHandoff(handoff_at);

  // The update's counts (lane i sums warps i, i + 32, ... of all blocks), its state and the epoch.
  unsigned sums[5] = {0, 0, 0, 0, 0};
  for (int i = lane; i < kClusterBlocks * kWarps; i += 32)
    for (int j = 0; j < 5; ++j) {
      const unsigned x = warp_counts[i / kWarps][i % kWarps][j];
      sums[j] = j < 4 ? sums[j] + x : max(sums[j], x);
    }
  for (int j = 0; j < 4; ++j) sums[j] = __reduce_add_sync(0xffffffffu, sums[j]);
  sums[4] = __reduce_max_sync(0xffffffffu, sums[4]);
  if (state_lane) {
    UpdateCounts last;
    last.applied = sums[0];
    last.rejected_nonfinite = sums[1];
    last.stale = sums[2];
    last.duplicates = sums[3];
    total.applied += last.applied;
    total.rejected_nonfinite += last.rejected_nonfinite;
    total.stale += last.stale;
    total.duplicates += last.duplicates;
    ws.last_update = last;
    ws.total_update = total;
    ws.max_priority = fmax(max_priority, static_cast<double>(__uint_as_float(sums[4])));
    ws.update_epoch = epoch + 1;
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
  const int levels = v.tree.levels, f = v.tree.fan_log, k = 1 << f;
  UpdatePlan plan;
  const int p = v.tree.part_level;
  plan.part_nodes = NeededNodes(v, p);
  plan.window = static_cast<int>(std::min<int64_t>(n, kWindow));
  plan.entry_bits = std::max(6, CeilLog2(2 * int64_t{plan.window}));
  plan.leaf_stride = 2 * ((k / 2) | 1);
  plan.inner_stride = 2 * (k | 1);
  const int below = levels - p;  // groups per winner: one of leaves, below - 1 of internal nodes
  const auto layout = [&](int round) {
    plan.round = round;
    plan.group_bits = std::max(6, CeilLog2(2 * int64_t{round} * std::max(below, 1)));
    unsigned at = 0;
    const auto take = [&](unsigned bytes) {
      const unsigned here = at;
      at = AlignUp16(at + bytes);
      return here;
    };
    plan.leaf_slabs = take(8u * round * plan.leaf_stride * (below > 0));
    plan.inner_slabs = take(8u * round * plan.inner_stride * std::max(below - 1, 0));
    plan.leaf_src = take(8u * round * (below > 0));
    plan.inner_src = take(8u * round * std::max(below - 1, 0));
    plan.entry_keys = take(4u << plan.entry_bits);
    plan.entry_last = take(4u << plan.entry_bits);
    plan.group_keys = take(4u << plan.group_bits);
    plan.winner_slot = take(4u * plan.window);
    plan.winner_td = take(4u * plan.window);
    plan.winner_gen = take(4u * plan.window);
    plan.winner_priority = take(8u * round);
    plan.group_slab = take(4u << plan.group_bits);
    plan.bytes = at;
  };
  int round = std::min(kThreads, plan.window);
  layout(round);
  while (round > 1 && plan.bytes > static_cast<unsigned>(shared_bytes)) layout(round = round * 3 / 4);
  return plan;
}

}  // namespace

cudaError_t PrepareUpdateKernels(int optin_bytes, int* shared_bytes) {
  const auto kernels = {UpdateKernel<2>, UpdateKernel<16>, UpdateKernel<32>};
  size_t static_bytes = 0;
  for (const auto kernel : kernels) {
    cudaFuncAttributes attributes{};
    if (const cudaError_t e = cudaFuncGetAttributes(&attributes, kernel); e != cudaSuccess) return e;
    static_bytes = std::max(static_bytes, attributes.sharedSizeBytes);
  }
  *shared_bytes = optin_bytes - static_cast<int>(static_bytes);
  for (const auto kernel : kernels)
    if (const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, *shared_bytes);
        e != cudaSuccess)
      return e;
  return cudaSuccess;
}

cudaError_t LaunchUpdate(const ReplayView& v, const int32_t* indices, const uint32_t* generations,
                         const float* td_errors, int64_t n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const UpdatePlan plan = PlanUpdate(v, n, v.shared_bytes);
  if (plan.bytes > static_cast<unsigned>(v.shared_bytes))
    return cudaErrorInvalidConfiguration;
  DQN_FANOUT_SWITCH(v.tree.fan_log, K, {
    return LaunchChained(v.chained_launches, v.l2_window, kClusterBlocks, UpdateKernel<K>, kClusterBlocks, kThreads, plan.bytes,
                         stream, v, plan, indices, generations, td_errors, n);
  })
  return cudaErrorInvalidValue;  // not reached: every fan-out case returns
}

}  // namespace dqn::cuda::detail
