// The matrix products of the persistent learner kernel (learner_step.cu): one phase's grouped
// products (GemmProblem, learner_launch.cuh) cut into 32 x 64 output tiles spread over the
// resident blocks. A block of 8 warps computes one tile at a time: K is walked in chunks of 32,
// kDepth chunks in flight in registers (L2-coherent loads: the operands were written by earlier
// phases of the same launch) while the previous chunk, staged in shared memory, is multiplied.
// TF32 and BF16 use mma.sync (m16n8k8 / m16n8k16) with each operand split into parts for
// FP32-level accuracy: TF32 high + low (three products, CUTLASS's 3xTF32), BF16 high + middle +
// low (six products, as cuBLAS's BF16x9 FP32 emulation less its three smallest); FP32 uses SIMT FMAs. The
// epilogue (bias, rank-one term, ReLU, ReLU mask) runs on the accumulators in registers.
// The approach is that of tiny-cuda-nn's fully fused MLP (Müller et al. 2021) cut at layer
// boundaries: at width 256 a layer's weights (256 KB) do not fit one block's shared memory.
#pragma once
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/learner_launch.cuh"

namespace dqn::cuda::detail::tile {

/// The global timer (ns), for the profiling stamps.
__device__ __forceinline__ uint64_t GlobalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

constexpr int kThreads = 256;             // 8 warps: 2 (rows of 16) x 4 (columns of 16)
constexpr int kM = kTileRows, kN = kTileCols, kK = 32;  // output tile (32 x 64) and K chunk
constexpr int kLdA = kK + 4;              // a[m][k] rows: fragment reads hit 32 distinct banks
constexpr int kLdB = kN + 8;              // b[k][n] rows: likewise; 288 B, 16-byte aligned
constexpr int kPerA = kM * kK / kThreads, kPerB = kK * kN / kThreads;  // 4 and 8 values a thread
constexpr int kDepth = 3;  // K chunks in flight in registers (global loads issued ahead)

struct Smem {
  alignas(16) float a[2][kM * kLdA];
  alignas(16) float b[2][kK * kLdB];
  double sq[kThreads / 32];  // per-warp sums of squares of the output tile
};

/// One K chunk of the A tile [i0.., k0..] and the B tile [k0.., j0..] in registers.
struct Chunk {
  float a[kPerA], b[kPerB];
};

/// Where this thread's values of a tile live: for each value, its element offset at k = 0 and
/// whether its row (A) or column (B) is inside the matrix. Consecutive threads walk each
/// operand's unit stride, so a warp's loads are coalesced.
struct Walk {
  const float* a[kPerA];
  const float* b[kPerB];
  int a_r[kPerA], a_k[kPerA], b_k[kPerB], b_c[kPerB];
  bool a_in[kPerA], a_one[kPerA], b_in[kPerB];
  int64_t a_step, b_step;  // elements per K chunk
};

/// p + bytes, for a pointer into a group member's device block (null stays null).
template <typename T>
__device__ __forceinline__ T* Shift(T* p, int64_t bytes) {
  return p ? reinterpret_cast<T*>(reinterpret_cast<uintptr_t>(p) + bytes) : nullptr;
}

__device__ __forceinline__ void MakeWalk(const GemmProblem& p, int i0, int j0, int64_t shift, Walk& w) {
  const int t = threadIdx.x;
  const bool a_rows = p.a.cs == 1, b_rows = p.b.cs == 1;
#pragma unroll
  for (int u = 0; u < kPerA; ++u) {
    const int e = t + u * kThreads;
    const int r = a_rows ? e / kK : e % kM, kk = a_rows ? e % kK : e / kM;
    const int i = i0 + r;
    w.a_r[u] = r, w.a_k[u] = kk;
    w.a_in[u] = i < p.m;
    w.a_one[u] = i == p.a.ones_row;
    w.a[u] = Shift(p.a.ptr, shift) + static_cast<int64_t>(w.a_in[u] && !w.a_one[u] ? i : 0) * p.a.rs + static_cast<int64_t>(kk) * p.a.cs;
  }
#pragma unroll
  for (int u = 0; u < kPerB; ++u) {
    const int e = t + u * kThreads;
    const int kk = b_rows ? e / kN : e % kK, c = b_rows ? e % kN : e / kK;
    const int j = j0 + c;
    w.b_k[u] = kk, w.b_c[u] = c;
    w.b_in[u] = j < p.n;
    w.b[u] = Shift(p.b.ptr, shift) + static_cast<int64_t>(w.b_in[u] ? j : 0) * p.b.cs + static_cast<int64_t>(kk) * p.b.rs;
  }
  w.a_step = static_cast<int64_t>(kK) * p.a.cs;
  w.b_step = static_cast<int64_t>(kK) * p.b.rs;
}

/// Issues the loads of chunk `c` (K from c * kK); out-of-range values read as 0, the ones row as 1.
__device__ __forceinline__ void Fetch(const Walk& w, int c, int k, Chunk& f) {
  const int k0 = c * kK;
#pragma unroll
  for (int u = 0; u < kPerA; ++u) {
    const bool in = w.a_in[u] && k0 + w.a_k[u] < k;
    f.a[u] = !in ? 0.0f : w.a_one[u] ? 1.0f : __ldcg(w.a[u] + c * w.a_step);
  }
#pragma unroll
  for (int u = 0; u < kPerB; ++u) {
    const bool in = w.b_in[u] && k0 + w.b_k[u] < k;
    f.b[u] = in ? __ldcg(w.b[u] + c * w.b_step) : 0.0f;
  }
}

__device__ __forceinline__ void Stage(const Walk& w, const Chunk& f, float* a, float* b) {
#pragma unroll
  for (int u = 0; u < kPerA; ++u) a[w.a_r[u] * kLdA + w.a_k[u]] = f.a[u];
#pragma unroll
  for (int u = 0; u < kPerB; ++u) b[w.b_k[u] * kLdB + w.b_c[u]] = f.b[u];
}

/// x = hi + lo: hi is x truncated to TF32 (its low 13 mantissa bits cleared), lo = x - hi is
/// exact in FP32 and the tensor core reads its top 11 bits, so hi + lo carries 21 bits of x's
/// mantissa. (cvt.rna.tf32.f32 would round, one more bit, but sm_90 has no instruction for it:
/// it compiles to a 5-instruction sequence per value, run L10.)
__device__ __forceinline__ void SplitTf32(float x, uint32_t& hi, uint32_t& lo) {
  hi = __float_as_uint(x) & 0xffffe000u;
  lo = __float_as_uint(x - __uint_as_float(hi));
}

/// (x0, x1) in three packed bf16 parts (lower index in the low half of each): x = hi + mid + lo
/// up to FP32 rounding (8 + 8 + 8 mantissa bits: 24, FP32's). Two parts (16 bits) were not
/// enough: the cartpole preset solved in 13 of 18 BF16 runs against 18 of 18 in TF32 and on the
/// CPU (runs L13-L16 and G1, bench/RESULTS.md).
__device__ __forceinline__ void SplitBf16(float x0, float x1, uint32_t& hi, uint32_t& mid, uint32_t& lo) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(x0, x1);
  const float r0 = x0 - __low2float(h), r1 = x1 - __high2float(h);
  const __nv_bfloat162 m = __floats2bfloat162_rn(r0, r1);
  const __nv_bfloat162 l = __floats2bfloat162_rn(r0 - __low2float(m), r1 - __high2float(m));
  hi = *reinterpret_cast<const uint32_t*>(&h);
  mid = *reinterpret_cast<const uint32_t*>(&m);
  lo = *reinterpret_cast<const uint32_t*>(&l);
}

__device__ __forceinline__ void MmaTf32(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void MmaBf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// Accumulators of one thread: tensor cores: two m16n8 tiles of the warp's 16 x 16 block, (row
/// g, columns 2q, 2q + 1) and (row g + 8, same columns) of each, g = lane / 4, q = lane % 4;
/// SIMT: rows 2 ty, 2 ty + 1 and columns 4 tx .. 4 tx + 3, ty = thread / 16, tx = thread % 16.
struct Acc {
  float x[8];
};

/// Multiplies the staged chunk into acc. TF32 products are summed lo·hi + hi·lo + hi·hi per step
/// (lo·lo is below FP32 rounding), BF16 as its split says: a single rounding of the inputs flips ReLU masks and moves
/// sums with cancellation (first-layer weight gradients) by percents. Tensor cores sum a chunk
/// into fresh accumulators that are then added to acc in FP32: the tensor cores' own
/// accumulation rounds less carefully, and over all of K = 256 it cost a factor of 4 in
/// accuracy (TF32 losses 4e-6 relative against 9e-7, run L8).
template <Precision P>
__device__ __forceinline__ void Multiply(const float* a, const float* b, Acc& acc) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if constexpr (P == Precision::kFP32) {
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
#pragma unroll 8
    for (int kk = 0; kk < kK; ++kk) {
      const float a0 = a[(2 * ty) * kLdA + kk], a1 = a[(2 * ty + 1) * kLdA + kk];
      const float4 bv = *reinterpret_cast<const float4*>(b + kk * kLdB + 4 * tx);
      const float bb[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        acc.x[c] = fmaf(a0, bb[c], acc.x[c]);
        acc.x[4 + c] = fmaf(a1, bb[c], acc.x[4 + c]);
      }
    }
  } else {
    const int g = lane / 4, q = lane % 4;
    const float* ar = a + (16 * (warp / 4) + g) * kLdA;  // row g of the warp's rows; row g + 8 at + 8 kLdA
    const int col = 16 * (warp % 4) + g;                 // column of n-tile 0; n-tile 1 at + 8
    // Two accumulators per n-tile, the correction terms (small) apart from hi·hi (big): shorter
    // chains of dependent mma (each waits for the one before on its accumulator).
    float d0[4] = {}, d1[4] = {}, c0[4] = {}, c1[4] = {};
    if constexpr (P == Precision::kTF32) {
#pragma unroll
      for (int k0 = 0; k0 < kK; k0 += 8) {
        uint32_t ah[4], al[4], bh[2][2], bl[2][2];
        SplitTf32(ar[k0 + q], ah[0], al[0]);
        SplitTf32(ar[8 * kLdA + k0 + q], ah[1], al[1]);
        SplitTf32(ar[k0 + q + 4], ah[2], al[2]);
        SplitTf32(ar[8 * kLdA + k0 + q + 4], ah[3], al[3]);
#pragma unroll
        for (int n = 0; n < 2; ++n) {
          SplitTf32(b[(k0 + q) * kLdB + col + 8 * n], bh[n][0], bl[n][0]);
          SplitTf32(b[(k0 + q + 4) * kLdB + col + 8 * n], bh[n][1], bl[n][1]);
        }
        MmaTf32(c0, al, bh[0][0], bh[0][1]);
        MmaTf32(c1, al, bh[1][0], bh[1][1]);
        MmaTf32(d0, ah, bh[0][0], bh[0][1]);
        MmaTf32(d1, ah, bh[1][0], bh[1][1]);
        MmaTf32(c0, ah, bl[0][0], bl[0][1]);
        MmaTf32(c1, ah, bl[1][0], bl[1][1]);
      }
    } else {
      // Three parts: the six products down to 2^-16 relative (hi·hi, hi·mid, mid·hi, hi·lo,
      // lo·hi, mid·mid), smallest first; the rest are below FP32 rounding.
#pragma unroll
      for (int k0 = 0; k0 < kK; k0 += 16) {
        uint32_t ah[4], am[4], al[4], bh[2][2], bm[2][2], bl[2][2];
        SplitBf16(ar[k0 + 2 * q], ar[k0 + 2 * q + 1], ah[0], am[0], al[0]);
        SplitBf16(ar[8 * kLdA + k0 + 2 * q], ar[8 * kLdA + k0 + 2 * q + 1], ah[1], am[1], al[1]);
        SplitBf16(ar[k0 + 2 * q + 8], ar[k0 + 2 * q + 9], ah[2], am[2], al[2]);
        SplitBf16(ar[8 * kLdA + k0 + 2 * q + 8], ar[8 * kLdA + k0 + 2 * q + 9], ah[3], am[3], al[3]);
#pragma unroll
        for (int n = 0; n < 2; ++n) {
          const float* bc = b + col + 8 * n;
          SplitBf16(bc[(k0 + 2 * q) * kLdB], bc[(k0 + 2 * q + 1) * kLdB], bh[n][0], bm[n][0], bl[n][0]);
          SplitBf16(bc[(k0 + 2 * q + 8) * kLdB], bc[(k0 + 2 * q + 9) * kLdB], bh[n][1], bm[n][1], bl[n][1]);
        }
#pragma unroll
        for (int n = 0; n < 2; ++n) {
          float(&d)[4] = n == 0 ? d0 : d1;
          float(&c)[4] = n == 0 ? c0 : c1;
          MmaBf16(c, am, bm[n][0], bm[n][1]);
          MmaBf16(d, am, bh[n][0], bh[n][1]);
          MmaBf16(c, al, bh[n][0], bh[n][1]);
          MmaBf16(d, ah, bm[n][0], bm[n][1]);
          MmaBf16(c, ah, bl[n][0], bl[n][1]);
          MmaBf16(d, ah, bh[n][0], bh[n][1]);
        }
      }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) acc.x[e] += d0[e] + c0[e], acc.x[4 + e] += d1[e] + c1[e];
  }
}

/// Output (r, c) of accumulator e of this thread, relative to the tile's corner.
template <Precision P>
__device__ __forceinline__ void AccCoords(int e, int& r, int& c) {
  if constexpr (P == Precision::kFP32) {
    r = 2 * (threadIdx.x / 16) + e / 4;
    c = 4 * (threadIdx.x % 16) + e % 4;
  } else {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    // e: n-tile (e / 4), then c0..c3 of mma's D fragment: (g, 2q), (g, 2q + 1), (g + 8, 2q), (g + 8, 2q + 1)
    r = 16 * (warp / 4) + lane / 4 + 8 * ((e % 4) / 2);
    c = 16 * (warp % 4) + 8 * (e / 4) + 2 * (lane % 4) + e % 2;
  }
}

/// One output tile of a phase, located in its problem, with this thread's operand walk set up:
/// integer work a block does while it waits at the barrier before the phase (Prepare).
struct Job {
  int t = -1;               ///< tile number in the phase (-1: none)
  int q = 0, tile = 0;      ///< the problem, and the tile's number in it
  int i0 = 0, j0 = 0;       ///< the tile's corner
  int64_t shift = 0;        ///< bytes from member 0's tensors to those of the tile's group member
  Walk w;
};

__device__ __forceinline__ int TilesOf(const GemmProblem& p) { return TileCount(p.m, p.n); }

__device__ __forceinline__ int TotalTiles(const Phase& ph) {
  int total = 0;
  for (int q = 0; q < ph.count; ++q) total += TilesOf(ph.p[q]);
  return total;
}

/// Sets job up for tile t of the phase (none when t is past its tiles). Reads only the program,
/// never data, so it may run before the barrier that opens the phase.
/// Sets up tile t of the phase for a group of `members` (Group): the members' tiles follow
/// each other, member s's tiles being s * TotalTiles(ph) .. (s + 1) * TotalTiles(ph) - 1.
__device__ __forceinline__ void Prepare(const Phase& ph, int t, const Group& group, Job& job) {
  job.t = -1;
  if (ph.kind != PhaseKind::kGemm) return;
  const int total = TotalTiles(ph);
  if (t >= total * group.count) return;
  const int member = t / total;
  int q = 0, local = t - member * total;
  while (local >= TilesOf(ph.p[q])) local -= TilesOf(ph.p[q]), ++q;
  const GemmProblem& p = ph.p[q];
  const int tiles_n = (p.n + kN - 1) / kN;
  job.t = t, job.q = q, job.tile = local;
  job.i0 = (local / tiles_n) * kM, job.j0 = (local % tiles_n) * kN;
  job.shift = member * group.stride;
  MakeWalk(p, job.i0, job.j0, job.shift, job.w);
}

/// C tile [i0.., j0..] of problem p (the job's): the whole K range, then the epilogue, written
/// to p.c; with p.sq, the tile's sum of squares to p.sq[job.tile]. With ts (profiling), thread
/// 0 writes the tile's kTileStamps times there.
template <Precision P>
__device__ void Tile(const GemmProblem& p, const Job& job, Smem& s, uint64_t* ts) {
  if (ts && threadIdx.x == 0) ts[0] = GlobalTimer();
  const Walk& w = job.w;
  const int i0 = job.i0, j0 = job.j0, tile = job.tile;
  Acc acc;
#pragma unroll
  for (float& x : acc.x) x = 0.0f;
  // The epilogue's operands, loaded now so that their latency hides behind the K loop. Outputs
  // outside the matrix read its last row or column (their values are never stored): the only
  // conditions are the problem's, the same for every thread.
  float e_bias[8], e_u[8], e_v[8], e_mask[8];
  const float *bias = Shift(p.bias, job.shift), *u = Shift(p.u, job.shift), *v = Shift(p.v, job.shift);
  const float* mask = Shift(p.mask, job.shift);
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    int r, cc;
    AccCoords<P>(e, r, cc);
    const int i = min(i0 + r, p.m - 1), j = min(j0 + cc, p.n - 1);
    e_bias[e] = bias ? __ldcg(bias + j) : 0.0f;
    e_u[e] = u ? __ldcg(u + i) : 0.0f;
    e_v[e] = u ? __ldcg(v + j) : 0.0f;
    e_mask[e] = mask ? __ldcg(mask + static_cast<int64_t>(i) * p.ldm + j) : 1.0f;
  }
  const int chunks = (p.k + kK - 1) / kK;
  Chunk f[kDepth];
#pragma unroll
  for (int h = 0; h < kDepth; ++h)
    if (h < chunks) Fetch(w, h, p.k, f[h]);
  // Chunk c is staged into buffer c % 2 (last read by chunk c - 2, before the previous
  // barrier), then chunk c + kDepth is fetched into the registers it came from.
  for (int c = 0; c < chunks; c += kDepth) {
#pragma unroll
    for (int h = 0; h < kDepth; ++h) {
      if (c + h < chunks) {
        float* a = s.a[(c + h) % 2];
        float* b = s.b[(c + h) % 2];
        Stage(w, f[h], a, b);
        __syncthreads();
        if (ts && c + h == 0 && threadIdx.x == 0) ts[1] = GlobalTimer();
        if (c + h + kDepth < chunks) Fetch(w, c + h + kDepth, p.k, f[h]);
        Multiply<P>(a, b, acc);
      }
    }
  }
  __syncthreads();  // the next tile stages into these buffers
  if (ts && threadIdx.x == 0) ts[2] = GlobalTimer();
  double sq = 0;
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    int r, cc;
    AccCoords<P>(e, r, cc);
    const int i = i0 + r, j = j0 + cc;
    if (i >= p.m || j >= p.n) continue;
    float y = acc.x[e];
    if (bias) y += e_bias[e];
    if (u) y += e_u[e] * e_v[e];
    if (p.relu) y = fmaxf(y, 0.0f);
    if (!(e_mask[e] > 0.0f)) y = 0.0f;
    Shift(p.c, job.shift)[static_cast<int64_t>(i) * p.ldc + j] = y;
    sq += static_cast<double>(y) * y;
  }
  if (p.sq) {  // fixed order: xor tree in each warp, then warps in order
    for (int o = 16; o > 0; o >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, o);
    if (threadIdx.x % 32 == 0) s.sq[threadIdx.x / 32] = sq;
    __syncthreads();
    if (threadIdx.x == 0) {
      double total = 0;
      for (int x = 0; x < kThreads / 32; ++x) total += s.sq[x];
      Shift(p.sq, job.shift)[tile] = total;
    }
  }
  if (ts && threadIdx.x == 0) ts[3] = GlobalTimer();
}

/// Every output tile of the phase's products that falls to the block of arrival rank `rank`:
/// tiles rank, rank + blocks, ...; job holds the first one, prepared. ts: the first tile's
/// profiling stamps (or null).
template <Precision P>
__device__ void RunPhase(const Phase& ph, const Group& group, int rank, Job& job, Smem& s, uint64_t* ts) {
  for (int t = rank;; t += gridDim.x) {
    if (t != rank) Prepare(ph, t, group, job);
    if (job.t < 0) return;
    Tile<P>(ph.p[job.q], job, s, t == rank ? ts : nullptr);
  }
}

}  // namespace dqn::cuda::detail::tile
