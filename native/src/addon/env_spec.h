// Converts the `env` section of a run config (a JS object with the snake_case fields of
// common/config.ts EnvSchema) and the OHLCV bars into an EnvSpec. Shared by the Env binding and
// the Trainer binding.
#pragma once
#include <napi.h>

#include <cstdint>

#include "env/make_env.h"

namespace dqn::addon {

/// Reads an EnvSpec from `env` ({kind: 'cartpole' | 'trading', num_envs, ...}); an absent field
/// takes the EnvSpec default, a present one must lie in the range of common/config.ts. For kind
/// 'trading', `market` must be {timestamps, open, high, low, close, volume}: Float64Arrays of
/// one length (native/trainer.ts MarketArrays); it is copied. For 'cartpole' it is ignored.
/// Fields the native side does not use (data, bad_rows) are ignored.
/// @throws Napi::TypeError / Napi::RangeError naming the field and what was expected.
EnvSpec ParseEnvSpec(Napi::Object env, Napi::Value market, uint64_t seed);

}  // namespace dqn::addon
