// Replay placement with fallback (see make_replay.h).
#include "replay/make_replay.h"

#include <cstdlib>
#include <cstring>

#include "replay/replay_config.h"
#ifdef DQN_WITH_CUDA
#include "cuda/device.h"
#include "cuda/fallback_replay.h"
#endif

namespace dqn {

ReplayChoice MakeReplay(const ReplayConfig& config, const ReplayPlacement& placement) {
  ValidateReplayConfig(config);
  if (placement.device == ReplayDevice::kCpu) return {MakeCpuReplay(config), ""};
#ifdef DQN_WITH_CUDA
  const cuda::DeviceProbe probe = cuda::ProbeDevice();
  if (!probe.available) return {MakeCpuReplay(config), probe.reason};
  cuda::CudaReplayOptions options;
  options.fan_log = placement.fan_log;
  options.state_bf16 = placement.state_bf16;
  const char* env = std::getenv("DQN_SIMULATE_REPLAY_OOM");
  options.simulate_oom = placement.simulate_oom || (env && std::strcmp(env, "1") == 0);
  const char* env_kernel = std::getenv("DQN_SIMULATE_REPLAY_KERNEL_ERROR");
  options.simulate_kernel_error = placement.simulate_kernel_error || (env_kernel && std::strcmp(env_kernel, "1") == 0);
  try {
    auto gpu = cuda::MakeCudaReplayWithFallback(config, options);
    const cuda::FallbackReplay* watched = gpu.get();
    return {std::move(gpu), "", [watched] { return watched->fallback_reason(); }};
  } catch (const cuda::CudaError& e) {
    return {MakeCpuReplay(config), e.what()};
  }
#else
  return {MakeCpuReplay(config), "built without the CUDA toolkit"};
#endif
}

}  // namespace dqn
