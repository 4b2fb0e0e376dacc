// Conversion of a JS env config + bars into an EnvSpec (see env_spec.h).
#include "addon/env_spec.h"

#include <memory>
#include <string>
#include <vector>

#include "addon/check.h"

namespace dqn::addon {
namespace {

void OptInt(const Napi::Object& o, const char* key, int64_t lo, int64_t hi, int* out) {
  if (o.Has(key) && !o.Get(key).IsUndefined()) *out = static_cast<int>(Integer(o.Get(key), std::string("env.") + key, lo, hi));
}

void OptNum(const Napi::Object& o, const char* key, double lo, double hi, double* out) {
  if (o.Has(key) && !o.Get(key).IsUndefined()) *out = Number(o.Get(key), std::string("env.") + key, lo, hi);
}

std::shared_ptr<const MarketData> ParseMarket(const Napi::Value& v) {
  if (!v.IsObject()) ThrowType(v.Env(), "market must be an object {timestamps, open, high, low, close, volume} of Float64Arrays for env.kind 'trading'");
  const Napi::Object o = v.As<Napi::Object>();
  auto m = std::make_shared<MarketData>();
  const std::pair<const char*, std::vector<double>*> columns[] = {{"timestamps", &m->timestamps}, {"open", &m->open}, {"high", &m->high},
                                                                 {"low", &m->low}, {"close", &m->close}, {"volume", &m->volume}};
  int64_t length = -1;
  for (const auto& [name, column] : columns) {
    const auto arr = Typed<double>(Prop(o, name, "market"), std::string("market.") + name, length);
    length = static_cast<int64_t>(arr.ElementLength());
    // Copied at once (a later getter may detach it); out of memory is an Error, not an abort.
    CallNative(v.Env(), [&] { column->assign(arr.Data(), arr.Data() + arr.ElementLength()); });
  }
  return m;
}

}  // namespace

EnvSpec ParseEnvSpec(Napi::Object env, Napi::Value market, uint64_t seed) {
  EnvSpec s;
  const Napi::Value kind = Prop(env, "kind", "env");
  if (!kind.IsString()) ThrowType(env.Env(), "env.kind must be 'cartpole' or 'trading'");
  s.kind = kind.As<Napi::String>().Utf8Value();
  s.seed = seed;
  OptInt(env, "num_envs", 1, 4096, &s.num_envs);
  if (s.kind == "cartpole") {
    OptInt(env, "max_episode_steps", 1, 100'000, &s.max_episode_steps);
  } else if (s.kind == "trading") {
    OptInt(env, "episode_length", 16, 1'000'000, &s.episode_length);
    OptInt(env, "lags", 1, 16, &s.lags);
    OptInt(env, "n_actions", 3, 255, &s.n_actions);
    OptNum(env, "max_position", 0.01, 10, &s.max_position);
    OptNum(env, "cost_bps", 0, 1000, &s.cost_bps);
    OptNum(env, "reward_scale", 1e-6, 1e9, &s.reward_scale);
    OptNum(env, "validation_fraction", 0.05, 0.9, &s.validation_fraction);
    OptNum(env, "test_fraction", 0, 0.9, &s.test_fraction);
    OptInt(env, "embargo_bars", 0, 1'000'000, &s.embargo_bars);
    OptInt(env, "folds", 1, 64, &s.folds);
    OptInt(env, "fold", 0, 63, &s.fold);
    OptNum(env, "max_gap_bars", 1, 1e6, &s.max_gap_bars);
    OptInt(env, "decision_interval", 1, 100'000, &s.decision_interval);
    OptNum(env, "change_penalty_bps", 0, 1000, &s.change_penalty_bps);
    OptNum(env, "financing_rate", 0, 1, &s.financing_rate);
    if (env.Has("gap_policy") && !env.Get("gap_policy").IsUndefined())
      s.gap_policy = OneOf(env.Get("gap_policy"), "env.gap_policy", {"hold", "flat"}) == 0 ? GapPolicy::kHold : GapPolicy::kFlat;
    if (env.Has("action_space") && !env.Get("action_space").IsUndefined())
      s.action_space = OneOf(env.Get("action_space"), "env.action_space", {"target", "step"}) == 0 ? ActionSpace::kTarget : ActionSpace::kStep;
    s.market = ParseMarket(market);
  } else {
    ThrowRange(env.Env(), "env.kind must be 'cartpole' or 'trading', got '" + s.kind + "'");
  }
  return s;
}

}  // namespace dqn::addon
