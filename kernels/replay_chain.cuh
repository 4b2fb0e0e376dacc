// Programmatic dependent launch (PDL, Hopper; CUDA programming guide, "Programmatic Dependent
// Launch and Synchronization") for the replay's sample and update kernels: a chained kernel may
// be scheduled while the previous kernel of the stream (or graph) is still running, so its
// launch latency overlaps that kernel's tail. It must call WaitForPriorGrids() before it reads
// or writes global memory; that waits until the previous grid has finished and its writes are
// visible. Without the launch attribute both device calls are no-ops. Compiled by nvcc only.
#pragma once
#include <cuda_runtime.h>

#include <utility>

namespace dqn::cuda::detail {

/// Blocks until the grid this one depends on programmatically has completed and flushed.
__device__ __forceinline__ void WaitForPriorGrids() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

/// Lets the next chained grid be scheduled now (it still waits for this grid before touching memory).
__device__ __forceinline__ void AllowNextGrid() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

/// Launches kernel<<<grid, block, smem, stream>>>(args...), with the programmatic
/// stream-serialization attribute when `chained` (see above), in thread-block clusters of
/// `cluster_blocks` blocks along x when it is > 0 (Hopper). Returns the launch error.
template <typename... Params, typename... Args>
cudaError_t LaunchChained(bool chained, unsigned cluster_blocks, void (*kernel)(Params...), dim3 grid, dim3 block,
                          size_t smem, cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[2];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = chained ? 1 : 0;
  attr[1].id = cudaLaunchAttributeClusterDimension;
  attr[1].val.clusterDim.x = cluster_blocks;
  attr[1].val.clusterDim.y = 1;
  attr[1].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = cluster_blocks > 0 ? 2 : 1;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}

}  // namespace dqn::cuda::detail
