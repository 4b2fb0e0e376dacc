// The learner interface's shared pieces and the backend choice (see learner.h).
#include <stdexcept>
#include <string>

#include "train/cpu_learner.h"
#include "train/learner.h"
#ifdef DQN_WITH_CUDA
#include "cuda/cuda_learner.h"
#include "cuda/device.h"
#endif

namespace dqn {

void CheckTensorSizes(const LearnerTensors& t, int64_t n) {
  const std::pair<const char*, size_t> sizes[] = {
      {"online", t.online.size()}, {"target", t.target.size()}, {"adam_m", t.adam_m.size()}, {"adam_v", t.adam_v.size()}};
  for (const auto& [name, size] : sizes)
    if (static_cast<int64_t>(size) != n)
      throw std::invalid_argument(std::string("learner tensor ") + name + " has " + std::to_string(size) +
                                  " floats, the network has " + std::to_string(n));
}

SampleBuffers::SampleBuffers(int64_t batch, int state_dim) {
  const auto b = static_cast<size_t>(batch), d = static_cast<size_t>(state_dim);
  indices.resize(b);
  actions.resize(b);
  generations.resize(b);
  weights.resize(b);
  states.resize(b * d);
  rewards.resize(b);
  next_states.resize(b * d);
  discounts.resize(b);
  dones.resize(b);
}

SampleBatch SampleBuffers::view() {
  return {indices.data(), generations.data(), weights.data(), states.data(), actions.data(),
          rewards.data(), next_states.data(), dones.data(),   discounts.data()};
}

std::unique_ptr<Learner> MakeLearner(Compute compute, const NetConfig& net, const LearnerConfig& config, uint64_t seed,
                                     std::vector<FeatureGroup> causal_features) {
  if (compute == Compute::kCpu) return std::make_unique<CpuLearner>(net, config, seed, std::move(causal_features));
#ifdef DQN_WITH_CUDA
  if (const cuda::DeviceProbe probe = cuda::ProbeDevice(); !probe.available)
    throw std::runtime_error("backend 'cuda' needs a usable GPU: " + probe.reason);
  return std::make_unique<cuda::CudaLearner>(net, config, seed, std::move(causal_features));
#else
  throw std::runtime_error("backend 'cuda' needs a usable GPU: built without the CUDA toolkit");
#endif
}

}  // namespace dqn
