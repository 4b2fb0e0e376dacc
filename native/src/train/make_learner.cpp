// The learner interface's shared pieces and the backend choice (see learner.h).
#include <stdexcept>
#include <string>
#include <vector>

#include "model/heads.h"
#include "train/cpu_learner.h"
#include "train/learner.h"
#include "train/learner_group.h"
#ifdef DQN_WITH_CUDA
#include "cuda/cuda_learner.h"
#include "cuda/cuda_learner_group.h"
#include "cuda/device.h"
#endif

namespace dqn {

const LearnerConfig& ValidateLearner(const NetConfig& net, const LearnerConfig& c, const std::vector<FeatureGroup>& causal_features) {
  if (c.batch_size < 1) throw std::invalid_argument("batch_size must be >= 1, got " + std::to_string(c.batch_size));
  if (!(c.adam.lr > 0)) throw std::invalid_argument("lr must be > 0, got " + std::to_string(c.adam.lr));
  if (!(c.huber_delta > 0)) throw std::invalid_argument("huber_delta must be > 0, got " + std::to_string(c.huber_delta));
  if (c.target_update == TargetUpdate::kHard && c.target_interval < 1)
    throw std::invalid_argument("target interval must be >= 1, got " + std::to_string(c.target_interval));
  if (c.target_update == TargetUpdate::kPolyak && !(c.tau > 0 && c.tau <= 1))
    throw std::invalid_argument("tau must be in (0, 1], got " + std::to_string(c.tau));
  if (c.q_stats_interval < 1 || c.causal_interval < 1 || c.act_rows < 1)
    throw std::invalid_argument("q_stats_interval, causal_interval and act_rows must be >= 1");
  for (const FeatureGroup& g : causal_features)
    for (const int f : g.indices)
      if (f < 0 || f >= net.state_dim)
        throw std::invalid_argument("causal feature '" + g.name + "' index out of range: " + std::to_string(f));
  return c;
}

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

namespace {

/// The settings of `h` that ask for more than the plain Q head ("heads.main = c51, heads.cql.alpha = 0.1").
std::string HeadsBeyondPlainQ(const HeadsConfig& h) {
  std::vector<std::string> on;
  if (h.main != MainHead::kQ) on.push_back(std::string("heads.main = ") + (h.main == MainHead::kC51 ? "c51" : "iqn"));
  if (h.iqn_auxiliary) on.push_back("heads.iqn.auxiliary = true");
  if (h.ensemble()) on.push_back("heads.ensemble.heads = " + std::to_string(h.ensemble_heads));
  if (h.cql()) on.push_back("heads.cql.alpha = " + FieldText(h.cql_alpha));
  if (h.spectral()) on.push_back("heads.spectral.sigma_max = " + FieldText(h.sigma_max));
  std::string out;
  for (const std::string& x : on) out += (out.empty() ? "" : ", ") + x;
  return out;
}

/// What the CUDA backend needs before a learner is built: the plain Q head (the guard behind
/// main/trainer/backend-choice.ts, on any machine) and a usable GPU.
void CheckCudaCanTrain(const NetConfig& net) {
  if (!net.heads.plain_q())
    throw std::invalid_argument("backend 'cuda' trains only the plain Q head, not these heads (" + HeadsBeyondPlainQ(net.heads) +
                                "): use backend 'cpu' or 'auto'");
#ifdef DQN_WITH_CUDA
  if (const cuda::DeviceProbe probe = cuda::ProbeDevice(); !probe.available)
    throw std::runtime_error("backend 'cuda' needs a usable GPU: " + probe.reason);
#else
  throw std::runtime_error("backend 'cuda' needs a usable GPU: built without the CUDA toolkit");
#endif
}

}  // namespace

std::unique_ptr<Learner> MakeLearner(Compute compute, const NetConfig& net, const LearnerConfig& config, uint64_t seed,
                                     std::vector<FeatureGroup> causal_features) {
  if (compute == Compute::kCpu) return std::make_unique<CpuLearner>(net, config, seed, std::move(causal_features));
  CheckCudaCanTrain(net);
#ifdef DQN_WITH_CUDA
  return std::make_unique<cuda::CudaLearner>(net, config, seed, std::move(causal_features));
#else
  return nullptr;  // not reached: CheckCudaCanTrain threw
#endif
}

namespace {

/// @throws std::invalid_argument unless every vector of a LearnerGroup::train call has one entry per member.
void CheckGroupCall(const LearnerGroup& g, const std::vector<Replay*>& replays, const std::vector<ScalarBlock*>& outs,
                    const std::vector<bool>& active) {
  const auto n = static_cast<size_t>(g.size());
  if (replays.size() != n || outs.size() != n || active.size() != n)
    throw std::invalid_argument("a seed group of " + std::to_string(n) + " members was given " + std::to_string(replays.size()) +
                                " replays, " + std::to_string(outs.size()) + " scalar blocks and " + std::to_string(active.size()) +
                                " activity flags");
}

/// The CPU group: the members train one after another in each call.
class CpuLearnerGroup final : public LearnerGroup {
 public:
  CpuLearnerGroup(const NetConfig& net, const LearnerConfig& config, const std::vector<uint64_t>& seeds,
                  const std::vector<FeatureGroup>& features) {
    for (uint64_t seed : seeds) members_.push_back(std::make_unique<CpuLearner>(net, config, seed, features));
  }
  int size() const override { return static_cast<int>(members_.size()); }
  Learner& member(int s) override { return *members_.at(static_cast<size_t>(s)); }
  void train(const std::vector<Replay*>& replays, const std::vector<ScalarBlock*>& outs, const std::vector<bool>& active,
             std::vector<uint32_t>& flags) override {
    CheckGroupCall(*this, replays, outs, active);
    flags.assign(members_.size(), 0);
    for (size_t s = 0; s < members_.size(); ++s)
      if (active[s]) flags[s] = members_[s]->train(*replays[s], *outs[s]);
  }

 private:
  std::vector<std::unique_ptr<CpuLearner>> members_;
};

#ifdef DQN_WITH_CUDA
/// The CUDA group: CudaLearnerGroup, one launch for every member.
class CudaGroup final : public LearnerGroup {
 public:
  CudaGroup(const NetConfig& net, const LearnerConfig& config, const std::vector<uint64_t>& seeds,
            const std::vector<FeatureGroup>& features)
      : group_(net, config, seeds, features) {}
  int size() const override { return group_.size(); }
  Learner& member(int s) override { return group_.member(s); }
  void train(const std::vector<Replay*>& replays, const std::vector<ScalarBlock*>& outs, const std::vector<bool>& active,
             std::vector<uint32_t>& flags) override {
    CheckGroupCall(*this, replays, outs, active);
    std::vector<cuda::CudaReplay*> gpu;
    for (size_t s = 0; s < replays.size(); ++s) {
      gpu.push_back(cuda::CudaLearner::device_replay(*replays[s]));
      if (!gpu.back())
        throw std::invalid_argument("a seed group on the GPU needs every member's replay on the GPU (member " + std::to_string(s) +
                                    "'s is on the CPU)");
    }
    group_.train(gpu);
    flags.assign(gpu.size(), 0);
    for (size_t s = 0; s < gpu.size(); ++s) {
      cuda::CudaLearner& m = group_.member(static_cast<int>(s));
      if (outs[s] != m.host_block()) CopyLearnerScalars(*m.host_block(), *outs[s]);
      flags[s] = active[s] ? m.host_block()->nan_flags : 0;
    }
  }

 private:
  cuda::CudaLearnerGroup group_;
};
#endif

}  // namespace

std::shared_ptr<Learner> MemberOf(const std::shared_ptr<LearnerGroup>& group, int s) {
  return std::shared_ptr<Learner>(group, &group->member(s));
}

std::shared_ptr<LearnerGroup> MakeLearnerGroup(Compute compute, const NetConfig& net, const LearnerConfig& config,
                                               const std::vector<uint64_t>& seeds, const std::vector<FeatureGroup>& causal_features) {
  constexpr size_t kMaxCpuGroup = 100;
  if (compute == Compute::kCpu) {
    if (seeds.empty() || seeds.size() > kMaxCpuGroup)
      throw std::invalid_argument("a seed group has 1 to " + std::to_string(kMaxCpuGroup) + " members, got " + std::to_string(seeds.size()));
    return std::make_shared<CpuLearnerGroup>(net, config, seeds, causal_features);
  }
  CheckCudaCanTrain(net);
#ifdef DQN_WITH_CUDA
  return std::make_shared<CudaGroup>(net, config, seeds, causal_features);
#else
  return nullptr;  // not reached: CheckCudaCanTrain threw
#endif
}

}  // namespace dqn
