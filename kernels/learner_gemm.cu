// Grouped matrix products of the CUDA learner (see learner_launch.cuh): every layer of the
// dueling MLP, forward and backward, is one launch of up to kMaxGemmProblems products whose
// output tiles are spread over the blocks. Operands are read through strides (so Wᵀ and Xᵀ
// need no copies) and staged through registers into shared memory, the next K step's loads in
// flight while this step multiplies; products accumulate in FP32 (WMMA fragments on tensor
// cores for TF32 and BF16, split into high and low parts for FP32-level accuracy; SIMT FMAs
// for the FP32 reference mode). The epilogue (bias, rank-one term, ReLU, ReLU mask)
// runs in FP32 on the tile staged in shared memory. The approach is that of tiny-cuda-nn's
// fully fused MLP (Müller et al. 2021) cut at layer boundaries: at width 256 one layer's
// weights (256 KB) do not fit one block's shared memory.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "kernels/learner_launch.cuh"

namespace dqn::cuda::detail {
namespace {

using namespace nvcuda;

// Tile shapes. A block computes a kTileM x kTileN output tile with 4 warps in a 2 x 2 grid
// (32 x 32 each: 2 x 2 WMMA 16 x 16 fragments), stepping through K by kTileK. Shared memory:
// A [64 x 32] and B [32 x 64] tiles (padded rows: 16-byte multiples, no bank-aligned strides)
// then the [64 x 64] f32 output tile for the epilogue, in one union: 18 KB. Registers: each
// thread holds the next step's 16 + 16 operand values.
constexpr int kTileM = 64, kTileN = 64, kTileK = 32;
constexpr int kThreads = 128;
constexpr int kLdA = kTileK + 8;  // elements; 160 B (f32) / 80 B (bf16) rows
constexpr int kLdB = kTileN + 8;  // 288 B / 144 B rows
constexpr int kLdC = kTileN + 4;  // 272 B rows

constexpr int kPerThreadA = kTileM * kTileK / kThreads, kPerThreadB = kTileK * kTileN / kThreads;  // 16 each

__device__ __forceinline__ float Load(const MatIn& m, int i, int j, int rows, int cols) {
  if (i >= rows || j >= cols) return 0.0f;
  if (i == m.ones_row) return 1.0f;
  return __ldg(m.ptr + static_cast<int64_t>(i) * m.rs + static_cast<int64_t>(j) * m.cs);
}

// Shared tiles. FP32 and TF32 keep the raw f32 values (TF32 splits them when it loads its
// fragments); BF16 keeps each value split into a bf16 high part and a bf16 low part
// (x = hi + lo to 16 bits of mantissa). Same bytes either way: 18 KB with the output tile.
template <Precision P>
struct alignas(32) Smem {
  static constexpr bool kSplit = P == Precision::kBF16;
  using T = std::conditional_t<kSplit, __nv_bfloat16, float>;
  union {
    struct {
      alignas(32) T a[kSplit ? 2 : 1][kTileM * kLdA];
      alignas(32) T b[kSplit ? 2 : 1][kTileK * kLdB];
    } in;
    alignas(32) float c[kTileM * kLdC];
  };
};

/// The A tile [i0.., k0..] and the B tile [k0.., j0..] of one K step, in registers: every load
/// is issued before the first is used (the loads of the next step overlap this step's products).
/// Each operand is read along its unit stride, so a warp's loads are coalesced.
struct Fetched {
  float a[kPerThreadA], b[kPerThreadB];
};

__device__ __forceinline__ void TileCoords(bool along_first, int e, int rows, int cols, int& r, int& c) {
  // along_first: consecutive threads walk the tile's columns (the operand's unit stride).
  r = along_first ? e / cols : e % rows;
  c = along_first ? e % cols : e / rows;
}

__device__ __forceinline__ void Fetch(const GemmProblem& p, int i0, int j0, int k0, Fetched& f) {
  const bool a_rows = p.a.cs == 1, b_rows = p.b.cs == 1;
#pragma unroll
  for (int u = 0; u < kPerThreadA; ++u) {
    int r, kk;
    TileCoords(a_rows, threadIdx.x + u * kThreads, kTileM, kTileK, r, kk);
    f.a[u] = Load(p.a, i0 + r, k0 + kk, p.m, p.k);
  }
#pragma unroll
  for (int u = 0; u < kPerThreadB; ++u) {
    int kk, cc;
    TileCoords(b_rows, threadIdx.x + u * kThreads, kTileK, kTileN, kk, cc);
    f.b[u] = Load(p.b, k0 + kk, j0 + cc, p.k, p.n);
  }
}

template <Precision P>
__device__ __forceinline__ void Put(typename Smem<P>::T* tile_hi, typename Smem<P>::T* tile_lo, int at, float x) {
  if constexpr (Smem<P>::kSplit) {
    const __nv_bfloat16 hi = __float2bfloat16_rn(x);
    tile_hi[at] = hi;
    tile_lo[at] = __float2bfloat16_rn(x - __bfloat162float(hi));
  } else {
    tile_hi[at] = x;
  }
}

template <Precision P>
__device__ __forceinline__ void Stage(const GemmProblem& p, const Fetched& f, Smem<P>& s) {
  const bool a_rows = p.a.cs == 1, b_rows = p.b.cs == 1;
  constexpr int kLo = Smem<P>::kSplit ? 1 : 0;
#pragma unroll
  for (int u = 0; u < kPerThreadA; ++u) {
    int r, kk;
    TileCoords(a_rows, threadIdx.x + u * kThreads, kTileM, kTileK, r, kk);
    Put<P>(s.in.a[0], s.in.a[kLo], r * kLdA + kk, f.a[u]);
  }
#pragma unroll
  for (int u = 0; u < kPerThreadB; ++u) {
    int kk, cc;
    TileCoords(b_rows, threadIdx.x + u * kThreads, kTileK, kTileN, kk, cc);
    Put<P>(s.in.b[0], s.in.b[kLo], kk * kLdB + cc, f.b[u]);
  }
}

// The K loop: fetch step k+1 into registers while step k's tiles are multiplied.
template <Precision P, typename Body>
__device__ __forceinline__ void KLoop(const GemmProblem& p, int i0, int j0, int k_begin, int k_end, Smem<P>& s, Body body) {
  Fetched f;
  if (k_begin < k_end) Fetch(p, i0, j0, k_begin, f);
  for (int k0 = k_begin; k0 < k_end; k0 += kTileK) {
    __syncthreads();
    Stage<P>(p, f, s);
    __syncthreads();
    if (k0 + kTileK < k_end) Fetch(p, i0, j0, k0 + kTileK, f);
    body();
  }
  __syncthreads();
}

/// hi holds raw f32 values: leaves their TF32 rounding in hi and the TF32 rounding of the rest in lo.
template <typename Frag>
__device__ __forceinline__ void SplitTf32(Frag& hi, Frag& lo) {
#pragma unroll
  for (int e = 0; e < hi.num_elements; ++e) {
    const float v = hi.x[e];
    hi.x[e] = wmma::__float_to_tf32(v);
    lo.x[e] = wmma::__float_to_tf32(v - hi.x[e]);
  }
}

/// The fragment at `at` of a staged tile as a high and a low part: BF16 tiles hold both parts
/// already; TF32 tiles hold the raw value, split here.
template <bool kBf16, typename Frag, typename T>
__device__ __forceinline__ void LoadSplit(Frag& hi, Frag& lo, const T* tile_hi, const T* tile_lo, int at, int ld) {
  wmma::load_matrix_sync(hi, tile_hi + at, ld);
  if constexpr (kBf16) wmma::load_matrix_sync(lo, tile_lo + at, ld);
  else SplitTf32(hi, lo);
}

// Accumulates the output tile over the whole K range, then leaves it in s.c.
// TF32 and BF16 split each operand x = hi + lo and sum three tensor-core products per step
// (lo·hi + hi·lo + hi·hi; lo·lo is below FP32 rounding): the result is as accurate as an FP32
// product (CUTLASS's "3xTF32"), because a single rounding of the inputs flips ReLU masks and
// moves sums with cancellation (first-layer weight gradients) by percents.
template <Precision P>
__device__ void TileProduct(const GemmProblem& p, int i0, int j0, int k_begin, int k_end, Smem<P>& s) {
  const int warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
  if constexpr (P == Precision::kF32) {
    // 8 rows x 4 columns per thread: rows ty*8.., columns tx*4..
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    float acc[8][4] = {};
    KLoop<P>(p, i0, j0, k_begin, k_end, s, [&] {
#pragma unroll 4
      for (int kk = 0; kk < kTileK; ++kk) {
        float a[8], b[4];
#pragma unroll
        for (int r = 0; r < 8; ++r) a[r] = s.in.a[0][(ty * 8 + r) * kLdA + kk];
#pragma unroll
        for (int c = 0; c < 4; ++c) b[c] = s.in.b[0][kk * kLdB + tx * 4 + c];
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
          for (int c = 0; c < 4; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
      }
    });
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) s.c[(ty * 8 + r) * kLdC + tx * 4 + c] = acc[r][c];
  } else {
    constexpr bool kBf16 = P == Precision::kBF16;
    constexpr int kK = kBf16 ? 16 : 8;  // WMMA shape m16n16k16 (bf16) or m16n16k8 (tf32)
    using FragIn = std::conditional_t<kBf16, __nv_bfloat16, wmma::precision::tf32>;
    using FragA = wmma::fragment<wmma::matrix_a, 16, 16, kK, FragIn, wmma::row_major>;
    using FragB = wmma::fragment<wmma::matrix_b, 16, 16, kK, FragIn, wmma::row_major>;
    wmma::fragment<wmma::accumulator, 16, 16, kK, float> acc[2][2];
#pragma unroll
    for (int x = 0; x < 2; ++x)
#pragma unroll
      for (int y = 0; y < 2; ++y) wmma::fill_fragment(acc[x][y], 0.0f);
    KLoop<P>(p, i0, j0, k_begin, k_end, s, [&] {
#pragma unroll
      for (int kk = 0; kk < kTileK; kk += kK) {
        FragA a_hi[2], a_lo[2];
        FragB b_hi[2], b_lo[2];
        constexpr int kLo = kBf16 ? 1 : 0;
#pragma unroll
        for (int x = 0; x < 2; ++x) LoadSplit<kBf16>(a_hi[x], a_lo[x], s.in.a[0], s.in.a[kLo], (wm * 32 + x * 16) * kLdA + kk, kLdA);
#pragma unroll
        for (int y = 0; y < 2; ++y) LoadSplit<kBf16>(b_hi[y], b_lo[y], s.in.b[0], s.in.b[kLo], kk * kLdB + wn * 32 + y * 16, kLdB);
#pragma unroll
        for (int x = 0; x < 2; ++x)
#pragma unroll
          for (int y = 0; y < 2; ++y) {
            wmma::mma_sync(acc[x][y], a_lo[x], b_hi[y], acc[x][y]);
            wmma::mma_sync(acc[x][y], a_hi[x], b_lo[y], acc[x][y]);
            wmma::mma_sync(acc[x][y], a_hi[x], b_hi[y], acc[x][y]);
          }
      }
    });
#pragma unroll
    for (int x = 0; x < 2; ++x)
#pragma unroll
      for (int y = 0; y < 2; ++y)
        wmma::store_matrix_sync(s.c + (wm * 32 + x * 16) * kLdC + wn * 32 + y * 16, acc[x][y], kLdC, wmma::mem_row_major);
  }
  __syncthreads();
}

/// K range of one split: whole kTileK steps, the last split takes the rest.
__host__ __device__ __forceinline__ int SplitLength(int k, int splits) {
  const int steps = (k + kTileK - 1) / kTileK;
  return ((steps + splits - 1) / splits) * kTileK;
}

template <Precision P>
__global__ void __launch_bounds__(kThreads) GemmKernel(GemmBatch batch) {
  __shared__ Smem<P> s;
  __shared__ bool last;
  int q = 0;
  while (q + 1 < batch.count && static_cast<int>(blockIdx.x) >= batch.block_start[q + 1]) ++q;
  const GemmProblem& p = batch.p[q];
  const int splits = batch.splits[q];
  const int local = static_cast<int>(blockIdx.x) - batch.block_start[q];
  const int tile = local / splits, split = local % splits;
  const int tiles_n = (p.n + kTileN - 1) / kTileN;
  const int i0 = (tile / tiles_n) * kTileM, j0 = (tile % tiles_n) * kTileN;
  const int len = SplitLength(p.k, splits);
  const int k_begin = split * len, k_end = min(p.k, k_begin + len);
  TileProduct<P>(p, i0, j0, k_begin, k_end, s);
  if (splits > 1) {
    // Split-K: publish this split's partial tile; the tile's last block sums all of them.
    const int64_t slot = static_cast<int64_t>(batch.tile_base[q] + tile);
    float* const all = batch.workspace.partials + batch.partial_base[q] + static_cast<int64_t>(tile) * splits * (kTileM * kTileN);
    float* mine = all + split * (kTileM * kTileN);
    for (int e = threadIdx.x; e < kTileM * kTileN; e += kThreads) mine[e] = s.c[(e / kTileN) * kLdC + e % kTileN];
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      last = atomicAdd(batch.workspace.counters + slot, 1u) == static_cast<unsigned>(splits - 1);
      if (last) batch.workspace.counters[slot] = 0;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    for (int e = threadIdx.x; e < kTileM * kTileN; e += kThreads) {
      float sum = 0.0f;
      for (int k = 0; k < splits; ++k) sum += __ldcg(all + k * (kTileM * kTileN) + e);
      s.c[(e / kTileN) * kLdC + e % kTileN] = sum;
    }
    __syncthreads();
  }
  for (int e = threadIdx.x; e < kTileM * kTileN; e += kThreads) {
    const int r = e / kTileN, cc = e % kTileN, i = i0 + r, j = j0 + cc;
    if (i >= p.m || j >= p.n) continue;
    float y = s.c[r * kLdC + cc];
    if (p.bias) y += p.bias[j];
    if (p.u) y += p.u[i] * p.v[j];
    if (p.relu) y = fmaxf(y, 0.0f);
    if (p.mask && !(p.mask[static_cast<int64_t>(i) * p.ldm + j] > 0.0f)) y = 0.0f;
    p.c[static_cast<int64_t>(i) * p.ldc + j] = y;
  }
}

/// Splits per tile: about kSplitSteps K steps per block, at most kMaxSplits, none when the
/// problem's tiles alone fill the machine.
constexpr int kSplitSteps = 1, kMaxSplits = 32;

int SplitsFor(const GemmProblem& p) {
  const int steps = (p.k + kTileK - 1) / kTileK;
  const int splits = (steps + kSplitSteps - 1) / kSplitSteps;
  return splits < 1 ? 1 : (splits > kMaxSplits ? kMaxSplits : splits);
}

int TilesOf(const GemmProblem& p) { return ((p.m + kTileM - 1) / kTileM) * ((p.n + kTileN - 1) / kTileN); }

}  // namespace

GemmWorkspaceSize GemmWorkspaceNeeded(const GemmBatch& batch) {
  GemmWorkspaceSize w;
  for (int q = 0; q < batch.count; ++q) {
    const int splits = SplitsFor(batch.p[q]);
    if (splits < 2) continue;
    w.counters += TilesOf(batch.p[q]);
    w.partial_floats += static_cast<int64_t>(TilesOf(batch.p[q])) * splits * kTileM * kTileN;
  }
  return w;
}

cudaError_t LaunchGemm(GemmBatch batch, Precision precision, cudaStream_t stream) {
  if (batch.count < 1 || batch.count > kMaxGemmProblems) return cudaErrorInvalidValue;
  int blocks = 0, tiles_split = 0;
  int64_t partials = 0;
  for (int q = 0; q < batch.count; ++q) {
    const GemmProblem& p = batch.p[q];
    if (p.m < 0 || p.n < 0 || p.k < 0) return cudaErrorInvalidValue;
    batch.splits[q] = SplitsFor(p);
    batch.block_start[q] = blocks;
    batch.tile_base[q] = tiles_split;
    batch.partial_base[q] = partials;
    if (batch.splits[q] > 1) {
      tiles_split += TilesOf(p);
      partials += static_cast<int64_t>(TilesOf(p)) * batch.splits[q] * kTileM * kTileN;
    }
    blocks += TilesOf(p) * batch.splits[q];
  }
  batch.block_start[batch.count] = blocks;
  if (tiles_split > 0 && (!batch.workspace.partials || !batch.workspace.counters)) return cudaErrorInvalidValue;
  if (blocks == 0) return cudaSuccess;
  switch (precision) {
    case Precision::kF32: GemmKernel<Precision::kF32><<<blocks, kThreads, 0, stream>>>(batch); break;
    case Precision::kTF32: GemmKernel<Precision::kTF32><<<blocks, kThreads, 0, stream>>>(batch); break;
    case Precision::kBF16: GemmKernel<Precision::kBF16><<<blocks, kThreads, 0, stream>>>(batch); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
