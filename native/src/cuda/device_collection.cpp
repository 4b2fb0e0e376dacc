// The GPU collector behind the Trainer (see device_collection.h).
#include "cuda/device_collection.h"

#include <memory>
#include <stdexcept>
#include <string>

#include "cuda/cuda_learner.h"
#include "cuda/cuda_replay.h"
#include "cuda/device_collector.h"
#include "cuda/status.h"
#include "train/trainer.h"

namespace dqn::cuda {
namespace {

class CudaCollection final : public DeviceCollection {
 public:
  CudaCollection(const DeviceCollectorConfig& config, const NetConfig& net, CudaLearner& learner, Replay& replay)
      : collector_(config, net), learner_(learner), replay_(replay), stream_(CudaLearner::device_replay(replay)->stream()) {}

  int num_envs() const override { return collector_.config().num_envs; }

  // Every call: a sticky CUDA error (the context is lost) becomes DeviceLost, as the learner's do.
  void begin(int64_t env_steps) override {
    if (!gpu()) return;
    if (env_steps != device_env_steps_) CudaLearner::guarded([&] { collector_.set_env_steps(stream_, env_steps); });
    device_env_steps_ = env_steps;
  }

  bool queue_step() override {
    CudaReplay* replay = gpu();
    if (!replay) return false;
    CudaLearner::guarded([&] { collector_.launch(learner_, *replay); });
    device_env_steps_ += num_envs();
    return true;
  }

  std::vector<EndedEpisode> drain(int64_t* dropped) override {
    // After a fallback the replay's stream is gone: the legacy stream waits for every queued step.
    CudaReplay* replay = gpu();
    const std::vector<detail::EpisodeLogEntry> log =
        CudaLearner::guarded([&] { return collector_.drain_log(replay ? stream_ : nullptr, dropped); });
    if (replay) CudaLearner::guarded([&] { replay->sync_size(); });
    std::vector<EndedEpisode> out;
    out.reserve(log.size());
    for (const detail::EpisodeLogEntry& e : log) out.push_back({e.ret, e.env_step, e.length});
    return out;
  }

  std::string reason() const override { return reason_; }

 private:
  /// The GPU replay, or null once it moved to the CPU (then reason_ says so).
  CudaReplay* gpu() {
    CudaReplay* replay = CudaLearner::device_replay(replay_);
    if (!replay && reason_.empty())
      reason_ = "the replay buffer moved to the CPU (" + replay_.backend() + "), so collection went on on the host";
    return replay;
  }

  DeviceCollector collector_;
  CudaLearner& learner_;
  Replay& replay_;
  cudaStream_t stream_;
  int64_t device_env_steps_ = 0;
  std::string reason_;
};

}  // namespace

CollectionChoice MakeDeviceCollection(const TrainerConfig& config, Learner& learner, Replay& replay) {
  // A lone CUDA learner or a member of a CUDA seed group (each member collects with copies,
  // streams and a replay of its own, on its replay's stream, which the group's launch waits for).
  auto* cuda = dynamic_cast<CudaLearner*>(&learner);
  if (!cuda) return {nullptr, "the learner is not the CUDA learner, whose weights on the GPU the device collector acts from"};
  if (!CudaLearner::device_replay(replay))
    return {nullptr, "the replay buffer is on the CPU (replay.device), and the device collector writes into the GPU replay"};
  DeviceCollectorConfig k;
  k.num_envs = config.env.num_envs;
  k.seed = config.env.seed;
  k.max_episode_steps = config.env.max_episode_steps;
  if (config.env.kind == "trading") k.trading = config.env;
  k.n_step = config.n_step;
  k.gamma = config.gamma;
  k.eps_start = config.exploration.eps_start, k.eps_end = config.exploration.eps_end;
  k.eps_decay_steps = config.exploration.eps_decay_steps;
  k.learning_starts = config.learning_starts;
  k.simulate_oom = config.simulate_collector_oom;
  try {
    return {std::make_unique<CudaCollection>(k, config.net, *cuda, replay), ""};
  } catch (const CudaError& e) {
    if (e.sticky()) throw;
    return {nullptr, std::string("the device collector does not fit: ") + e.what()};
  } catch (const std::invalid_argument& e) {  // an environment the collector cannot step (trading rows wider than it holds)
    return {nullptr, std::string("the device collector cannot step this environment: ") + e.what()};
  }
}

}  // namespace dqn::cuda
