// Binding: backendInfo() says whether the CUDA backend is compiled in and usable, and if not,
// why; the UI shows that reason in the Compute badge (never a silent switch).
#include <napi.h>

#include "addon/bindings.h"
#ifdef DQN_WITH_CUDA
#include "cuda/device.h"
#include "cuda/sync.h"
#endif

namespace dqn::addon {
namespace {

Napi::Value BackendInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
#ifdef DQN_WITH_CUDA
  const cuda::DeviceProbe p = cuda::ProbeDevice();
  o.Set("cudaCompiled", true);
  o.Set("cudaAvailable", p.available);
  o.Set("reason", p.available ? std::string() : p.reason);
  if (p.available) {
    o.Set("deviceName", p.name);
    o.Set("computeCapability", std::to_string(p.compute_major) + "." + std::to_string(p.compute_minor));
    o.Set("freeBytes", static_cast<double>(p.free_bytes));
    o.Set("totalBytes", static_cast<double>(p.total_bytes));
  }
#else
  o.Set("cudaCompiled", false);
  o.Set("cudaAvailable", false);
  o.Set("reason", "built without the CUDA toolkit");
#endif
  return o;
}

/// cudaSyncCount() -> number: host synchronizations of the CUDA backend so far in this process
/// (cuda/sync.h; 0 without the CUDA backend), for tests of the zero-sync training step.
Napi::Value CudaSyncCount(const Napi::CallbackInfo& info) {
#ifdef DQN_WITH_CUDA
  return Napi::Number::New(info.Env(), static_cast<double>(cuda::SyncCount()));
#else
  return Napi::Number::New(info.Env(), 0);
#endif
}

}  // namespace

void InitBackend(Napi::Env env, Napi::Object exports) {
  exports.Set("backendInfo", Napi::Function::New(env, BackendInfo, "backendInfo"));
  exports.Set("cudaSyncCount", Napi::Function::New(env, CudaSyncCount, "cudaSyncCount"));
}

}  // namespace dqn::addon
