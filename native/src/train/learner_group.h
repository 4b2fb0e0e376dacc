// Learners of one shape trained in lockstep, one per seed (issue 27: several seeds on one GPU).
// On the CUDA backend a group is a CudaLearnerGroup: one launch of the step kernel advances
// every member. On the CPU backend the members train one after another in the same call, which
// is what a seed trained alone does, step for step: the group changes the order of the work,
// never a member's arithmetic. TrainerGroup (train/trainer_group.*) drives the members' trainers.
//
// Usage:
//   std::shared_ptr<LearnerGroup> g = MakeLearnerGroup(Compute::kCuda, net, config, {1, 2, 3}, features);
//   std::shared_ptr<Learner> m = MemberOf(g, 1);        // keeps the group alive
//   g->train(replays, outs, active, flags);             // one launch for all members
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "train/learner.h"

namespace dqn {

class LearnerGroup {
 public:
  virtual ~LearnerGroup() = default;
  virtual int size() const = 0;
  /// Member s (0 <= s < size()): a Learner for acting, inserts, checkpoints and its own scalars.
  virtual Learner& member(int s) = 0;
  /// One training launch for the members: steps_per_launch steps of member s on replays[s] with
  /// its scalars into *outs[s], for every s with active[s] (CUDA: the inactive members are
  /// stepped too, by the same launch; nothing reads them again). flags[s] receives what
  /// Learner::train returns for member s (0 for an inactive member on the CPU). Every vector has
  /// size() entries. @throws std::invalid_argument for a wrong count or, on CUDA, a member
  /// whose replay is not on the GPU; CudaError / DeviceLost when a launch fails.
  virtual void train(const std::vector<Replay*>& replays, const std::vector<ScalarBlock*>& outs,
                     const std::vector<bool>& active, std::vector<uint32_t>& flags) = 0;
};

/// Member s of `group` as a shared Learner that keeps the group alive.
std::shared_ptr<Learner> MemberOf(const std::shared_ptr<LearnerGroup>& group, int s);

/// A group of seeds.size() learners (member s initialised as MakeLearner(compute, net, config,
/// seeds[s], features) would be). @throws std::invalid_argument for a bad count (CUDA: 1 to 16;
/// CPU: 1 to 100), shape or option; std::runtime_error when CUDA is asked without a usable GPU;
/// CudaError when the members do not fit on the GPU together ("out of memory: N learners need
/// ...").
std::shared_ptr<LearnerGroup> MakeLearnerGroup(Compute compute, const NetConfig& net, const LearnerConfig& config,
                                               const std::vector<uint64_t>& seeds, const std::vector<FeatureGroup>& causal_features);

}  // namespace dqn
