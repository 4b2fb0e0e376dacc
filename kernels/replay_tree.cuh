// Device helpers of the CUDA replay's K-ary sum tree and min tree (layout in replay_launch.cuh):
// the priority transform, recomputing an internal node from its children, and the stratified
// descent by a group of K lanes (one coalesced load and a register prefix scan per level).
#pragma once
#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/replay_launch.cuh"

namespace dqn::cuda::detail {

/// Compile-time fan-out switch (CUTLASS/FlashAttention BOOL_SWITCH style): binds constexpr K
/// from a runtime log2 fan-out; unsupported fan-outs return cudaErrorInvalidValue.
#define DQN_FANOUT_SWITCH(FAN_LOG, K, ...)                          \
  switch (FAN_LOG) {                                                \
    case 1: { constexpr int K = 2; __VA_ARGS__ } break;             \
    case 4: { constexpr int K = 16; __VA_ARGS__ } break;            \
    case 5: { constexpr int K = 32; __VA_ARGS__ } break;            \
    default: return cudaErrorInvalidValue;                          \
  }

/// x^y with the exponents that the config uses most computed exactly as the host's correctly
/// rounded std::pow does (y = 1, 0, -1, 0.5: identity, one, IEEE division, IEEE sqrt); CUDA's
/// pow is within 2 ulp otherwise (e.g. it does not return x exactly for y = 1).
__device__ __forceinline__ double PowLikeHost(double x, double y) {
  if (y == 1.0) return x;
  if (y == 0.0) return 1.0;
  if (y == -1.0) return 1.0 / x;
  if (y == 0.5) return sqrt(x);
  return pow(x, y);
}

/// IS weight ratio^beta (ratio = P_min / P(i) in (0, 1]) as f64 exp2(beta log2 ratio), with
/// PowLikeHost's exact cases for beta = 1 and 0. The weight is returned as f32, and this is
/// within about 1e-15 relative of the correctly rounded power (far inside f32's 6e-8), at a
/// fraction of pow's latency: a full-accuracy f64 pow measured about 1500 cycles on the
/// sample kernel's critical path (bench/RESULTS.md, session 2, run 12).
__device__ __forceinline__ double IsWeight(double ratio, double beta) {
  if (beta == 1.0) return ratio;
  if (beta == 0.0) return 1.0;
  return exp2(beta * log2(ratio));
}

/// p = (min(|td|, p_clip) + eps)^alpha, in f64 (DESIGN section 3, Schaul et al. 2016 eq. 1).
__device__ __forceinline__ double LeafPriority(double td_abs, const ReplayView& v) {
  return PowLikeHost(fmin(td_abs, v.p_clip) + v.eps, v.alpha);
}

/// Largest double below x (nextafter(x, 0) for x > 0, by decrementing the bit pattern; 0 for
/// x <= 0): the clamp that keeps a mass strictly inside a range.
__device__ __forceinline__ double Below(double x) {
  return x > 0 ? __longlong_as_double(__double_as_longlong(x) - 1) : 0.0;
}

/// A leaf's contribution to the min tree: itself if positive, +inf for an empty slot (0).
__device__ __forceinline__ double LeafMin(double leaf) { return leaf > 0 ? leaf : INFINITY; }

/// Sum and minimum of K children read as K/2 pairs: sums(k) gives the sums of children 2k and
/// 2k+1, mins(k) their minima; for leaf children (kLeafChildren) the minimum is over the
/// positive sums (empty slots are left out) and mins is not called. Pairwise order (children
/// 2k + 2k+1, then neighbouring pairs, ...), merged as the pairs arrive (a binary counter: at
/// most log2 K partial sums live): a dependency chain of log2 K adds instead of K. Every node
/// of the tree is computed by this one function, so a node always equals its recomputation,
/// bit for bit.
template <int K, bool kLeafChildren, typename Sums, typename Mins>
__device__ __forceinline__ void ReduceChildren(Sums sums, Mins mins, double& sum, double& min) {
  constexpr int kLevels = K >= 32 ? 5 : K >= 16 ? 4 : K >= 8 ? 3 : K >= 4 ? 2 : 1;  // log2 K
  double partial_sum[kLevels], partial_min[kLevels];  // [i]: the pending subtree of 2^i pairs
#pragma unroll
  for (int k = 0; k < K / 2; ++k) {
    const double2 c = sums(k);
    double s = c.x + c.y, m;
    if constexpr (kLeafChildren) {
      m = fmin(LeafMin(c.x), LeafMin(c.y));
    } else {
      const double2 n = mins(k);
      m = fmin(n.x, n.y);
    }
#pragma unroll
    for (int i = 0; i < kLevels; ++i) {
      if (!(k >> i & 1)) {
        partial_sum[i] = s;
        partial_min[i] = m;
        break;
      }
      s = partial_sum[i] + s;
      m = fmin(partial_min[i], m);
    }
  }
  sum = partial_sum[kLevels - 1];
  min = partial_min[kLevels - 1];
}

/// Joins K consecutive lanes (a power of two <= 32): lane k holds the sum and min of the k-th of
/// K aligned, equal blocks of a group's children (one child each, or a ReduceChildren of its
/// block; a leaf's min is LeafMin(leaf)). A butterfly of xor-shuffles (offsets 1, 2, .., K/2)
/// leaves the group's sum and minimum in every lane, bit for bit as ReduceChildren over all the
/// children: after offset 2^i every lane holds the sum of its aligned run of 2^(i+1) blocks, as
/// the left run + the right run (IEEE addition is commutative, so both halves' lanes get the
/// same bits), which is the pairwise order. All 32 lanes of the warp must call it.
template <int K>
__device__ __forceinline__ void ReduceLanes(double& sum, double& min) {
#pragma unroll
  for (int off = 1; off < K; off <<= 1) {
    sum += __shfl_xor_sync(0xffffffffu, sum, off, K);
    min = fmin(min, __shfl_xor_sync(0xffffffffu, min, off, K));
  }
}

/// Sum and minimum (ReduceChildren) of internal node j of level l (< L), read from its K
/// children. Children are K-aligned, so loads are 16 bytes wide; they go through L2
/// (ld.global.cg) and are all issued before the first add.
template <int K>
__device__ __forceinline__ void NodeValue(const ReplayView& v, const int64_t* offset, int l, int64_t j, double& sum,
                                          double& min) {
  const int64_t first = offset[l + 1] + static_cast<int64_t>(K) * j;
  const double2* child = reinterpret_cast<const double2*>(v.sum + first);
  double2 c[K / 2];
#pragma unroll
  for (int k = 0; k < K / 2; ++k) c[k] = __ldcg(child + k);
  if (l + 1 == v.tree.levels) {
    ReduceChildren<K, true>([&](int k) { return c[k]; }, [&](int k) { return c[k]; }, sum, min);
    return;
  }
  const double2* cmin = reinterpret_cast<const double2*>(v.min + first);
  double2 n[K / 2];
#pragma unroll
  for (int k = 0; k < K / 2; ++k) n[k] = __ldcg(cmin + k);
  ReduceChildren<K, false>([&](int k) { return c[k]; }, [&](int k) { return n[k]; }, sum, min);
}

/// Recomputes internal node j of level l (< L) from its K children (NodeValue) and stores it.
template <int K>
__device__ __forceinline__ void RecomputeNode(const ReplayView& v, const int64_t* offset, int l, int64_t j) {
  double s, m;
  NodeValue<K>(v, offset, l, j, s, m);
  v.sum[offset[l] + j] = s;
  v.min[offset[l] + j] = m;
}

/// Copies the level offsets into shared memory (one thread per level, all loads at once), so
/// the level loops index shared memory instead of the kernel parameters (a run-time index into
/// the parameter bank is a dependent constant-cache load per level). Needs a barrier before use.
__device__ __forceinline__ void StageOffsets(const ReplayView& v, int64_t* offset) {
  if (threadIdx.x <= static_cast<unsigned>(v.tree.levels)) offset[threadIdx.x] = v.tree.offset[threadIdx.x];
}

/// Arrival at a last-block counter: atomically adds 1 with acquire-release semantics at device
/// scope and returns the old value. Called by one thread after a block barrier, it publishes
/// the block's writes to the block that arrives last, which then sees every block's writes
/// (after its own barrier); cheaper than __threadfence() + atomicAdd.
__device__ __forceinline__ unsigned ArriveAcqRel(unsigned* counter) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(counter) : "memory");
  return old;
}

/// Nodes of level l that cover stored slots: ceil(capacity / K^(L - l)).
__device__ __host__ __forceinline__ int64_t NeededNodes(const ReplayView& v, int l) {
  const int shift = v.tree.fan_log * (v.tree.levels - l);
  return (v.capacity + (int64_t{1} << shift) - 1) >> shift;
}

/// Children of level P per thread (C) when a block derives level P - 1 from the partition level
/// P: level P - 1 has at most 32 needed nodes (kTopLevelNodes), so level P at most 32 K nodes,
/// and K / C threads per node (8 for K >= 16, one for K = 2) cover it with 256 threads.
template <int K>
inline constexpr int kTopChildren = K >= 16 ? K / 8 : 2;

/// The threads of a block that derives the levels above the partition level (LoadTopChunk, StageTop).
inline constexpr int kTopThreads = 256;

/// One thread's share of level P: children [C t, C t + C) of level P (t = threadIdx.x < 256),
/// sums and minima as pairs; a share past the level's nodes holds empty children (0, +inf).
template <int K>
struct TopChunk {
  static constexpr int C = kTopChildren<K>;
  double2 sum[C / 2], min[C / 2];
};

/// Loads this thread's TopChunk of level P (v.tree.part_level); a leaf level's (P = L) minima
/// are LeafMin of its leaves. Plain loads only, so that the caller can issue its other loads
/// before the first use of these.
template <int K>
__device__ __forceinline__ TopChunk<K> LoadTopChunk(const ReplayView& v) {
  TopChunk<K> c;
  constexpr int C = TopChunk<K>::C;
  const int P = v.tree.part_level;
  const int64_t first = static_cast<int64_t>(threadIdx.x) * C;
  const bool in = first < v.tree.count[P], leaves = P == v.tree.levels;
  const double2* sums = reinterpret_cast<const double2*>(v.sum + v.tree.offset[P] + first);
  const double2* mins = reinterpret_cast<const double2*>(v.min + v.tree.offset[P] + first);
#pragma unroll
  for (int k = 0; k < C / 2; ++k) {
    c.sum[k] = in ? __ldg(sums + k) : make_double2(0.0, 0.0);
    c.min[k] = in && !leaves ? __ldg(mins + k) : make_double2(INFINITY, INFINITY);
  }
  if (in && leaves)
#pragma unroll
    for (int k = 0; k < C / 2; ++k) c.min[k] = make_double2(LeafMin(c.sum[k].x), LeafMin(c.sum[k].y));
  return c;
}

/// Minimum over the warp of x >= 0 (+inf included; no NaN): non-negative doubles order as their
/// bit patterns, so two 32-bit warp reductions (high words, then the low words of the lanes
/// that hold the smallest high word) find it exactly, without shuffles. All lanes call it.
__device__ __forceinline__ double WarpMinNonNegative(double x) {
  const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(x));
  const unsigned hi = __reduce_min_sync(0xffffffffu, static_cast<unsigned>(bits >> 32));
  const unsigned lo = __reduce_min_sync(0xffffffffu, static_cast<unsigned>(bits >> 32) == hi ? static_cast<unsigned>(bits) : ~0u);
  return __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(hi) << 32) | lo));
}

static_assert(kTopLevelNodes <= 32, "StageTop and StoreUpperLevels hold level P - 1 one node per lane of a warp");

/// Shared memory of a block that derives the levels above P: level P - 1 (32 entries) and each
/// warp's pairwise sum and minimum of its threads' TopChunks.
struct TopShared {
  __align__(16) double up_sum[32];
  __align__(16) double up_min[32];
  __align__(16) double warp_sum[kTopThreads / 32];
  __align__(16) double warp_min[kTopThreads / 32];
};

/// First half of a top derivation, by every thread of a block of kTopThreads (a barrier must
/// follow): the K / C threads of node i of level P - 1 join their chunks (ReduceChildren<C>, then
/// xor-shuffles: ReduceChildren<K>'s pairwise order, bit for bit) and write its sum to
/// s.up_sum[i] (i < 32; past the needed nodes the empty pair) and, when level P - 1 is below the
/// root, to `top`; with kNodeMins its min to s.up_min[i]. The shuffles then go on to the warp's
/// pairwise sum of its 32 C children, and the warp's minimum (WarpMinNonNegative) joins it in
/// s.warp_sum / s.warp_min, from which RootFromWarps forms the root. When `top` is given (a copy
/// of sum[offset[1] .., see Descend), the chunk's sums go there too.
template <int K, bool kNodeMins>
__device__ __forceinline__ void StageTop(const TopChunk<K>& c, const ReplayView& v, double* top, TopShared& s) {
  constexpr int C = TopChunk<K>::C, G = K / C;
  const int P = v.tree.part_level;
  const int64_t first = static_cast<int64_t>(threadIdx.x) * C;
  if (top && first < v.tree.count[P]) {
    double2* dst = reinterpret_cast<double2*>(top + (v.tree.offset[P] - v.tree.offset[1]) + first);
#pragma unroll
    for (int k = 0; k < C / 2; ++k) dst[k] = c.sum[k];
  }
  double sum, min;
  ReduceChildren<C, false>([&](int k) { return c.sum[k]; }, [&](int k) { return c.min[k]; }, sum, min);
#pragma unroll
  for (int off = 1; off < G; off <<= 1) {
    sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if constexpr (kNodeMins) min = fmin(min, __shfl_xor_sync(0xffffffffu, min, off));
  }
  const int node = static_cast<int>(threadIdx.x) / G;
  if (threadIdx.x % G == 0 && node < 32) {
    s.up_sum[node] = sum;
    if constexpr (kNodeMins) s.up_min[node] = min;
    if (top && P > 1 && node < v.tree.count[P - 1]) top[v.tree.offset[P - 1] - v.tree.offset[1] + node] = sum;
  }
#pragma unroll
  for (int off = G; off < 32; off <<= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  min = WarpMinNonNegative(min);
  if ((threadIdx.x & 31) == 0) s.warp_sum[threadIdx.x / 32] = sum, s.warp_min[threadIdx.x / 32] = min;
}

/// The roots of the sum and min trees from StageTop's warp shares (after the barrier; any
/// thread): the warps' sums cover level P's first kTopThreads C positions (>= 32 K, a power of
/// two) in aligned blocks, so their pairwise sum is the root's pairwise sum over level P: the
/// positions past the level's nodes only add exact zeros.
__device__ __forceinline__ void RootFromWarps(const TopShared& s, double& total, double& min_total) {
  const double2* sums = reinterpret_cast<const double2*>(s.warp_sum);
  const double2* mins = reinterpret_cast<const double2*>(s.warp_min);
  ReduceChildren<kTopThreads / 32, false>([&](int k) { return sums[k]; }, [&](int k) { return mins[k]; }, total, min_total);
}

/// Levels P - 2 .. 1 (only K < 32 trees with P >= 3 have them) from s.up_sum / s.up_min (level
/// P - 1, StageTop; without kMins the minima are not read and +inf is passed), by one warp (all
/// lanes call it): store(l, j, sum, min) takes node j of each level, padding nodes (the empty
/// pair) included.
template <int K, bool kMins, typename Store>
__device__ __forceinline__ void StoreUpperLevels(const ReplayView& v, const TopShared& s, Store store) {
  const int lane = threadIdx.x & 31;
  double sum = s.up_sum[lane], min = kMins ? s.up_min[lane] : INFINITY;
  for (int l = v.tree.part_level - 1; l > 1; --l) {
    ReduceLanes<K>(sum, min);  // lanes [gK, gK + K) hold node g of level l - 1
    const bool in = lane * K < 32;
    const double s_next = __shfl_sync(0xffffffffu, sum, (lane * K) & 31), m_next = __shfl_sync(0xffffffffu, min, (lane * K) & 31);
    sum = in ? s_next : 0.0;
    min = in ? m_next : INFINITY;
    if (lane < v.tree.count[l - 1]) store(l - 1, lane, sum, min);
  }
}

/// Stratified descent by a group of K consecutive lanes (all lanes of the warp must call it).
/// Rule at each level: go to the first non-empty child c with m < (sum of children 0..c), i.e.
/// go left iff m < left; m is then made relative to child c and clamped into [0, value_c). A
/// child of value 0 (an empty slot, or a padding node past the needed ones, whose children do
/// not exist) is never entered: the lanes' prefix sums come from a log-step scan whose rounding
/// differs from lane to lane, so a zero child's prefix can exceed its left neighbour's by an ulp
/// and catch an m near the group's total (found by compute-sanitizer: a read past the tree). If
/// rounding leaves m past the children's sum, the last non-empty child is taken. Levels
/// 1 .. top_levels are read from `top` (a shared-memory copy of sum[offset[1] ..
/// offset[top_levels + 1])), the rest from global memory. Returns the leaf (slot) index and sets
/// `leaf` to its value, the same in every lane.
template <int K>
__device__ __forceinline__ int64_t Descend(const ReplayView& v, const int64_t* offset, double m, const double* top,
                                           int top_levels, double& leaf) {
  const int lane = threadIdx.x & 31;
  const int g = lane & (K - 1);
  const unsigned group_bits = K == 32 ? 0xffffffffu : ((1u << K) - 1u) << (lane & ~(K - 1));
  const int base = lane & ~(K - 1);
  int64_t node = 0;
  double xc = 0;
  for (int l = 0; l < v.tree.levels; ++l) {
    const int64_t at = offset[l + 1] + static_cast<int64_t>(K) * node + g;
    const double x = l < top_levels ? top[at - offset[1]] : v.sum[at];
    double incl = x;
#pragma unroll
    for (int off = 1; off < K; off <<= 1) {
      const double y = __shfl_up_sync(0xffffffffu, incl, off, K);
      if (g >= off) incl += y;
    }
    const unsigned nonempty = (__ballot_sync(0xffffffffu, x > 0) & group_bits) >> base;
    const unsigned go = ((__ballot_sync(0xffffffffu, m < incl) & group_bits) >> base) & nonempty;
    const int c = go ? __ffs(go) - 1 : (nonempty ? 31 - __clz(nonempty) : 0);
    xc = __shfl_sync(0xffffffffu, x, c, K);
    const double excl = __shfl_sync(0xffffffffu, incl - x, c, K);
    const double rel = go ? m - excl : xc;
    m = xc > 0 ? fmin(fmax(rel, 0.0), Below(xc)) : 0.0;
    node = static_cast<int64_t>(K) * node + c;
  }
  leaf = xc;
  return node;
}

/// Loads element k of a stored state row as f32.
template <bool kBf16>
__device__ __forceinline__ float LoadState(const void* base, int64_t k) {
  if constexpr (kBf16) return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[k]);
  else return static_cast<const float*>(base)[k];
}

/// Stores x as element k of a stored state row.
template <bool kBf16>
__device__ __forceinline__ void StoreState(void* base, int64_t k, float x) {
  if constexpr (kBf16) static_cast<__nv_bfloat16*>(base)[k] = __float2bfloat16_rn(x);
  else static_cast<float*>(base)[k] = x;
}

}  // namespace dqn::cuda::detail
