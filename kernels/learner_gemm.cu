// Grouped matrix products of the CUDA learner (see learner_launch.cuh): every layer of the
// dueling MLP, forward and backward, is one launch of up to kMaxGemmProblems products whose
// output tiles are spread over the blocks. Operands are read through strides (so Wᵀ and Xᵀ
// need no copies) and converted once, on their way into shared memory, to the precision's
// input type; products accumulate in FP32 (WMMA fragments on tensor cores for TF32 and BF16,
// SIMT FMAs for the FP32 reference mode). The epilogue (bias, rank-one term, ReLU, ReLU mask)
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
// then the [64 x 64] f32 output tile for the epilogue, in one union: 18 KB.
constexpr int kTileM = 64, kTileN = 64, kTileK = 32;
constexpr int kThreads = 128;
constexpr int kLdA = kTileK + 8;  // elements; 160 B (f32) / 80 B (bf16) rows
constexpr int kLdB = kTileN + 8;  // 288 B / 144 B rows
constexpr int kLdC = kTileN + 4;  // 272 B rows

template <Precision P> struct InputType { using T = float; };
template <> struct InputType<Precision::kBF16> { using T = __nv_bfloat16; };

template <Precision P>
__device__ __forceinline__ typename InputType<P>::T Convert(float x) {
  if constexpr (P == Precision::kBF16) return __float2bfloat16_rn(x);
  else if constexpr (P == Precision::kTF32) return wmma::__float_to_tf32(x);
  else return x;
}

__device__ __forceinline__ float Load(const MatIn& m, int i, int j, int rows, int cols) {
  if (i >= rows || j >= cols) return 0.0f;
  if (i == m.ones_row) return 1.0f;
  return m.ptr[static_cast<int64_t>(i) * m.rs + static_cast<int64_t>(j) * m.cs];
}

template <Precision P>
struct alignas(32) Smem {
  using T = typename InputType<P>::T;
  union {
    struct {
      alignas(32) T a[kTileM * kLdA];
      alignas(32) T b[kTileK * kLdB];
    } in;
    alignas(32) float c[kTileM * kLdC];
  };
};

// Stages the A tile [i0.., k0..] and the B tile [k0.., j0..], reading along each operand's
// unit stride so that a warp's loads are coalesced.
template <Precision P>
__device__ void StageTiles(const GemmProblem& p, int i0, int j0, int k0, Smem<P>& s) {
  for (int e = threadIdx.x; e < kTileM * kTileK; e += kThreads) {
    const bool along_k = p.a.cs == 1;
    const int r = along_k ? e / kTileK : e % kTileM, kk = along_k ? e % kTileK : e / kTileM;
    s.in.a[r * kLdA + kk] = Convert<P>(Load(p.a, i0 + r, k0 + kk, p.m, p.k));
  }
  for (int e = threadIdx.x; e < kTileK * kTileN; e += kThreads) {
    const bool along_n = p.b.cs == 1;
    const int kk = along_n ? e / kTileN : e % kTileK, cc = along_n ? e % kTileN : e / kTileK;
    s.in.b[kk * kLdB + cc] = Convert<P>(Load(p.b, k0 + kk, j0 + cc, p.k, p.n));
  }
}

// Accumulates the output tile in registers over the whole K range, then leaves it in s.c.
template <Precision P>
__device__ void TileProduct(const GemmProblem& p, int i0, int j0, Smem<P>& s) {
  const int warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
  if constexpr (P == Precision::kF32) {
    // 8 rows x 4 columns per thread: rows ty*8.., columns tx*4..
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    float acc[8][4] = {};
    for (int k0 = 0; k0 < p.k; k0 += kTileK) {
      __syncthreads();
      StageTiles<P>(p, i0, j0, k0, s);
      __syncthreads();
#pragma unroll 4
      for (int kk = 0; kk < kTileK; ++kk) {
        float a[8], b[4];
#pragma unroll
        for (int r = 0; r < 8; ++r) a[r] = s.in.a[(ty * 8 + r) * kLdA + kk];
#pragma unroll
        for (int c = 0; c < 4; ++c) b[c] = s.in.b[kk * kLdB + tx * 4 + c];
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
          for (int c = 0; c < 4; ++c) acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
      }
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
      for (int c = 0; c < 4; ++c) s.c[(ty * 8 + r) * kLdC + tx * 4 + c] = acc[r][c];
  } else {
    constexpr bool kBf16 = P == Precision::kBF16;
    constexpr int kK = kBf16 ? 16 : 8;  // WMMA shape m16n16k16 (bf16) or m16n16k8 (tf32)
    using FragIn = std::conditional_t<kBf16, __nv_bfloat16, wmma::precision::tf32>;
    wmma::fragment<wmma::accumulator, 16, 16, kK, float> acc[2][2];
#pragma unroll
    for (int x = 0; x < 2; ++x)
#pragma unroll
      for (int y = 0; y < 2; ++y) wmma::fill_fragment(acc[x][y], 0.0f);
    for (int k0 = 0; k0 < p.k; k0 += kTileK) {
      __syncthreads();
      StageTiles<P>(p, i0, j0, k0, s);
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kTileK; kk += kK) {
        wmma::fragment<wmma::matrix_a, 16, 16, kK, FragIn, wmma::row_major> fa[2];
        wmma::fragment<wmma::matrix_b, 16, 16, kK, FragIn, wmma::row_major> fb[2];
#pragma unroll
        for (int x = 0; x < 2; ++x) wmma::load_matrix_sync(fa[x], s.in.a + (wm * 32 + x * 16) * kLdA + kk, kLdA);
#pragma unroll
        for (int y = 0; y < 2; ++y) wmma::load_matrix_sync(fb[y], s.in.b + kk * kLdB + wn * 32 + y * 16, kLdB);
#pragma unroll
        for (int x = 0; x < 2; ++x)
#pragma unroll
          for (int y = 0; y < 2; ++y) wmma::mma_sync(acc[x][y], fa[x], fb[y], acc[x][y]);
      }
    }
    __syncthreads();
#pragma unroll
    for (int x = 0; x < 2; ++x)
#pragma unroll
      for (int y = 0; y < 2; ++y)
        wmma::store_matrix_sync(s.c + (wm * 32 + x * 16) * kLdC + wn * 32 + y * 16, acc[x][y], kLdC, wmma::mem_row_major);
  }
  __syncthreads();
}

template <Precision P>
__global__ void __launch_bounds__(kThreads) GemmKernel(GemmBatch batch) {
  __shared__ Smem<P> s;
  int q = 0;
  while (q + 1 < batch.count && static_cast<int>(blockIdx.x) >= batch.tile_start[q + 1]) ++q;
  const GemmProblem& p = batch.p[q];
  const int tile = static_cast<int>(blockIdx.x) - batch.tile_start[q];
  const int tiles_n = (p.n + kTileN - 1) / kTileN;
  const int i0 = (tile / tiles_n) * kTileM, j0 = (tile % tiles_n) * kTileN;
  TileProduct<P>(p, i0, j0, s);
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

}  // namespace

cudaError_t LaunchGemm(GemmBatch batch, Precision precision, cudaStream_t stream) {
  if (batch.count < 1 || batch.count > kMaxGemmProblems) return cudaErrorInvalidValue;
  int tiles = 0;
  for (int q = 0; q < batch.count; ++q) {
    const GemmProblem& p = batch.p[q];
    if (p.m < 0 || p.n < 0 || p.k < 0) return cudaErrorInvalidValue;
    batch.tile_start[q] = tiles;
    tiles += ((p.m + kTileM - 1) / kTileM) * ((p.n + kTileN - 1) / kTileN);
  }
  batch.tile_start[batch.count] = tiles;
  if (tiles == 0) return cudaSuccess;
  switch (precision) {
    case Precision::kF32: GemmKernel<Precision::kF32><<<tiles, kThreads, 0, stream>>>(batch); break;
    case Precision::kTF32: GemmKernel<Precision::kTF32><<<tiles, kThreads, 0, stream>>>(batch); break;
    case Precision::kBF16: GemmKernel<Precision::kBF16><<<tiles, kThreads, 0, stream>>>(batch); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
