// One Init function per binding file; addon.cpp calls them all at module load. AddonData holds
// what several of them share per environment.
#pragma once
#include <napi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

namespace dqn {
class Trainer;
struct RunStats;
}  // namespace dqn

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
/// TrainerGroup: seed groups trained in lockstep (trainer_group_binding.cpp).
void InitTrainerGroup(Napi::Env env, Napi::Object exports);
/// Test switch of the testing options: a NaN written into one tensor at one step.
struct NanInjection {
  uint32_t flag = 0;
  int64_t step = 0;
};
/// Parses `testing` ({ injectNan?: { tensor, step } }); undefined means none (trainer_binding.cpp).
std::optional<NanInjection> ParseTesting(const Napi::Value& v);
/// A run()'s result as JS: { steps, stopped, episodeReturns, episodeEnvSteps } (trainer_binding.cpp).
Napi::Object RunStatsObject(Napi::Env env, const RunStats& r);
/// A JS Trainer over member `trainer` of a seed group: everything a Trainer does but run(),
/// which the group does; it shares `busy` (one operation at a time) with the group.
Napi::Object WrapGroupMember(Napi::Env env, std::shared_ptr<Trainer> trainer, std::shared_ptr<std::atomic<bool>> busy);
void InitLearnerTesting(Napi::Env env, Napi::Object exports);
/// rulesTesting: the heads' scalar rules and spectral normalisation (rules_testing_binding.cpp).
void InitRulesTesting(Napi::Env env, Napi::Object exports);
/// nvmlSample(): GPU readings through NVML loaded at run time (nvml_binding.cpp).
void InitNvml(Napi::Env env, Napi::Object exports);
}  // namespace dqn::addon
