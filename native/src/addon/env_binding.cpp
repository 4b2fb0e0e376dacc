// Binding: class Env, a vectorized environment driven from JavaScript (tests, tools):
//   new Env(env /* {kind, ...config fields, seed} */, market /* MarketArrays | undefined */,
//           role /* 'train' | 'validation' | 'test', or a boolean: true = 'validation' */)
//   reset() -> Float32Array [numEnvs x obsDim]
//   step(actions: Int32Array [numEnvs]) -> {nextObs, rewards, terminated, truncated, finalObs}
//   obsDim, numActions, numEnvs, causalFeatures ({name, indices}[]), episodeMetrics() -> {name: value}
// Typed wrapper: native/env.ts.
#include <napi.h>

#include <memory>
#include <string>

#include "addon/bindings.h"
#include "addon/check.h"
#include "addon/env_spec.h"
#include "addon/vec_env_calls.h"
#include "env/make_env.h"

namespace dqn::addon {
namespace {

class EnvWrap : public Napi::ObjectWrap<EnvWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Env",
                       {InstanceMethod<&EnvWrap::Reset>("reset"), InstanceMethod<&EnvWrap::Step>("step"),
                        InstanceMethod<&EnvWrap::EpisodeMetrics>("episodeMetrics"),
                        InstanceMethod<&EnvWrap::EpisodeSeries>("episodeSeries"),
                        InstanceAccessor<&EnvWrap::ObsDim>("obsDim"), InstanceAccessor<&EnvWrap::NumActions>("numActions"),
                        InstanceAccessor<&EnvWrap::NumEnvs>("numEnvs"),
                        InstanceAccessor<&EnvWrap::CausalFeatures>("causalFeatures")});
  }

  explicit EnvWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<EnvWrap>(info) {
    Napi::Env env = info.Env();
    if (!info[0].IsObject()) ThrowType(env, "new Env(env, market, eval): env must be an object {kind, ...}");
    if (!info[2].IsBoolean() && !info[2].IsString())
      ThrowType(env, "new Env(env, market, role): role must be 'train', 'validation' or 'test' (or a boolean: true = 'validation')");
    const Napi::Object cfg = info[0].As<Napi::Object>();
    uint64_t seed = 1;
    if (cfg.Has("seed") && !cfg.Get("seed").IsUndefined()) seed = static_cast<uint64_t>(Integer(cfg.Get("seed"), "env.seed", 0, 2147483647));
    const EnvSpec spec = ParseEnvSpec(cfg, info[1], seed);
    const EnvRole role = info[2].IsBoolean() ? (info[2].As<Napi::Boolean>().Value() ? EnvRole::kValidation : EnvRole::kTrain)
                                             : static_cast<EnvRole>(OneOf(info[2], "role", {"train", "validation", "test"}));
    impl_ = CallNative(env, [&] { return MakeEnv(spec, role); });
  }

 private:
  Napi::Value Reset(const Napi::CallbackInfo& info) { return ResetVecEnv(info.Env(), *impl_); }
  Napi::Value Step(const Napi::CallbackInfo& info) { return StepVecEnv(info.Env(), *impl_, info[0]); }

  Napi::Value EpisodeMetrics(const Napi::CallbackInfo& info) {
    Napi::Object out = Napi::Object::New(info.Env());
    for (const auto& [name, value] : impl_->episode_metrics()) out.Set(name, value);
    return out;
  }

  Napi::Value EpisodeSeries(const Napi::CallbackInfo& info) {
    Napi::Object out = Napi::Object::New(info.Env());
    for (const auto& [name, v] : impl_->episode_series()) {
      Napi::Float64Array a = Napi::Float64Array::New(info.Env(), v.size());
      for (size_t i = 0; i < v.size(); ++i) a[i] = v[i];
      out.Set(name, a);
    }
    return out;
  }

  Napi::Value ObsDim(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), impl_->obs_dim()); }
  Napi::Value NumActions(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), impl_->num_actions()); }
  Napi::Value NumEnvs(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), impl_->num_envs()); }
  Napi::Value CausalFeatures(const Napi::CallbackInfo& info) {
    const std::vector<FeatureGroup> groups = impl_->causal_features();
    Napi::Array out = Napi::Array::New(info.Env(), groups.size());
    for (uint32_t g = 0; g < groups.size(); ++g) {
      Napi::Object o = Napi::Object::New(info.Env());
      o.Set("name", groups[g].name);
      Napi::Array idx = Napi::Array::New(info.Env(), groups[g].indices.size());
      for (uint32_t i = 0; i < groups[g].indices.size(); ++i) idx.Set(i, groups[g].indices[i]);
      o.Set("indices", idx);
      out.Set(g, o);
    }
    return out;
  }

  std::unique_ptr<VecEnv> impl_;
};

}  // namespace

void InitEnv(Napi::Env env, Napi::Object exports) { exports.Set("Env", EnvWrap::Define(env)); }

}  // namespace dqn::addon
