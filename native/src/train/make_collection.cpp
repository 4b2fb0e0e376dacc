// Where a run collects (see make_collection.h).
#include "train/make_collection.h"

#include "train/trainer.h"
#ifdef DQN_WITH_CUDA
#include "cuda/device_collection.h"
#endif

namespace dqn {

CollectionChoice MakeCollection(const TrainerConfig& config, Learner& learner, Replay& replay) {
  if (config.collector == Collector::kHost) return {};
  const bool asked = config.collector == Collector::kDevice;
  if (config.compute != Compute::kCuda)
    return {nullptr, asked ? "the compute backend is the CPU; the device collector acts with the CUDA learner" : ""};
  if (config.env.kind != "cartpole")
    return {nullptr, "env '" + config.env.kind + "' has no device kernel yet (CartPole has one)"};
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

}  // namespace dqn
