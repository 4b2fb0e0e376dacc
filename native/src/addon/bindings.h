// One Init function per binding file; addon.cpp calls them all at module load. AddonData holds
// what several of them share per environment.
#pragma once
#include <napi.h>

namespace dqn::addon {
/// Per-environment data of the addon (Node-API instance data, set once by the first Init that
/// needs it): constructors that native code creates objects of outside a JS `new`.
struct AddonData {
  Napi::FunctionReference trainer;  ///< the Trainer class (Trainer.build resolves to one)
};

/// This environment's AddonData, created on first use.
inline AddonData& Data(Napi::Env env) {
  auto* data = env.GetInstanceData<AddonData>();
  if (!data) {
    data = new AddonData();
    env.SetInstanceData(data);
  }
  return *data;
}

void InitScalars(Napi::Env env, Napi::Object exports);
void InitBackend(Napi::Env env, Napi::Object exports);
void InitEnv(Napi::Env env, Napi::Object exports);
void InitReplay(Napi::Env env, Napi::Object exports);
void InitTrainer(Napi::Env env, Napi::Object exports);
void InitLearnerTesting(Napi::Env env, Napi::Object exports);
/// rulesTesting: the heads' scalar rules and spectral normalisation (rules_testing_binding.cpp).
void InitRulesTesting(Napi::Env env, Napi::Object exports);
/// nvmlSample(): GPU readings through NVML loaded at run time (nvml_binding.cpp).
void InitNvml(Napi::Env env, Napi::Object exports);
}  // namespace dqn::addon
