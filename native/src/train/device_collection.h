// Collection on the device as the Trainer sees it (issue 24 items 4-5; DESIGN sections 1, 4 and
// 7): the environments' copies live on the GPU, act from the learner's online weights as they
// are there, and write their n-step transitions straight into the GPU replay; the host only
// queues vector steps and reads the ended episodes back at the epoch boundary. The CUDA
// implementation is cuda/device_collection.cpp; MakeCollection (train/make_collection.h)
// decides whether a run collects on the device and says why not.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dqn {

/// Where a run's training environments step (config env.collector).
enum class Collector {
  kAuto,    ///< the device where it is the faster (from 256 copies x 256 env steps a training step, run L44), else the host
  kHost,    ///< always the host (the CPU environments and acting)
  kDevice,  ///< the device; when it cannot be, the host, with the reason reported
};

/// One training episode that ended, as RunStats reports it.
struct EndedEpisode {
  double ret = 0;        ///< return (summed rewards)
  int64_t env_step = 0;  ///< env step (all copies counted) at which it ended
  int32_t length = 0;    ///< env steps of the episode
};

class DeviceCollection {
 public:
  virtual ~DeviceCollection() = default;
  /// Environment copies (E): a vector step is E env steps.
  virtual int num_envs() const = 0;
  /// Sets the device's counters (epsilon schedule, exploration stream) to env_steps when they
  /// differ (a resumed run); queued, nothing waits.
  virtual void begin(int64_t env_steps) = 0;
  /// Queues one vector step (nothing waits). False, with nothing queued, when the device can no
  /// longer collect (the replay moved to the CPU): the trainer then collects on the host and
  /// reason() says why. @throws CudaError when a launch fails.
  virtual bool queue_step() = 0;
  /// The episodes ended since the last drain, by env step; `dropped` ended beyond the log's
  /// room (counted only). Makes the replay's host count exact. Synchronizes (epoch boundary).
  virtual std::vector<EndedEpisode> drain(int64_t* dropped) = 0;
  /// Why the device stopped collecting ("" while it collects).
  virtual std::string reason() const = 0;
};

}  // namespace dqn
