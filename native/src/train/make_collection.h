// The choice between host and device collection (see device_collection.h).
#pragma once
#include <memory>
#include <string>

#include "train/device_collection.h"
#include "train/device_evaluation.h"
#include "train/learner.h"
#include "replay/replay.h"

namespace dqn {

struct TrainerConfig;

/// A run's collector: `device` set when it collects on the GPU, otherwise null with `reason`
/// saying why the host collects although the config asked for the device ("" for host and auto).
/// With `device` set, `reason` is "" (a trading run's Trainer then notes where its evaluation
/// walks step: TradingDeviceNote).
struct CollectionChoice {
  std::unique_ptr<DeviceCollection> device;
  std::string reason;
};

/// The collector's reason of a trading run whose training episodes step on the GPU: its
/// evaluation walks on the GPU too (`why_host` empty), or on the host because of `why_host`.
std::string TradingDeviceNote(const std::string& why_host);

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

/// Where a trading run that collects on the device walks its evaluations: on the device
/// (cuda/device_evaluation.h: the lone CUDA learner or a seed-group member on a GPU replay, walks
/// that fit in device memory), else null with the reason the host walks them.
/// @throws CudaError when the GPU fails otherwise (a sticky error).
EvaluationChoice MakeEvaluation(const TrainerConfig& config, Learner& learner, Replay& replay);

}  // namespace dqn
