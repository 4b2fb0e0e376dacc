// Where a run collects (see make_collection.h).
#include "train/make_collection.h"

#include "train/trainer.h"
#ifdef DQN_WITH_CUDA
#include "cuda/device_collection.h"
#endif

namespace dqn {

CollectionChoice MakeCollection(const TrainerConfig& config, Learner& learner, Replay& replay) {
  // auto is the host for now: on the H200 the host path trains the cartpole preset faster (its
  // environment work overlaps the GPU's steps, while the device collector's vector step adds
  // six launches to the learner's stream; bench/RESULTS.md, run L42).
  if (config.collector != Collector::kDevice) return {};
  if (config.compute != Compute::kCuda)
    return {nullptr, "the compute backend is the CPU; the device collector acts with the CUDA learner"};
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
