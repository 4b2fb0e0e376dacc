// CUDA device discovery (see device.h).
#include "cuda/device.h"

#include <cuda_runtime.h>

#include <cstdlib>

namespace dqn::cuda {

DeviceProbe ProbeDevice() {
  DeviceProbe p;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    p.reason = err == cudaErrorNoDevice || count == 0 || err == cudaErrorInsufficientDriver
                   ? std::string("no CUDA device")
                   : std::string("no CUDA device (") + cudaGetErrorName(err) + ")";
    cudaGetLastError();
    return p;
  }
  int dev = 0;
  if (const char* env = std::getenv("DQN_CUDA_DEVICE")) dev = std::atoi(env);
  if (dev < 0 || dev >= count) {
    p.reason = "DQN_CUDA_DEVICE=" + std::to_string(dev) + " but only " + std::to_string(count) + " device(s)";
    return p;
  }
  cudaDeviceProp prop{};
  if ((err = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess || (err = cudaSetDevice(dev)) != cudaSuccess ||
      (err = cudaMemGetInfo(&p.free_bytes, &p.total_bytes)) != cudaSuccess) {
    p.reason = std::string("CUDA device unusable (") + cudaGetErrorName(err) + ")";
    cudaGetLastError();
    return p;
  }
  p.available = true;
  p.device = dev;
  p.name = prop.name;
  p.compute_major = prop.major;
  p.compute_minor = prop.minor;
  return p;
}

}  // namespace dqn::cuda
