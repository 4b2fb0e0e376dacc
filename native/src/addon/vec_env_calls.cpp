// reset() and step() of any VecEnv as JS values (see vec_env_calls.h).
#include "addon/vec_env_calls.h"

#include "addon/check.h"

namespace dqn::addon {

Napi::Float32Array ResetVecEnv(Napi::Env env, VecEnv& vec) {
  auto obs = Napi::Float32Array::New(env, static_cast<size_t>(vec.num_envs()) * vec.obs_dim());
  CallNative(env, [&] { vec.reset(obs.Data()); });
  return obs;
}

Napi::Object StepVecEnv(Napi::Env env, VecEnv& vec, const Napi::Value& actions_value) {
  const size_t n = static_cast<size_t>(vec.num_envs()), obs = n * vec.obs_dim();
  const auto actions = Typed<int32_t>(actions_value, "actions", static_cast<int64_t>(n));
  auto next_obs = Napi::Float32Array::New(env, obs);
  auto final_obs = Napi::Float32Array::New(env, obs);
  auto rewards = Napi::Float32Array::New(env, n);
  auto terminated = Napi::Uint8Array::New(env, n);
  auto truncated = Napi::Uint8Array::New(env, n);
  CallNative(env, [&] {
    vec.step(actions.Data(), next_obs.Data(), rewards.Data(), terminated.Data(), truncated.Data(), final_obs.Data());
  });
  Napi::Object out = Napi::Object::New(env);
  out.Set("nextObs", next_obs);
  out.Set("rewards", rewards);
  out.Set("terminated", terminated);
  out.Set("truncated", truncated);
  out.Set("finalObs", final_obs);
  return out;
}

}  // namespace dqn::addon
