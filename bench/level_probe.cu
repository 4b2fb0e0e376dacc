// Probe of one tree level of the update in isolation (bench/RESULTS.md, session 6, run 56): 32
// K-groups in shared memory reduced by K/8 lanes each (ReduceChildren<8> + ReduceLanes<K/8>, the
// update's ReduceGroups), parents stored to global memory and back into shared memory, block
// barrier; clock64 per level, median of 21 launches of 8 levels (warm code: a loop). Flags switch
// parts off (or pad each group to an odd number of 16-byte units) to find where the cycles go.
//   nvcc -std=c++17 -arch=sm_90 -O3 --expt-relaxed-constexpr -I. -Inative/src bench/level_probe.cu -o /tmp/level_probe && /tmp/level_probe
#include <cuda_runtime.h>
#include <cstdio>
#include <algorithm>
#include <vector>
#include "kernels/replay_tree.cuh"
using namespace dqn::cuda::detail;
constexpr int kLevels = 8;
enum : int { kPad = 1, kNoGlobal = 2, kNoLanes = 4, kNoWriteBack = 8, kNoBarrier = 16 };
template <int K, int F>
__global__ void __launch_bounds__(512, 1) LevelKernel(double* gsum, double* gmin, long long* stamps) {
  constexpr int S = (F & kPad) ? K + 2 : K;  // group stride in doubles
  constexpr int G = K / 8;
  __shared__ __align__(16) double sums[32 * S], mins[32 * S];
  for (int i = threadIdx.x; i < 32 * S; i += blockDim.x) sums[i] = 1.0 + i, mins[i] = 0.5 + i;
  __syncthreads();
  if (threadIdx.x == 0) stamps[0] = clock64();
#pragma unroll 1
  for (int it = 0; it < kLevels; ++it) {
    const int i = threadIdx.x / G, j = threadIdx.x % G;
    if (threadIdx.x < 32 * G) {
      const double2* s = reinterpret_cast<const double2*>(sums + i * S + j * 8);
      const double2* m = reinterpret_cast<const double2*>(mins + i * S + j * 8);
      double sum, min;
      ReduceChildren<8, false>([&](int k) { return s[k]; }, [&](int k) { return m[k]; }, sum, min);
      if constexpr (!(F & kNoLanes)) ReduceLanes<G>(sum, min);
      if (j == 0) {
        if constexpr (!(F & kNoGlobal)) {
          gsum[it * 32 + i] = sum;
          gmin[it * 32 + i] = min;
        }
        if constexpr (!(F & kNoWriteBack)) {
          sums[(i * 37 + it * 5) % (32 * S)] = sum;
          mins[(i * 37 + it * 5) % (32 * S)] = min;
        } else {
          if (sum == 12345.0) sums[0] = min;
        }
      }
    }
    if constexpr (!(F & kNoBarrier)) __syncthreads();
    if (threadIdx.x == 0) stamps[it + 1] = clock64();
  }
}
int main() {
  double *gs, *gm; long long* st;
  cudaMalloc(&gs, 8 * 32 * kLevels); cudaMalloc(&gm, 8 * 32 * kLevels); cudaMalloc(&st, 8 * (kLevels + 1));
  auto run = [&](const char* name, void (*k)(double*, double*, long long*)) {
    std::vector<std::vector<long long>> d(kLevels);
    for (int rep = 0; rep < 21; ++rep) {
      k<<<1, 512>>>(gs, gm, st);
      long long h[kLevels + 1];
      cudaMemcpy(h, st, sizeof h, cudaMemcpyDeviceToHost);
      for (int i = 0; i < kLevels; ++i) d[i].push_back(h[i + 1] - h[i]);
    }
    printf("%-34s median cycles per level:", name);
    for (auto& x : d) { std::sort(x.begin(), x.end()); printf(" %lld", x[x.size() / 2]); }
    printf("\n");
  };
  run("K=32 base", LevelKernel<32, 0>);
  run("K=32 pad", LevelKernel<32, kPad>);
  run("K=32 no global", LevelKernel<32, kNoGlobal>);
  run("K=32 no lanes", LevelKernel<32, kNoLanes>);
  run("K=32 no write-back", LevelKernel<32, kNoWriteBack>);
  run("K=32 no barrier", LevelKernel<32, kNoBarrier>);
  run("K=32 pad no global", LevelKernel<32, kPad | kNoGlobal>);
  run("K=32 pad no global no lanes", LevelKernel<32, kPad | kNoGlobal | kNoLanes>);
  run("K=32 pad no global no wb", LevelKernel<32, kPad | kNoGlobal | kNoWriteBack>);
  run("K=16 base", LevelKernel<16, 0>);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
