// CUDA error mapping (see status.h).
#include "cuda/status.h"

namespace dqn::cuda {

const char* StatusString(Status status) {
  switch (status) {
    case Status::kSuccess: return "success";
    case Status::kErrorNoDevice: return "no CUDA device";
    case Status::kErrorOutOfMemory: return "out of memory";
    case Status::kErrorInvalidValue: return "invalid value";
    case Status::kErrorLaunch: return "kernel launch failed";
    case Status::kErrorKernelFault: return "kernel fault (CUDA context lost)";
    case Status::kErrorInternal: return "CUDA error";
  }
  return "unknown status";
}

bool IsSticky(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

Status StatusFromCuda(cudaError_t error) {
  if (error == cudaSuccess) return Status::kSuccess;
  if (error == cudaErrorMemoryAllocation) return Status::kErrorOutOfMemory;
  if (error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver) return Status::kErrorNoDevice;
  if (error == cudaErrorInvalidValue) return Status::kErrorInvalidValue;
  if (IsSticky(error)) return Status::kErrorKernelFault;
  if (error == cudaErrorLaunchOutOfResources || error == cudaErrorInvalidConfiguration ||
      error == cudaErrorInvalidDeviceFunction || error == cudaErrorNoKernelImageForDevice ||
      error == cudaErrorLaunchTimeout)
    return Status::kErrorLaunch;
  return Status::kErrorInternal;
}

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  if (!IsSticky(error)) cudaGetLastError();
  const Status status = StatusFromCuda(error);
  throw CudaError(status, error,
                  std::string(StatusString(status)) + " while " + what + " (" + cudaGetErrorName(error) + ": " +
                      cudaGetErrorString(error) + ")");
}

}  // namespace dqn::cuda
