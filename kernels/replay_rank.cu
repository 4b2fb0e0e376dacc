// Rank-based prioritization on the GPU (Schaul et al. 2016, sec. 3.3): the power-law CDF
// sum_{k<=r} k^-alpha is built once (CUB inclusive scan, f64), and every K sample calls the
// stored slots are sorted by priority, descending (CUB radix sort; stable, so ties keep slot
// order). The sample kernel then maps a stratified draw to a rank by binary search in the CDF.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "kernels/replay_launch.cuh"

namespace dqn::cuda::detail {
namespace {

constexpr int kThreads = 256;

__global__ void PowerLawKernel(double* out, int32_t* iota, int64_t n, double alpha) {
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < n;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[r] = pow(static_cast<double>(r + 1), -alpha);
    iota[r] = static_cast<int32_t>(r);
  }
}

__global__ void SetSortedSizeKernel(DeviceState* state, int64_t size) { state->sorted_size = size; }

}  // namespace

cudaError_t RankTempBytes(int64_t capacity, size_t* bytes) {
  size_t scan = 0, sort = 0;
  const int n = static_cast<int>(capacity);
  if (cudaError_t e = cub::DeviceScan::InclusiveSum(nullptr, scan, static_cast<double*>(nullptr),
                                                    static_cast<double*>(nullptr), n); e != cudaSuccess) return e;
  if (cudaError_t e = cub::DeviceRadixSort::SortPairsDescending(nullptr, sort, static_cast<const double*>(nullptr),
                                                                static_cast<double*>(nullptr), static_cast<const int32_t*>(nullptr),
                                                                static_cast<int32_t*>(nullptr), n); e != cudaSuccess) return e;
  *bytes = scan > sort ? scan : sort;
  return cudaSuccess;
}

cudaError_t LaunchRankCdf(const ReplayView& v, int32_t* iota, void* temp, size_t temp_bytes, cudaStream_t stream) {
  const int64_t blocks = (v.capacity + kThreads - 1) / kThreads;
  PowerLawKernel<<<static_cast<unsigned>(blocks > 4096 ? 4096 : blocks), kThreads, 0, stream>>>(v.rank_cdf, iota, v.capacity, v.alpha);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  return cub::DeviceScan::InclusiveSum(temp, temp_bytes, v.rank_cdf, v.rank_cdf, static_cast<int>(v.capacity), stream);
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
