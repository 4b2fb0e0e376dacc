// CUDA device discovery: which GPU the CUDA backend would use, or the reason there is none.
// Compiled only with the CUDA backend (DQN_WITH_CUDA); callers guard with that macro.
#pragma once
#include <cstddef>
#include <string>

namespace dqn::cuda {

/// Result of probing for a usable CUDA device.
struct DeviceProbe {
  bool available = false;   ///< a device and a working driver were found
  std::string reason;       ///< why not, when !available (e.g. "no CUDA device")
  std::string name;         ///< device name, e.g. "NVIDIA H200"
  int device = -1;          ///< device ordinal used
  int compute_major = 0, compute_minor = 0;
  size_t free_bytes = 0, total_bytes = 0;
};

/// Probes device 0 (or DQN_CUDA_DEVICE). Never throws; a driver error becomes `reason`.
DeviceProbe ProbeDevice();

}  // namespace dqn::cuda
