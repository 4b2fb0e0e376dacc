// Rank-based prioritization on the GPU (Schaul et al. 2016, sec. 3.3): every K sample calls
// the stored slots are sorted by priority, descending (CUB radix sort; stable, so ties keep the
// lower slot first, as in the CPU reference). The power-law CDF C(r) is computed once on the
// host by the CPU reference's own loop and uploaded, so both backends invert the same numbers.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include "kernels/replay_launch.cuh"

namespace dqn::cuda::detail {
namespace {

constexpr int kThreads = 256;

__global__ void IotaKernel(int32_t* iota, int64_t n) {
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < n;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x)
    iota[r] = static_cast<int32_t>(r);
}

__global__ void SetSortedSizeKernel(DeviceState* state, int64_t size) { state->sorted_size = size; }

}  // namespace

cudaError_t RankTempBytes(int64_t capacity, size_t* bytes) {
  size_t sort = 0;
  const int n = static_cast<int>(capacity);
  if (cudaError_t e = cub::DeviceRadixSort::SortPairsDescending(nullptr, sort, static_cast<const double*>(nullptr),
                                                                static_cast<double*>(nullptr), static_cast<const int32_t*>(nullptr),
                                                                static_cast<int32_t*>(nullptr), n); e != cudaSuccess) return e;
  *bytes = sort;
  return cudaSuccess;
}

cudaError_t LaunchIota(int32_t* iota, int64_t n, cudaStream_t stream) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  IotaKernel<<<static_cast<unsigned>(blocks > 4096 ? 4096 : blocks), kThreads, 0, stream>>>(iota, n);
  return cudaGetLastError();
}

cudaError_t LaunchRankSort(const ReplayView& v, int64_t size, double* keys_out, const int32_t* iota, void* temp,
                           size_t temp_bytes, cudaStream_t stream) {
  if (size > 0) {
    const double* keys = v.sum + v.tree.offset[v.tree.levels];
    if (cudaError_t e = cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, keys, keys_out, iota, v.rank_slots,
                                                                  static_cast<int>(size), 0, 64, stream); e != cudaSuccess)
      return e;
  }
  SetSortedSizeKernel<<<1, 1, 0, stream>>>(v.state, size);
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
