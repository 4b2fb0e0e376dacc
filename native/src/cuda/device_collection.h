// The GPU collector behind the Trainer's DeviceCollection (train/device_collection.h): a
// DeviceCollector stepping the copies, the lone CUDA learner acting, the GPU replay receiving.
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include "train/make_collection.h"

namespace dqn::cuda {

/// The device side of MakeCollection (config already known to want and allow the device: the
/// CUDA backend, CartPole or trading, a sampler that needs no host count): the device collector when the
/// learner is a lone CudaLearner on a GPU replay and the collector fits, otherwise the host with
/// the reason. @throws CudaError for a sticky CUDA failure (the context is lost).
CollectionChoice MakeDeviceCollection(const TrainerConfig& config, Learner& learner, Replay& replay);

}  // namespace dqn::cuda
