// The GPU evaluation walks behind the Trainer's DeviceEvaluation (train/device_evaluation.h): a
// DeviceEvalWalk per span (validation, and test where the run holds one out), acting from the
// CUDA learner's weights (alone or a seed-group member) on its GPU replay's stream. Compiled only with the CUDA backend
// (DQN_WITH_CUDA).
#pragma once
#include "replay/replay.h"
#include "train/device_evaluation.h"
#include "train/learner.h"

namespace dqn {
struct TrainerConfig;
}

namespace dqn::cuda {

/// Builds the device evaluation of a trading run that collects on the device (config's env is
/// trading, the learner a CudaLearner on a GPU replay): the walks of its validation span and,
/// with env.test_fraction > 0, its test span; null with the reason when the walks do not fit in
/// device memory (or DQN_SIMULATE_EVAL_WALK_OOM=1) or the learner or replay is not on the GPU.
/// DQN_SIMULATE_EVAL_WALK_ERROR=1 makes the first walk fail as a launch does (non-sticky).
/// @throws CudaError for a sticky CUDA failure (the context is lost).
EvaluationChoice MakeDeviceEvaluation(const TrainerConfig& config, Learner& learner, Replay& replay);

}  // namespace dqn::cuda
