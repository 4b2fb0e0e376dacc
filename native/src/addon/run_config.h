// Conversion of the validated RunConfig (snake_case object from common/config.ts
// parseRunConfig) and the optional market arrays into the native TrainerConfig. Every field the
// native trainer uses is type- and range-checked again here (ranges as in common/config.ts);
// host-only fields (epochs, steps_per_epoch, eval_episodes, checkpoint_every, name) are ignored.
#pragma once
#include <napi.h>

#include "train/trainer.h"

namespace dqn::addon {

/// Converts a validated RunConfig for the compute backend already chosen (replay.device 'auto'
/// follows it). @throws Napi::TypeError / Napi::RangeError naming the field ("config.optim.lr must be ...").
TrainerConfig ToTrainerConfig(const Napi::Value& config, const Napi::Value& market, Compute compute);

/// Converts a `heads` section (common/config.ts HeadsSchema, defaults filled in) as
/// ToTrainerConfig does; `path` names it in messages ("net.heads"). @throws as ToTrainerConfig.
HeadsConfig ToHeadsConfig(const Napi::Value& heads, const std::string& path);

}  // namespace dqn::addon
