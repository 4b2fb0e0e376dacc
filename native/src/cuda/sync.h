// The CUDA backend's host synchronizations, counted (DESIGN section 4: zero host syncs per
// training step; the epoch boundary is the one sync point). Every wait of the backend on the
// device goes through these functions, so a test can assert that the count does not move
// across training steps.
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace dqn::cuda {

/// cudaStreamSynchronize, counted; throws CudaError (see status.h) naming `what` on failure.
void Synchronize(cudaStream_t stream, const char* what);
/// cudaStreamSynchronize, counted, for destructors: returns the error instead of throwing.
cudaError_t SynchronizeNoThrow(cudaStream_t stream);
/// cudaEventSynchronize, counted; throws CudaError naming `what` on failure.
void WaitEvent(cudaEvent_t event, const char* what);
/// Host synchronizations so far in this process (all streams, all objects).
int64_t SyncCount();

}  // namespace dqn::cuda
