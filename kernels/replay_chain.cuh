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

/// Loads one word of every 64-byte line of the kernel parameter `p` (which must be declared
/// `const __grid_constant__`, so that taking its address reads the parameter bank in place), one
/// line per warp (warps first_warp, first_warp + 1, ...; lines beyond the block's warps wrap
/// around). A parameter read that misses the constant cache stalls its warp until the line
/// arrives, so the first reads of a large parameter (ReplayView is 768 bytes) cost one miss
/// after another on the critical path (Nsight Compute: "imc" stalls at the kernel's start).
/// Called before WaitForPriorGrids(), the misses happen in parallel and overlap the previous
/// kernel (bench/RESULTS.md, session 3). The words read are 64 bytes apart from the first one
/// and include the last one, so every line that `p` touches is read, however it is aligned.
template <typename T>
__device__ __forceinline__ void WarmParams(const T& p, unsigned first_warp = 0) {
  constexpr unsigned kWords = sizeof(T) / 4, kTouches = (kWords + 15) / 16 + 1;
  const unsigned warps = blockDim.x / 32;
  if ((threadIdx.x & 31) != 0) return;
  for (unsigned i = (threadIdx.x / 32 + warps - first_warp % warps) % warps; i < kTouches; i += warps) {
    const unsigned word = reinterpret_cast<const unsigned*>(&p)[min(i * 16, kWords - 1)];
    asm volatile("" ::"r"(word));
  }
}

/// Launches kernel<<<grid, block, smem, stream>>>(args...), with the programmatic
/// stream-serialization attribute when `chained` (see above), with the L2 access-policy window
/// `l2_window` when its num_bytes > 0 (the launch's accesses inside it persist in the L2's
/// set-aside), in thread-block clusters of `cluster_blocks` blocks along x when it is > 0
/// (Hopper). Returns the launch error.
template <typename... Params, typename... Args>
cudaError_t LaunchChained(bool chained, const cudaAccessPolicyWindow& l2_window, unsigned cluster_blocks,
                          void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                          Args&&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[3];
  unsigned count = 0;
  attr[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[count++].val.programmaticStreamSerializationAllowed = chained ? 1 : 0;
  if (cluster_blocks > 0) {
    attr[count].id = cudaLaunchAttributeClusterDimension;
    attr[count++].val.clusterDim = {cluster_blocks, 1, 1};
  }
  if (l2_window.num_bytes > 0) {
    attr[count].id = cudaLaunchAttributeAccessPolicyWindow;
    attr[count++].val.accessPolicyWindow = l2_window;
  }
  cfg.attrs = attr;
  cfg.numAttrs = count;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}

}  // namespace dqn::cuda::detail
