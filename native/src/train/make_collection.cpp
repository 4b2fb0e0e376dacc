// Where a run collects (see make_collection.h).
#include "train/make_collection.h"

#include <string>

#include "train/trainer.h"
#ifdef DQN_WITH_CUDA
#include "cuda/device_collection.h"
#include "cuda/device_evaluation.h"
#endif

namespace dqn {
namespace {

/// auto collects on the device from this many copies and this many env steps a training step
/// on. Below, the host's collection overlaps the GPU's training steps and trains faster: on the
/// H200 (bench/RESULTS.md, run L44) the host path trains CartPole 1.16x as fast at 4 copies x 4
/// env steps a training step and 1.21x at 64 x 64, the device 1.65x as fast at 256 x 256 (the
/// host then spends longer on a training step's env steps than the GPU on the step).
constexpr int64_t kAutoDeviceFrom = 256;

/// Whether auto asks for the device: the CUDA backend, CartPole, a sampler the device's inserts
/// can feed, and a shape from which the device is the faster. Trading has a device kernel too,
/// but auto keeps it on the host: nothing has measured yet whether the device pays for trading.
bool AutoWantsDevice(const TrainerConfig& c) {
  return c.compute == Compute::kCuda && c.env.kind == "cartpole" && c.replay.sampler != Sampler::kRank &&
         c.env.num_envs >= kAutoDeviceFrom && c.train_every >= kAutoDeviceFrom;
}

bool HasDeviceKernel(const std::string& kind) { return kind == "cartpole" || kind == "trading"; }

}  // namespace

std::string TradingDeviceNote(const std::string& why_host) {
  return why_host.empty() ? "training episodes and evaluation walks step on the GPU"
                          : "training episodes step on the GPU; evaluation walks step on the host: " + why_host;
}

CollectionChoice MakeCollection(const TrainerConfig& config, Learner& learner, Replay& replay) {
  if (config.collector == Collector::kHost || (config.collector == Collector::kAuto && !AutoWantsDevice(config))) return {};
  if (config.compute != Compute::kCuda)
    return {nullptr, "the compute backend is the CPU; the device collector acts with the CUDA learner"};
  if (!HasDeviceKernel(config.env.kind))
    return {nullptr, "env '" + config.env.kind + "' has no device kernel (CartPole and trading have one)"};
  if (config.replay.sampler == Sampler::kRank)
    return {nullptr, "rank-based sampling sorts on the host's count of transitions, which device collection updates only at "
                     "the epoch boundary; use the proportional or uniform sampler"};
#ifdef DQN_WITH_CUDA
  return cuda::MakeDeviceCollection(config, learner, replay);
#else
  (void)learner, (void)replay;
  return {nullptr, "this build of the addon has no CUDA backend"};
#endif
}

EvaluationChoice MakeEvaluation(const TrainerConfig& config, Learner& learner, Replay& replay) {
#ifdef DQN_WITH_CUDA
  return cuda::MakeDeviceEvaluation(config, learner, replay);
#else
  (void)config, (void)learner, (void)replay;
  return {nullptr, "this build of the addon has no CUDA backend"};
#endif
}

}  // namespace dqn
