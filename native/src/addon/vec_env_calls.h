// reset() and step() of any VecEnv as JS values, shared by the Env binding and the learner's
// testing binding (its CartPole also exposes setState/state). Bindings only: the env checks its
// actions itself (std::out_of_range -> RangeError through CallNative).
#pragma once
#include <napi.h>

#include "env/vec_env.h"

namespace dqn::addon {

/// Resets every copy; returns a Float32Array [num_envs x obs_dim].
Napi::Float32Array ResetVecEnv(Napi::Env env, VecEnv& vec);

/// Steps every copy with `actions` (Int32Array [num_envs]); returns {nextObs, rewards,
/// terminated, truncated, finalObs} as fresh typed arrays.
/// @throws TypeError / RangeError for a wrong array, RangeError for an action out of range.
Napi::Object StepVecEnv(Napi::Env env, VecEnv& vec, const Napi::Value& actions);

}  // namespace dqn::addon
