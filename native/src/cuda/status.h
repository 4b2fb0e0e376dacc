// CUDA errors as named values (CUTLASS's Status style): every CUDA call of the backend is checked
// and a failure becomes a CudaError exception carrying a Status, the CUDA error's name and
// whether the context is lost (sticky). Fallback reasons (DESIGN section 5) come from these.
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace dqn::cuda {

enum class Status {
  kSuccess,            ///< no error
  kErrorNoDevice,      ///< no CUDA device or no usable driver
  kErrorOutOfMemory,   ///< a device allocation failed (or was simulated to fail)
  kErrorInvalidValue,  ///< a CUDA call rejected its arguments (a bug on our side)
  kErrorLaunch,        ///< a kernel could not be launched; the context is intact (non-sticky)
  kErrorKernelFault,   ///< a kernel faulted; the context is lost until the process ends (sticky)
  kErrorInternal,      ///< any other CUDA error
};

/// Short name of a status, e.g. "out of memory".
const char* StatusString(Status status);

/// Maps a CUDA error to its Status.
Status StatusFromCuda(cudaError_t error);

/// True for errors that leave the CUDA context unusable (illegal address, launch failure, ...).
bool IsSticky(cudaError_t error);

/// A failed CUDA call: what was being done, the status and the CUDA error's name.
class CudaError : public std::runtime_error {
 public:
  CudaError(Status status, cudaError_t code, const std::string& message)
      : std::runtime_error(message), status_(status), code_(code) {}
  Status status() const { return status_; }
  cudaError_t code() const { return code_; }
  bool sticky() const { return IsSticky(code_); }

 private:
  Status status_;
  cudaError_t code_;
};

/// Throws CudaError for a failed call, e.g. Check(cudaMalloc(...), "allocating the replay buffer").
/// A non-sticky error is cleared from the runtime's last-error slot first.
void Check(cudaError_t error, const char* what);

}  // namespace dqn::cuda
