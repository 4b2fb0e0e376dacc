// The choice between host and device collection (see device_collection.h).
#pragma once
#include <memory>
#include <string>

#include "train/device_collection.h"
#include "train/learner.h"
#include "replay/replay.h"

namespace dqn {

struct TrainerConfig;

/// A run's collector: `device` set when it collects on the GPU, otherwise null with `reason`
/// saying why the host collects although the config asked for the device ("" for host and auto).
/// With `device` set, `reason` notes what still steps on the host ("" for CartPole; trading: its
/// evaluation walks, whose figures the host's env computes).
struct CollectionChoice {
  std::unique_ptr<DeviceCollection> device;
  std::string reason;
};

/// Decides where `config` (its env.collector, backend, environment, replay and sampler) collects
/// and builds the device collector when env.collector asks for it ('device', or 'auto' on the
/// CUDA backend for CartPole from 256 copies and 256 env steps a training step, where the device
/// is the faster; auto keeps trading on the host, unmeasured) and it can: the CUDA learner
/// (alone, or a member of a seed group, each member with its own copies and streams) training on
/// a GPU replay with proportional or uniform sampling, CartPole or trading (the environments with
/// a device kernel). Every other case, and a device collector that does not fit in memory, is the
/// host with the reason ("" for 'host' and for 'auto' when it keeps the host).
/// @throws CudaError when the GPU fails otherwise.
CollectionChoice MakeCollection(const TrainerConfig& config, Learner& learner, Replay& replay);

}  // namespace dqn
