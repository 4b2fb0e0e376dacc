// The GPU evaluation walks behind the Trainer (see device_evaluation.h).
#include "cuda/device_evaluation.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "cuda/cuda_learner.h"
#include "cuda/cuda_replay.h"
#include "cuda/device_eval_walk.h"
#include "cuda/status.h"
#include "train/trainer.h"

namespace dqn::cuda {
namespace {

/// Test switches (environment variables set to 1), as DQN_SIMULATE_REPLAY_OOM is for the replay:
/// DQN_SIMULATE_EVAL_WALK_OOM, the walks' allocation fails as out of memory;
/// DQN_SIMULATE_EVAL_WALK_ERROR, the first walk's launch fails (non-sticky).
bool Switch(const char* name) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, "1") == 0;
}

class CudaEvaluation final : public DeviceEvaluation {
 public:
  CudaEvaluation(const TrainerConfig& config, CudaLearner& learner, Replay& replay)
      : learner_(learner), replay_(replay), fail_first_(Switch("DQN_SIMULATE_EVAL_WALK_ERROR")) {
    const bool oom = Switch("DQN_SIMULATE_EVAL_WALK_OOM");
    validation_ = std::make_unique<DeviceEvalWalk>(config.env, EnvRole::kValidation, config.net, oom);
    if (config.env.test_fraction > 0) test_ = std::make_unique<DeviceEvalWalk>(config.env, EnvRole::kTest, config.net, oom);
  }

  DeviceWalk walk(EnvRole span) override {
    DeviceEvalWalk* w = span == EnvRole::kTest ? test_.get() : span == EnvRole::kValidation ? validation_.get() : nullptr;
    if (!w) throw std::invalid_argument("the GPU evaluation walks the validation span and, where the run holds one out, the test span");
    CudaReplay* replay = CudaLearner::device_replay(replay_);
    if (!replay)
      throw CudaError(Status::kErrorLaunch, cudaErrorInvalidResourceHandle,
                      "the replay buffer moved to the CPU (" + replay_.backend() + "), and the walk acts on its GPU stream");
    if (fail_first_) {
      fail_first_ = false;
      throw CudaError(Status::kErrorLaunch, cudaErrorLaunchOutOfResources, "stepping the GPU evaluation walk: simulated launch failure");
    }
    DeviceEvalWalk::Result r = CudaLearner::guarded([&] { return w->run(learner_, replay->stream()); });
    return {r.ret, std::move(r.report)};
  }

 private:
  CudaLearner& learner_;
  Replay& replay_;
  bool fail_first_;
  std::unique_ptr<DeviceEvalWalk> validation_, test_;
};

}  // namespace

EvaluationChoice MakeDeviceEvaluation(const TrainerConfig& config, Learner& learner, Replay& replay) {
  auto* cuda = dynamic_cast<CudaLearner*>(&learner);
  if (!cuda) return {nullptr, "the learner is not the CUDA learner, whose weights on the GPU the walk acts from"};
  if (!CudaLearner::device_replay(replay)) return {nullptr, "the replay buffer is on the CPU, and the walk acts on the GPU replay's stream"};
  try {
    return {std::make_unique<CudaEvaluation>(config, *cuda, replay), ""};
  } catch (const CudaError& e) {
    if (e.sticky()) throw;
    return {nullptr, std::string("the GPU evaluation walks do not fit: ") + e.what()};
  }
}

}  // namespace dqn::cuda
