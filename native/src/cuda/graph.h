// CUDA graphs of the backend's repeated work (DESIGN section 4: the host only launches): a queue
// of launches captured once and replayed. Used by the learner's step, the seed group's step and
// the GPU collector's vector step.
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <functional>

namespace dqn::cuda {

/// Captures queue() on stream s (thread-local capture mode) into *exec, replacing what it held.
/// @throws CudaError when the capture or the instantiation fails (the capture is ended and
///         nothing is left in *exec); whatever queue() throws, after ending the capture.
void CaptureGraph(cudaStream_t s, cudaGraphExec_t* exec, const std::function<void()>& queue);

/// queue() as a CUDA graph when `graph` is true (captured into *exec on first use, then
/// replayed on s), eagerly otherwise. @throws CudaError naming `what` when the launch fails.
void RunGraph(cudaStream_t s, bool graph, cudaGraphExec_t* exec, const char* what, const std::function<void()>& queue);

/// Destroys *exec if set and clears it (never throws).
void DestroyGraph(cudaGraphExec_t* exec);

}  // namespace dqn::cuda
