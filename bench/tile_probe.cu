// Probe: what the learner tile's K loop waits on when its products run on wgmma (issue 27 item 3).
// Runs L51-L53 (bench/RESULTS.md, session 22) put the learner's 64 x 32 tile on wgmma: correct,
// but about 1 µs a chunk of 32 K whatever the register prefetch depth, and Nsight Compute showed
// the `fence.proxy.async` before each chunk's wgmma stalling on the thread's outstanding global
// loads (the prefetched chunks). This probe times one such tile's whole K loop (64 x 32 outputs,
// K = 256, 3xTF32, both operands K-contiguous in global memory and resident in L2, as the
// learner's activations and transposed weights are) in G blocks at once (1, 48 = a B = 256
// phase's tiles, 132 = one a multiprocessor), five ways:
//   learner the learner's own tile on main (kernels/learner_tile.cuh: 32 x 64 outputs, mma.sync,
//          the same bytes a tile), called alone: whether a tile outside the ~200 KB persistent
//          kernel also takes ~0.75 µs a chunk (L23: 5.2-6.8 µs for the 7 chunks after the first);
//   regs   the learner's scheme (L53): chunks fetched 3 ahead into registers (16-byte loads),
//          split into TF32 high and low parts and stored in the core-matrix layout, proxy fence,
//          block barrier, 12 wgmma a warpgroup while the next chunk is staged;
//   nofence the same without the proxy fence: timing only (the PTX memory model requires the
//          fence between generic stores and wgmma's reads; its results may be wrong);
//   bulk   every chunk of both operands requested at the start by the async proxy
//          (cp.async.bulk, 128 bytes a row and chunk, one mbarrier a chunk), so no thread holds
//          a global load in flight; each chunk is split shared-to-shared into the core-matrix
//          layout when its mbarrier opens, then fence, barrier and wgmma as above;
//   bulkmma main's tile (32 x 64, mma.sync, the split at the fragment loads) fed the same way:
//          every chunk's rows land in padded rows (36 floats) that the fragments read without
//          bank conflicts, so the K loop holds no prefetch registers, needs no fence (mma.sync
//          reads through the generic proxy once the mbarrier opens) and no block barrier (each
//          chunk has its own buffer), and runs on sm_90 without the arch-specific target.
// Each result is checked against a float64 product (3xTF32: ~1e-6 of max |C|). Printed: the
// slowest block's K loop (globaltimer, median of 9 launches) in µs.
//   nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 --expt-relaxed-constexpr -I. -Inative/src bench/tile_probe.cu -o /tmp/tile_probe && /tmp/tile_probe
// (`bash bench/cuda-device.sh tile-probe`.)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_util.cuh"
#include "kernels/learner_tile.cuh"

namespace {

namespace learner = dqn::cuda::detail;

constexpr int kM = 64, kN = 32, kK = 256, kRefN = 64, kChunk = 32, kChunks = kK / kChunk;
constexpr int kThreads = 256;
constexpr int kCoreA = kM * kChunk, kCoreB = kN * kChunk;  // floats of one part of one chunk
constexpr int kCoreFloats = 2 * (kCoreA + kCoreB);         // hi A, lo A, hi B, lo B
constexpr int kRawChunk = kCoreA + kCoreB;                 // raw A [64][32] then raw B [32][32]
constexpr int kDepth = 3;


__device__ __forceinline__ uint64_t GlobalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void Wgmma(float (&d)[8], uint64_t a, uint64_t b, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(a), "l"(b), "r"(accumulate));
}

__device__ __forceinline__ void WgmmaWait(float (&d)[8]) {
  asm volatile("wgmma.wait_group.sync.aligned 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
               :
               : "memory");
}

/// The chunk staged at core (hi A, lo A, hi B, lo B) into d, fresh: per k-step lo·hi, hi·lo,
/// hi·hi; warpgroup w takes B's columns 16 w .. 16 w + 15. Committed; returns at once.
__device__ __forceinline__ void IssueChunk(const float* core, float (&d)[8]) {
  const float *a_hi = core, *a_lo = core + kCoreA;
  const float* b_hi = core + 2 * kCoreA + (threadIdx.x / 128) * 16 * 8;
  const float* b_lo = b_hi + kCoreB;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int s = 0; s < kChunk / 8; ++s) {
    const uint64_t ah = Descriptor(a_hi + s * kM * 8), al = Descriptor(a_lo + s * kM * 8);
    const uint64_t bh = Descriptor(b_hi + s * kN * 8), bl = Descriptor(b_lo + s * kN * 8);
    Wgmma(d, al, bh, s > 0);
    Wgmma(d, ah, bl, 1);
    Wgmma(d, ah, bh, 1);
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

__device__ __forceinline__ void SplitTf32(float x, uint32_t& hi, uint32_t& lo) {
  hi = __float_as_uint(x) & 0xffffe000u;
  lo = __float_as_uint(x - __uint_as_float(hi));
}

/// Four consecutive k (k = 4 kq ..) of row x (A's row or B's column) of a chunk, split and stored
/// at the core-matrix offsets of the part pair (hi at part, lo at part + size).
__device__ __forceinline__ void StoreSplit(float4 v, int x, int kq, int rows, float* part, int size) {
  const int k = 4 * kq;
  const int cm = (k / 8) * (rows / 8) * 2 + (x / 8) * 2 + (k % 8) / 4;
  float* at = part + cm * 32 + (x % 8) * 4;
  uint32_t h[4], l[4];
  SplitTf32(v.x, h[0], l[0]), SplitTf32(v.y, h[1], l[1]), SplitTf32(v.z, h[2], l[2]), SplitTf32(v.w, h[3], l[3]);
  *reinterpret_cast<uint4*>(at) = make_uint4(h[0], h[1], h[2], h[3]);
  *reinterpret_cast<uint4*>(at + size) = make_uint4(l[0], l[1], l[2], l[3]);
}

/// This thread's three 16-byte pieces of a chunk: two of A (64 rows x 8 k quads), one of B
/// (32 columns x 8 k quads). In each phase of 8 lanes the rows are consecutive and the k quads
/// rotate (kq = (lane + j) % 8), so reads of raw rows (128 bytes a row) and stores in the
/// core-matrix layout (one row of a core matrix = 16 bytes) both hit 32 distinct banks.
struct Piece {
  int x, kq;
};
__device__ __forceinline__ Piece PieceOf(int f) {
  const int l = f % 8, j = (f / 8) % 8, blk = f / 64;
  return {8 * blk + l, (l + j) % 8};
}

/// The chunk loop both schemes share: chunk ch's products (staged in core buffer ch % 2) run
/// while stage_next(ch + 1, its buffer) stages the next chunk, then the wait, the FP32 sum and
/// the block barrier.
template <class StageNext>
__device__ __forceinline__ void ChunkLoop(float* smem, StageNext stage_next, float (&acc)[8]) {
  float part[8];
#pragma unroll
  for (int ch = 0; ch < kChunks; ++ch) {
    IssueChunk(smem + (ch % 2) * kCoreFloats, part);
    if (ch + 1 < kChunks) stage_next(ch + 1, smem + ((ch + 1) % 2) * kCoreFloats);
    WgmmaWait(part);
#pragma unroll
    for (int e = 0; e < 8; ++e) acc[e] += part[e];
    __syncthreads();
  }
}

/// Block b's K-loop time (from t0) to ns[b], then its C tile: rows 64 b .. of A [G*64 x 256]
/// times B [32 x 256]ᵀ (both K-contiguous), into c [G*64 x 32].
__device__ void Finish(const float (&acc)[8], uint64_t t0, float* c, uint64_t* ns) {
  if (threadIdx.x == 0) ns[blockIdx.x] = GlobalTimer() - t0;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int e = 0; e < 8; ++e) {
    const int r = 16 * (warp % 4) + lane / 4 + 8 * ((e % 4) / 2), col = 16 * (warp / 4) + 8 * (e / 4) + 2 * (lane % 4) + e % 2;
    c[(static_cast<int64_t>(blockIdx.x) * kM + r) * kN + col] = acc[e];
  }
}

/// Registers: chunks fetched kDepth ahead (16-byte loads through L2), staged one ahead of their
/// products. kFence false leaves out the proxy fence (timing only).
template <bool kFence>
__global__ void __launch_bounds__(kThreads, 1) RegsKernel(const float* a, const float* b, float* c, uint64_t* ns) {
  extern __shared__ __align__(128) float smem[];  // [2][kCoreFloats]
  const uint64_t t0 = GlobalTimer();
  const float* a_tile = a + static_cast<int64_t>(blockIdx.x) * kM * kK;
  const Piece pa0 = PieceOf(threadIdx.x), pa1 = PieceOf(threadIdx.x + kThreads), pb = PieceOf(threadIdx.x);
  float4 f[kDepth][3];
  auto fetch = [&](int ch, float4 (&r)[3]) {
    const int k0 = ch * kChunk;
    r[0] = __ldcg(reinterpret_cast<const float4*>(a_tile + pa0.x * kK + k0 + 4 * pa0.kq));
    r[1] = __ldcg(reinterpret_cast<const float4*>(a_tile + pa1.x * kK + k0 + 4 * pa1.kq));
    r[2] = __ldcg(reinterpret_cast<const float4*>(b + pb.x * kK + k0 + 4 * pb.kq));
  };
  auto stage = [&](const float4 (&r)[3], float* core) {
    StoreSplit(r[0], pa0.x, pa0.kq, kM, core, kCoreA);
    StoreSplit(r[1], pa1.x, pa1.kq, kM, core, kCoreA);
    StoreSplit(r[2], pb.x, pb.kq, kN, core + 2 * kCoreA, kCoreB);
    if (kFence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  };
#pragma unroll
  for (int h = 0; h < kDepth; ++h) fetch(h, f[h]);
  stage(f[0], smem);
  __syncthreads();
  fetch(kDepth, f[0]);
  float acc[8] = {};
  ChunkLoop(smem, [&](int ch, float* core) {
    stage(f[ch % kDepth], core);
    if (ch + kDepth < kChunks) fetch(ch + kDepth, f[ch % kDepth]);
  }, acc);
  Finish(acc, t0, c, ns);
}

__device__ __forceinline__ void MbarInit(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(SmemAddr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void MbarExpect(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(SmemAddr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void MbarWait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n" ::"r"(SmemAddr(bar)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void BulkCopy(float* dst, const float* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(SmemAddr(dst)),
               "l"(src), "r"(bytes), "r"(SmemAddr(bar))
               : "memory");
}

/// Requests every chunk of an A tile (a_rows rows from a_tile) and a B tile (b_rows rows from b),
/// both K-contiguous with K = kK, by the async proxy: row i of chunk ch (A's rows, then B's),
/// 128 bytes at k = 32 ch, lands at raw + ch * chunk_floats + i * ld and completes mbarrier
/// bars[ch] (kChunks of them, initialised here). Warp 0 issues the copies, chunk-major so that
/// the first chunks' leave first; every thread returns after the barriers are initialised.
__device__ void RequestChunks(const float* a_tile, int a_rows, const float* b, int b_rows, float* raw, int ld, int chunk_floats,
                              uint64_t* bars) {
  if (threadIdx.x < kChunks) MbarInit(bars + threadIdx.x, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  if (threadIdx.x >= 32) return;
  const int lane = threadIdx.x, rows = a_rows + b_rows;
  if (lane < kChunks) MbarExpect(bars + lane, rows * kChunk * 4);
  __syncwarp();
  for (int q = lane; q < kChunks * rows; q += 32) {
    const int ch = q / rows, i = q % rows;
    const float* src = (i < a_rows ? a_tile + i * kK : b + (i - a_rows) * kK) + ch * kChunk;
    BulkCopy(raw + ch * chunk_floats + i * ld, src, kChunk * 4, bars + ch);
  }
}

/// Bulk: warp 0 requests every chunk of both operands at once (96 copies of 128 bytes a chunk,
/// one mbarrier a chunk); each chunk is split from its raw rows into the core-matrix layout once
/// its mbarrier opens, one chunk ahead of its products.
__global__ void __launch_bounds__(kThreads, 1) BulkKernel(const float* a, const float* b, float* c, uint64_t* ns) {
  extern __shared__ __align__(128) float smem[];  // [2][kCoreFloats] core, then [kChunks][kRawChunk] raw, then mbarriers
  float* raw = smem + 2 * kCoreFloats;
  uint64_t* bars = reinterpret_cast<uint64_t*>(raw + kChunks * kRawChunk);
  const uint64_t t0 = GlobalTimer();
  RequestChunks(a + static_cast<int64_t>(blockIdx.x) * kM * kK, kM, b, kN, raw, kChunk, kRawChunk, bars);
  const Piece pa0 = PieceOf(threadIdx.x), pa1 = PieceOf(threadIdx.x + kThreads), pb = PieceOf(threadIdx.x);
  auto stage = [&](int ch, float* core) {
    MbarWait(bars + ch, 0);
    const float* r = raw + ch * kRawChunk;
    StoreSplit(*reinterpret_cast<const float4*>(r + pa0.x * kChunk + 4 * pa0.kq), pa0.x, pa0.kq, kM, core, kCoreA);
    StoreSplit(*reinterpret_cast<const float4*>(r + pa1.x * kChunk + 4 * pa1.kq), pa1.x, pa1.kq, kM, core, kCoreA);
    StoreSplit(*reinterpret_cast<const float4*>(r + kCoreA + pb.x * kChunk + 4 * pb.kq), pb.x, pb.kq, kN, core + 2 * kCoreA, kCoreB);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  };
  stage(0, smem);
  __syncthreads();
  float acc[8] = {};
  ChunkLoop(smem, stage, acc);
  Finish(acc, t0, c, ns);
}

constexpr int kMmaM = learner::kTileRows, kMmaN = learner::kTileCols;  // main's tile: 32 x 64
constexpr int kLd = kChunk + 4;                                            // padded row: 4 g + q hits 32 banks
constexpr int kMmaChunk = (kMmaM + kMmaN) * kLd;                           // A rows, then Bᵀ rows

/// Bulkmma: main's tile fed by the async proxy (RequestChunks into padded rows), multiplied as
/// main's Multiply does (3xTF32 on mma.sync m16n8k8, each warp a 16 x 16 corner, each chunk into
/// fresh accumulators added in FP32), B read as Bᵀ rows.
__global__ void __launch_bounds__(kThreads, 1) BulkMmaKernel(const float* a, const float* b, float* c, uint64_t* ns) {
  extern __shared__ __align__(128) float smem[];  // [kChunks][kMmaChunk], then mbarriers
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem + kChunks * kMmaChunk);
  const uint64_t t0 = GlobalTimer();
  RequestChunks(a + static_cast<int64_t>(blockIdx.x) * kMmaM * kK, kMmaM, b, kMmaN, smem, kLd, kMmaChunk, bars);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  float acc[8] = {};
  for (int ch = 0; ch < kChunks; ++ch) {
    MbarWait(bars + ch, 0);
    const float* ar = smem + ch * kMmaChunk + (16 * (warp / 4) + g) * kLd;             // A row g of the warp's rows
    const float* br = smem + ch * kMmaChunk + (kMmaM + 16 * (warp % 4) + g) * kLd;     // Bᵀ row (column g of n-tile 0)
    float d[2][4] = {}, x[2][4] = {};
#pragma unroll
    for (int k0 = 0; k0 < kChunk; k0 += 8) {
      uint32_t ah[4], al[4];
      learner::tile::SplitTf32(ar[k0 + q], ah[0], al[0]);
      learner::tile::SplitTf32(ar[8 * kLd + k0 + q], ah[1], al[1]);
      learner::tile::SplitTf32(ar[k0 + q + 4], ah[2], al[2]);
      learner::tile::SplitTf32(ar[8 * kLd + k0 + q + 4], ah[3], al[3]);
#pragma unroll
      for (int n = 0; n < 2; ++n) {
        uint32_t bh0, bl0, bh1, bl1;
        learner::tile::SplitTf32(br[8 * n * kLd + k0 + q], bh0, bl0);
        learner::tile::SplitTf32(br[8 * n * kLd + k0 + q + 4], bh1, bl1);
        learner::tile::MmaTf32(x[n], al, bh0, bh1);
        learner::tile::MmaTf32(d[n], ah, bh0, bh1);
        learner::tile::MmaTf32(x[n], ah, bl0, bl1);
      }
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) acc[e] += d[e / 4][e % 4] + x[e / 4][e % 4];
  }
  if (threadIdx.x == 0) ns[blockIdx.x] = GlobalTimer() - t0;
  for (int e = 0; e < 8; ++e) {
    const int r = 16 * (warp / 4) + g + 8 * ((e % 4) / 2), col = 16 * (warp % 4) + 8 * (e / 4) + 2 * q + e % 2;
    c[(static_cast<int64_t>(blockIdx.x) * kMmaM + r) * kMmaN + col] = acc[e];
  }
}

/// Rewrites the operands (same values) so that they sit dirty in L2, as the learner's do after
/// the phase that wrote them; a kernel boundary also empties every L1.
__global__ void Touch(float* x, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    x[i] = x[i] + 0.0f;
}

/// The learner's tile on main, alone: block b computes tile b of the phase's one product.
__global__ void __launch_bounds__(kThreads, 1) LearnerTileKernel(const __grid_constant__ learner::Phase ph, uint64_t* ns) {
  __shared__ learner::tile::Smem smem;
  const uint64_t t0 = GlobalTimer();
  learner::tile::Job job;
  const learner::Group alone;
  learner::tile::Prepare(ph, static_cast<int>(blockIdx.x), alone, job);
  learner::tile::Tile<dqn::Precision::kTF32>(ph.p[0], job, smem, nullptr);
  if (threadIdx.x == 0) ns[blockIdx.x] = GlobalTimer() - t0;
}

/// The product of LearnerTileKernel over `blocks` tiles: A's first 32 blocks rows times the
/// 64-row B ([64 x 256], K-contiguous), into c [32 blocks x 64].
learner::Phase LearnerPhase(int blocks, const float* a, const float* b, float* c) {
  learner::Phase ph;
  ph.kind = learner::PhaseKind::kGemm;
  ph.count = 1;
  learner::GemmProblem& p = ph.p[0];
  p.m = learner::kTileRows * blocks, p.n = kRefN, p.k = kK;
  p.a = {a, kK, 1, -1};
  p.b = {b, 1, kK, -1};
  p.c = c, p.ldc = kRefN;
  return ph;
}

struct Result {
  double worst_rel, us;
};

/// Times `launch` (9 launches after the operands are rewritten; the slowest block, median),
/// then checks C [rows x cols] against the float64 reference [.. x kRefN].
template <class Launch>
Result Run(Launch launch, int blocks, int rows, int cols, float* da, int64_t na, float* db, float* dc, uint64_t* dns,
           const std::vector<double>& ref) {
  std::vector<double> times;
  for (int it = 0; it < 9; ++it) {
    Touch<<<264, 256>>>(da, na);
    Touch<<<8, 256>>>(db, static_cast<int64_t>(kRefN) * kK);
    launch();
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<uint64_t> ns(blocks);
    CUDA_OK(cudaMemcpy(ns.data(), dns, blocks * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    times.push_back(*std::max_element(ns.begin(), ns.end()) * 1e-3);
  }
  std::sort(times.begin(), times.end());
  std::vector<float> c(static_cast<size_t>(rows) * cols);
  CUDA_OK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double scale = 0, worst = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) scale = std::max(scale, std::fabs(ref[static_cast<size_t>(i) * kRefN + j]));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      worst = std::max(worst, std::fabs(c[static_cast<size_t>(i) * cols + j] - ref[static_cast<size_t>(i) * kRefN + j]) / scale);
  return {worst, times[times.size() / 2]};
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  constexpr int kMaxBlocks = 132;
  std::printf("device: %s; one tile a block, K = %d, 3xTF32, operands K-contiguous in L2 (learner: main's 32 x 64 mma.sync tile, "
              "its set-up, K loop and epilogue; bulkmma the same tile fed by bulk copies; the others 64 x 32 on wgmma m64n16k8), "
              "set-up and K loop; the slowest block, "
              "median of 9 launches\n",
              prop.name, kK);
  const int64_t na = static_cast<int64_t>(kMaxBlocks) * kM * kK;
  std::vector<float> a(na), b(static_cast<size_t>(kRefN) * kK);
  FillUniform(a, b);
  std::vector<double> ref(static_cast<size_t>(kMaxBlocks) * kM * kRefN);  // A · Bᵀ over B's 64 rows
  for (int64_t i = 0; i < static_cast<int64_t>(kMaxBlocks) * kM; ++i)
    for (int j = 0; j < kRefN; ++j) {
      double t = 0;
      for (int k = 0; k < kK; ++k) t += static_cast<double>(a[i * kK + k]) * b[static_cast<size_t>(j) * kK + k];
      ref[i * kRefN + j] = t;
    }
  float *da, *db, *dc;
  uint64_t* dns;
  CUDA_OK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&db, b.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&dc, static_cast<size_t>(kMaxBlocks) * kM * kN * sizeof(float)));
  CUDA_OK(cudaMalloc(&dns, kMaxBlocks * sizeof(uint64_t)));
  CUDA_OK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  const int regs_smem = 2 * kCoreFloats * 4;
  const int bulk_smem = (2 * kCoreFloats + kChunks * kRawChunk) * 4 + kChunks * 8;
  CUDA_OK(cudaFuncSetAttribute(RegsKernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, regs_smem));
  CUDA_OK(cudaFuncSetAttribute(RegsKernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, regs_smem));
  CUDA_OK(cudaFuncSetAttribute(BulkKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bulk_smem));
  const int bulkmma_smem = kChunks * kMmaChunk * 4 + kChunks * 8;
  CUDA_OK(cudaFuncSetAttribute(BulkMmaKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bulkmma_smem));
  bool ok = true;
  for (int blocks : {1, 48, kMaxBlocks}) {
    const learner::Phase ph = LearnerPhase(blocks, da, db, dc);
    const int rows_w = kM * blocks, rows_l = learner::kTileRows * blocks;
    const struct {
      const char* name;
      bool checked;
      Result r;
    } rows[] = {
        {"learner", true, Run([&] { LearnerTileKernel<<<blocks, kThreads>>>(ph, dns); }, blocks, rows_l, kRefN, da, na, db, dc, dns, ref)},
        {"regs   ", true, Run([&] { RegsKernel<true><<<blocks, kThreads, regs_smem>>>(da, db, dc, dns); }, blocks, rows_w, kN, da, na, db, dc, dns, ref)},
        {"nofence", false, Run([&] { RegsKernel<false><<<blocks, kThreads, regs_smem>>>(da, db, dc, dns); }, blocks, rows_w, kN, da, na, db, dc, dns, ref)},
        {"bulk   ", true, Run([&] { BulkKernel<<<blocks, kThreads, bulk_smem>>>(da, db, dc, dns); }, blocks, rows_w, kN, da, na, db, dc, dns, ref)},
        {"bulkmma", true, Run([&] { BulkMmaKernel<<<blocks, kThreads, bulkmma_smem>>>(da, db, dc, dns); }, blocks, rows_l, kRefN, da, na, db, dc, dns, ref)},
    };
    for (const auto& row : rows) {
      const bool good = row.r.worst_rel <= 1e-5;
      if (row.checked) ok = ok && good;
      std::printf("%3d blocks  %s  %6.2f us (%.2f a chunk of 32); worst error %.2e of max |C|: %s\n", blocks, row.name, row.r.us,
                  row.r.us / kChunks, row.r.worst_rel, good ? "ok" : row.checked ? "WRONG" : "wrong (timing only)");
    }
  }
  std::printf(ok ? "PROBE PASSED\n" : "PROBE FAILED\n");
  return ok ? 0 : 1;
}
