// Probe: can Hopper's warpgroup MMA (wgmma) shorten the learner tile's K loop (issue 27 item 3)?
// The learner's 32 x 64 tiles spend 5.2-6.8 µs in the K loop at K = 256 (mma.sync m16n8k8, TF32
// split hi + lo, three products a step: bench/RESULTS.md runs L23, L46); more independent
// accumulators a warp did not shorten it (split-K, L34). This probe times, on one multiprocessor,
// one 64 x 64 x K product (K = 128) in 3xTF32 with its operands already split and staged in shared
// memory, two ways:
//   mma   4 warps, each 16 rows x 64 columns: 8 n-tiles of m16n8k8, three mma.sync a k-step each
//         (hi·hi into one accumulator, lo·hi + hi·lo into another), fragments read from shared
//         memory (the learner tile's scheme, with the split done before the loop);
//   wgmma one warpgroup (128 threads): per k-step three wgmma.mma_async m64n64k8 (f32 += tf32 x
//         tf32) reading both operands from shared memory through matrix descriptors (K-major, no
//         swizzle: 8 x 16-byte core matrices, LBO = 128 B between the two along K, SBO = 256 B
//         between neighbours along M or N), committed once, waited once;
// and 1xTF32 (hi·hi only) of each, for the instruction count's share. Each result is checked
// against a float64 product on the host (3xTF32 must be ~1e-6 relative; 1xTF32 ~1e-3). Cycles
// (clock64 around the loop, thread 0, the median of 9 launches) and µs at the SM clock.
//   nvcc -std=c++17 -gencode arch=compute_90a,code=sm_90a -O3 bench/wgmma_probe.cu -o /tmp/wgmma_probe && /tmp/wgmma_probe
// (wgmma needs the arch-specific target sm_90a; the project builds sm_90 today.)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "probe_util.cuh"

namespace {

constexpr int kM = 64, kN = 64, kK = 128, kSteps = kK / 8;
constexpr int kThreads = 128;
constexpr int kStepBytes = 2048;  // one k-step of one operand: 8 core matrices x 2 along K x 128 B
constexpr int kOperandBytes = kSteps * kStepBytes;  // 32 KB: A or B, hi or lo


__device__ __forceinline__ void Split(float x, float& hi, float& lo) {
  hi = __uint_as_float(__float_as_uint(x) & 0xffffe000u);
  lo = x - hi;
}

/// Byte offset of element (r, k) of a K-major operand (r: a row of A, or a column of B) in the
/// core-matrix layout: k-step s = k / 8 at s * 2048, core matrix (r / 8, (k % 8) / 4) at
/// (r / 8) * 256 + ((k % 8) / 4) * 128, then row r % 8 at 16 B and element k % 4 at 4 B.
__device__ __forceinline__ int CoreOffset(int r, int k) {
  return (k / 8) * kStepBytes + (r / 8) * 256 + ((k % 8) / 4) * 128 + (r % 8) * 16 + (k % 4) * 4;
}


__device__ __forceinline__ void Wgmma(float (&d)[32], uint64_t a, uint64_t b, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, "
      "%32, %33, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]),
        "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
        "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(accumulate));
}

__device__ __forceinline__ void MmaTf32(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t Bits(const char* base, int offset) {
  return *reinterpret_cast<const uint32_t*>(base + offset);
}

/// Stages A [64 x K] (row-major) and B [K x 64] (row-major) split into hi and lo, in the
/// core-matrix layout (both K-major), then makes the generic proxy's writes visible to wgmma.
__device__ void StageOperands(const float* a, const float* b, char* a_hi, char* a_lo, char* b_hi, char* b_lo) {
  for (int e = threadIdx.x; e < kM * kK; e += kThreads) {
    const int r = e / kK, k = e % kK;
    float hi, lo;
    Split(a[e], hi, lo);
    *reinterpret_cast<float*>(a_hi + CoreOffset(r, k)) = hi;
    *reinterpret_cast<float*>(a_lo + CoreOffset(r, k)) = lo;
  }
  for (int e = threadIdx.x; e < kK * kN; e += kThreads) {
    const int k = e / kN, n = e % kN;
    float hi, lo;
    Split(b[e], hi, lo);
    *reinterpret_cast<float*>(b_hi + CoreOffset(n, k)) = hi;
    *reinterpret_cast<float*>(b_lo + CoreOffset(n, k)) = lo;
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
}

/// Writes accumulator register i of this thread (the m16n8 C layout per warp's 16 rows, one
/// n-tile of 8 columns every 4 registers) to c [64 x 64].
__device__ void StoreAcc(const float (&d)[32], float* c) {
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  for (int i = 0; i < 32; ++i) {
    const int row = 16 * w + g + 8 * ((i % 4) / 2), col = 8 * (i / 4) + 2 * q + (i % 2);
    c[row * kN + col] = d[i];
  }
}

template <bool kThree>
__global__ void __launch_bounds__(kThreads, 1) WgmmaKernel(const float* a, const float* b, float* c, long long* cycles) {
  extern __shared__ __align__(128) char smem[];
  char *a_hi = smem, *a_lo = smem + kOperandBytes, *b_hi = smem + 2 * kOperandBytes, *b_lo = smem + 3 * kOperandBytes;
  StageOperands(a, b, a_hi, a_lo, b_hi, b_lo);
  float d[32], x[32];
  for (int i = 0; i < 32; ++i) d[i] = 0.0f, x[i] = 0.0f;
  const long long t0 = clock64();
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int s = 0; s < kSteps; ++s) {
    const int at = s * kStepBytes;
    if constexpr (kThree) {
      Wgmma(x, Descriptor(a_lo + at), Descriptor(b_hi + at), s > 0);
      Wgmma(x, Descriptor(a_hi + at), Descriptor(b_lo + at), 1);
    }
    Wgmma(d, Descriptor(a_hi + at), Descriptor(b_hi + at), s > 0);
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  const long long t1 = clock64();
  for (int i = 0; i < 32; ++i) d[i] += x[i];
  StoreAcc(d, c);
  if (threadIdx.x == 0) *cycles = t1 - t0;
}

template <bool kThree>
__global__ void __launch_bounds__(kThreads, 1) MmaKernel(const float* a, const float* b, float* c, long long* cycles) {
  extern __shared__ __align__(128) char smem[];
  char *a_hi = smem, *a_lo = smem + kOperandBytes, *b_hi = smem + 2 * kOperandBytes, *b_lo = smem + 3 * kOperandBytes;
  StageOperands(a, b, a_hi, a_lo, b_hi, b_lo);
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
  float d[8][4] = {}, x[8][4] = {};
  const long long t0 = clock64();
#pragma unroll 4
  for (int s = 0; s < kSteps; ++s) {
    const int k0 = 8 * s;
    uint32_t ah[4], al[4];
    const int r0 = 16 * w + g;
    // A fragment of m16n8k8: (g, q), (g + 8, q), (g, q + 4), (g + 8, q + 4).
    ah[0] = Bits(a_hi, CoreOffset(r0, k0 + q)), ah[1] = Bits(a_hi, CoreOffset(r0 + 8, k0 + q));
    ah[2] = Bits(a_hi, CoreOffset(r0, k0 + q + 4)), ah[3] = Bits(a_hi, CoreOffset(r0 + 8, k0 + q + 4));
    al[0] = Bits(a_lo, CoreOffset(r0, k0 + q)), al[1] = Bits(a_lo, CoreOffset(r0 + 8, k0 + q));
    al[2] = Bits(a_lo, CoreOffset(r0, k0 + q + 4)), al[3] = Bits(a_lo, CoreOffset(r0 + 8, k0 + q + 4));
#pragma unroll
    for (int t = 0; t < 8; ++t) {
      // B fragment: (k = q, n = g) and (k = q + 4, n = g) of n-tile t.
      const int n = 8 * t + g;
      const uint32_t bh0 = Bits(b_hi, CoreOffset(n, k0 + q)), bh1 = Bits(b_hi, CoreOffset(n, k0 + q + 4));
      if constexpr (kThree) {
        const uint32_t bl0 = Bits(b_lo, CoreOffset(n, k0 + q)), bl1 = Bits(b_lo, CoreOffset(n, k0 + q + 4));
        MmaTf32(x[t], al, bh0, bh1);
        MmaTf32(x[t], ah, bl0, bl1);
      }
      MmaTf32(d[t], ah, bh0, bh1);
    }
  }
  float out[32];  // formed before the clock is read: the last mma's results are in
  for (int t = 0; t < 8; ++t)
    for (int e = 0; e < 4; ++e) out[4 * t + e] = d[t][e] + x[t][e];
  const long long t1 = clock64();
  StoreAcc(out, c);
  if (threadIdx.x == 0) *cycles = t1 - t0;
}

struct Result {
  double worst_rel;
  long long cycles;
};

template <class Kernel>
Result Run(Kernel kernel, const float* da, const float* db, float* dc, long long* dcy, const std::vector<double>& ref) {
  const int smem = 4 * kOperandBytes;
  CUDA_OK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  std::vector<long long> cycles;
  for (int i = 0; i < 9; ++i) {
    kernel<<<1, kThreads, smem>>>(da, db, dc, dcy);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    long long cy = 0;
    CUDA_OK(cudaMemcpy(&cy, dcy, sizeof cy, cudaMemcpyDeviceToHost));
    cycles.push_back(cy);
  }
  std::sort(cycles.begin(), cycles.end());
  std::vector<float> c(kM * kN);
  CUDA_OK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double scale = 0, worst = 0;
  for (double r : ref) scale = std::max(scale, std::fabs(r));
  for (size_t i = 0; i < c.size(); ++i) worst = std::max(worst, std::fabs(c[i] - ref[i]) / scale);
  return {worst, cycles[cycles.size() / 2]};
}

}  // namespace

int main() {
  int dev = 0, clock_khz = 0;
  CUDA_OK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, dev));
  std::printf("device: %s, SM clock %.0f MHz; one 64 x 64 x %d product on one multiprocessor, operands staged\n", prop.name,
              clock_khz / 1e3, kK);
  std::vector<float> a(kM * kK), b(kK * kN);
  FillUniform(a, b);
  std::vector<double> ref(kM * kN, 0.0);
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j) {
      double t = 0;
      for (int k = 0; k < kK; ++k) t += static_cast<double>(a[i * kK + k]) * b[k * kN + j];
      ref[i * kN + j] = t;
    }
  float *da, *db, *dc;
  long long* dcy;
  CUDA_OK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&db, b.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&dc, kM * kN * sizeof(float)));
  CUDA_OK(cudaMalloc(&dcy, sizeof(long long)));
  CUDA_OK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  const struct {
    const char* name;
    Result r;
  } rows[] = {
      {"mma.sync 3xTF32", Run(MmaKernel<true>, da, db, dc, dcy, ref)},
      {"wgmma    3xTF32", Run(WgmmaKernel<true>, da, db, dc, dcy, ref)},
      {"mma.sync 1xTF32", Run(MmaKernel<false>, da, db, dc, dcy, ref)},
      {"wgmma    1xTF32", Run(WgmmaKernel<false>, da, db, dc, dcy, ref)},
  };
  bool ok = true;
  for (const auto& row : rows) {
    const bool three = std::string_view(row.name).find("3x") != std::string_view::npos;
    const double bound = three ? 1e-5 : 2e-3;
    const bool good = row.r.worst_rel <= bound;
    ok = ok && good;
    std::printf("%s: K loop %lld cycles = %.2f us (%.1f cycles a k-step); worst error %.2e of max |C| (bound %.0e): %s\n", row.name,
                row.r.cycles, row.r.cycles / (clock_khz * 1e-3), static_cast<double>(row.r.cycles) / kSteps, row.r.worst_rel, bound,
                good ? "ok" : "WRONG");
  }
  std::printf("%s\n", ok ? "PROBE PASSED" : "PROBE FAILED");
  return ok ? 0 : 1;
}
