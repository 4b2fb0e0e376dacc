// Binding: nvmlSample() reads GPU utilisation, memory, temperature and power through NVML for the
// dashboard's system panel. NVML is loaded at run time with dlopen("libnvidia-ml.so.1") (never
// linked), so the addon builds and loads without the NVIDIA driver; where NVML is absent or fails
// the result says why ({ available: false, reason }) instead of throwing.
#include <napi.h>

#include <string>

#include "addon/bindings.h"
#if defined(__linux__)
#include <dlfcn.h>
#endif

namespace dqn::addon {
namespace {

// The few NVML declarations we use (nvml.h is not needed: its ABI for these is stable).
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
struct NvmlUtilization {
  unsigned int gpu;     ///< percent of time a kernel ran over the last sample period
  unsigned int memory;  ///< percent of time device memory was read or written
};
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlTemperatureGpu = 0;

/// NVML entry points, resolved once per process; `reason` says why NVML is unusable ("" if usable).
struct Nvml {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*handleByIndex)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*utilization)(nvmlDevice_t, NvmlUtilization*) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, NvmlMemory*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned int*) = nullptr;
  const char* (*errorString)(nvmlReturn_t) = nullptr;
  std::string reason;
};

std::string ErrorName(const Nvml& n, nvmlReturn_t r) {
  if (n.errorString) {
    const char* s = n.errorString(r);
    if (s) return s;
  }
  return "NVML error " + std::to_string(r);
}

/// Loads and initialises NVML on first use (a process keeps the result: the library does not appear later).
const Nvml& LoadNvml() {
  static const Nvml nvml = [] {
    Nvml n;
#if defined(__linux__)
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* err = dlerror();
      n.reason = std::string("NVML not found (") + (err ? err : "libnvidia-ml.so.1 could not be loaded") +
                 "): is the NVIDIA driver installed?";
      return n;
    }
    auto sym = [&](const char* name) { return dlsym(lib, name); };
    n.init = reinterpret_cast<decltype(n.init)>(sym("nvmlInit_v2"));
    n.handleByIndex = reinterpret_cast<decltype(n.handleByIndex)>(sym("nvmlDeviceGetHandleByIndex_v2"));
    n.utilization = reinterpret_cast<decltype(n.utilization)>(sym("nvmlDeviceGetUtilizationRates"));
    n.memory = reinterpret_cast<decltype(n.memory)>(sym("nvmlDeviceGetMemoryInfo"));
    n.temperature = reinterpret_cast<decltype(n.temperature)>(sym("nvmlDeviceGetTemperature"));
    n.power = reinterpret_cast<decltype(n.power)>(sym("nvmlDeviceGetPowerUsage"));
    n.errorString = reinterpret_cast<decltype(n.errorString)>(sym("nvmlErrorString"));
    if (!n.init || !n.handleByIndex || !n.utilization || !n.memory || !n.temperature || !n.power) {
      n.reason = "libnvidia-ml.so.1 lacks an NVML function this console uses (driver too old?)";
      return n;
    }
    const nvmlReturn_t r = n.init();
    if (r != kNvmlSuccess) n.reason = "nvmlInit failed: " + ErrorName(n, r);
#else
    n.reason = "NVML is only loaded on Linux";
#endif
    return n;
  }();
  return nvml;
}

/// nvmlSample(deviceIndex = 0): { available, reason, utilPercent?, memUsedBytes?, memTotalBytes?, temperatureC?, powerW? }.
/// A reading NVML does not support on a device is left out; every failure is a reason, never a throw.
Napi::Value NvmlSample(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  unsigned int index = 0;
  if (info.Length() > 0 && !info[0].IsUndefined()) {
    if (!info[0].IsNumber() || info[0].As<Napi::Number>().DoubleValue() < 0)
      throw Napi::TypeError::New(env, "nvmlSample(deviceIndex): deviceIndex must be a non-negative number");
    index = info[0].As<Napi::Number>().Uint32Value();
  }
  Napi::Object o = Napi::Object::New(env);
  const Nvml& n = LoadNvml();
  if (!n.reason.empty()) {
    o.Set("available", false);
    o.Set("reason", n.reason);
    return o;
  }
  nvmlDevice_t dev = nullptr;
  const nvmlReturn_t r = n.handleByIndex(index, &dev);
  if (r != kNvmlSuccess) {
    o.Set("available", false);
    o.Set("reason", "NVML has no GPU " + std::to_string(index) + ": " + ErrorName(n, r));
    return o;
  }
  o.Set("available", true);
  o.Set("reason", "");
  NvmlUtilization util{};
  if (n.utilization(dev, &util) == kNvmlSuccess) o.Set("utilPercent", static_cast<double>(util.gpu));
  NvmlMemory mem{};
  if (n.memory(dev, &mem) == kNvmlSuccess) {
    o.Set("memUsedBytes", static_cast<double>(mem.used));
    o.Set("memTotalBytes", static_cast<double>(mem.total));
  }
  unsigned int temp = 0;
  if (n.temperature(dev, kNvmlTemperatureGpu, &temp) == kNvmlSuccess) o.Set("temperatureC", static_cast<double>(temp));
  unsigned int milliwatts = 0;
  if (n.power(dev, &milliwatts) == kNvmlSuccess) o.Set("powerW", milliwatts / 1000.0);
  return o;
}

}  // namespace

void InitNvml(Napi::Env env, Napi::Object exports) {
  exports.Set("nvmlSample", Napi::Function::New(env, NvmlSample, "nvmlSample"));
}

}  // namespace dqn::addon
