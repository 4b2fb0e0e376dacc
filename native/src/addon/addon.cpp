// Module entry: registers every binding. Bindings only check arguments and convert values;
// the logic lives in replay/, model/, train/, env/, cpu/ and cuda/.
#include <napi.h>

#include "addon/bindings.h"

namespace {
Napi::Object Init(Napi::Env env, Napi::Object exports) {
  dqn::addon::InitScalars(env, exports);
  dqn::addon::InitBackend(env, exports);
  dqn::addon::InitEnv(env, exports);
  dqn::addon::InitReplay(env, exports);
  dqn::addon::InitTrainer(env, exports);
  dqn::addon::InitTrainerGroup(env, exports);
  dqn::addon::InitLearnerTesting(env, exports);
  dqn::addon::InitRulesTesting(env, exports);
  dqn::addon::InitNvml(env, exports);
  return exports;
}
}  // namespace

NODE_API_MODULE(dqn_native, Init)
