// Probe of the update -> sample boundary (bench/RESULTS.md, session 5, runs 46-47): is one fused
// kernel per training step cheaper than two PDL-chained kernels? (1) two kernels: a producer
// (one 8-block cluster of 512 threads, like the update: load, store) and a consumer (32 blocks of
// 256, like the sample at B = 256: load what the producer stored, store), chained with
// programmatic dependent launch; (2) one kernel of both roles: the producer blocks release a
// counter (red.release.gpu), the consumer blocks poll it with acquire loads before they read,
// the launch number coming from per-block shares of a 2^32 tick (as DeviceState::sample_ticks).
// Each is timed as a one-step graph and as 16 steps per graph.
//   nvcc -std=c++17 -arch=sm_90 -O3 bench/handoff_probe.cu -o /tmp/handoff_probe && /tmp/handoff_probe
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#define OK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(err_)); return 1; } } while (0)
__device__ __forceinline__ void Wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void Allow() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
constexpr int kProd = 8, kProdThreads = 512, kCons = 32, kConsThreads = 256;
struct Bufs { double* a; double* b; double* c; unsigned long long* ticks; unsigned* ready; };

__device__ void ProducerBody(const Bufs& p, int blk) {
  const int i = blk * kProdThreads + threadIdx.x;
  const double x = __ldcg(p.a + i * 7 % (kProd * kProdThreads));
  p.b[i] = x + 1.0;
}
__device__ void ConsumerBody(const Bufs& p, int blk) {
  if (threadIdx.x >= kConsThreads) return;
  const int j = blk * kConsThreads + threadIdx.x;
  const double y = __ldcg(p.b + (j * 13) % (kProd * kProdThreads));
  p.c[j] = y * 2.0;
}
__global__ void __launch_bounds__(512) Producer(Bufs p) { Wait(); Allow(); ProducerBody(p, blockIdx.x); }
__global__ void __launch_bounds__(256) Consumer(Bufs p) { Wait(); Allow(); ConsumerBody(p, blockIdx.x); }
__global__ void __launch_bounds__(512) Fused(Bufs p) {
  __shared__ unsigned long long launch;
  Wait();
  Allow();
  const unsigned long long share = (1ull << 32) / gridDim.x + (blockIdx.x < (1ull << 32) % gridDim.x ? 1 : 0);
  if (blockIdx.x < kProd) {
    if (threadIdx.x == 0) atomicAdd(p.ticks, share);  // result unused: a reduction, not waited for
    ProducerBody(p, blockIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(p.ready) : "memory");
  } else {
    if (threadIdx.x == 0) {
      launch = atomicAdd(p.ticks, share) >> 32;
      const unsigned target = kProd * static_cast<unsigned>(launch + 1);
      unsigned seen = 0;
      do asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(p.ready) : "memory");
      while (static_cast<int>(seen - target) < 0);
    }
    __syncthreads();
    ConsumerBody(p, blockIdx.x - kProd);
  }
}
cudaError_t Launch(void (*k)(Bufs), int grid, int block, int cluster, cudaStream_t s, Bufs p) {
  cudaLaunchConfig_t cfg{}; cfg.gridDim = grid; cfg.blockDim = block; cfg.stream = s;
  cudaLaunchAttribute at[2]; at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization; at[0].val.programmaticStreamSerializationAllowed = 1;
  at[1].id = cudaLaunchAttributeClusterDimension; at[1].val.clusterDim.x = cluster; at[1].val.clusterDim.y = 1; at[1].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = cluster ? 2 : 1;
  return cudaLaunchKernelEx(&cfg, k, p);
}
int main() {
  Bufs p;
  OK(cudaMalloc(&p.a, 1 << 20)); OK(cudaMalloc(&p.b, 1 << 20)); OK(cudaMalloc(&p.c, 1 << 20));
  OK(cudaMalloc(&p.ticks, 8)); OK(cudaMalloc(&p.ready, 4));
  OK(cudaMemset(p.a, 0, 1 << 20)); OK(cudaMemset(p.ticks, 0, 8)); OK(cudaMemset(p.ready, 0, 4));
  cudaStream_t s; OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int variant = 0; variant < 4; ++variant) {
    const int steps = variant % 2 ? 16 : 1;
    const bool fused = variant >= 2;
    cudaGraph_t g; cudaGraphExec_t e;
    OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < steps; ++k) {
      if (fused) OK(Launch(Fused, kProd + kCons / 2 * 2, 512, 8, s, p));  // 8 producer + 32 consumer blocks (512 threads, half used)
      else { OK(Launch(Producer, kProd, kProdThreads, 8, s, p)); OK(Launch(Consumer, kCons, kConsThreads, 0, s, p)); }
    }
    OK(cudaStreamEndCapture(s, &g)); OK(cudaGraphInstantiate(&e, g, 0));
    for (int w = 0; w < 50; ++w) OK(cudaGraphLaunch(e, s));
    cudaEvent_t t0, t1; cudaEventCreate(&t0); cudaEventCreate(&t1);
    const int iters = 2000 / steps;
    float best = 1e30f;
    for (int rep = 0; rep < 5; ++rep) {
      cudaEventRecord(t0, s);
      for (int i = 0; i < iters; ++i) OK(cudaGraphLaunch(e, s));
      cudaEventRecord(t1, s); OK(cudaEventSynchronize(t1));
      float ms; cudaEventElapsedTime(&ms, t0, t1); best = ms < best ? ms : best;
    }
    printf("%-10s %2d steps/graph: %.2f us per step\n", fused ? "fused" : "two-kernel", steps, best * 1000.f / (iters * steps));
  }
  return 0;
}
