// A seed group of trainers (issue 27 item 4): N trainers of one config that differ only in their
// seed, whose learners form one LearnerGroup, trained in lockstep by one thread: each gradient
// step, every member collects until its step is due, then one LearnerGroup::train call (on
// CUDA: one launch) trains them all. A member's arithmetic and random streams are its own, so it
// trains as the same seed alone does (bit for bit on the CPU, and on CUDA with
// schedule.deterministic; tests in native/test/trainer-group.test.ts). A member that halts (NaN)
// or fails leaves the group's later runs; the others go on.
//
// Usage:
//   TrainerGroup g(config, {1, 2, 3, 4});      // config.compute: kCpu or kCuda
//   std::vector<MemberRun> r = g.run(5000);    // r[s].stats, r[s].error
//   g.member(s).evaluate(100);                 // each member is a Trainer for everything else
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "train/learner_group.h"
#include "train/trainer.h"

namespace dqn {

/// What one member got from TrainerGroup::run.
struct MemberRun {
  RunStats stats;
  std::string error;  ///< why the member halted or failed in this call ("" when it did not)
};

class TrainerGroup {
 public:
  /// Members s = 0 .. seeds.size() - 1: Trainer(config with seed seeds[s]), their learners one
  /// LearnerGroup on config.compute. @throws what Trainer and MakeLearnerGroup throw (for
  /// example CudaError "out of memory: N learners need ..." when the group does not fit).
  TrainerGroup(const TrainerConfig& config, const std::vector<uint64_t>& seeds);

  int size() const { return static_cast<int>(members_.size()); }
  Trainer& member(int s) { return *members_.at(static_cast<size_t>(s)); }
  std::shared_ptr<Trainer> shared_member(int s) { return members_.at(static_cast<size_t>(s)); }
  /// Leaves member s out of later runs (its trainer goes on working alone for evaluations and
  /// checkpoints). Thread-safe: a run in progress leaves it out from its next step.
  void retire(int s) { retired_.at(static_cast<size_t>(s)).store(true, std::memory_order_relaxed); }

  /// `steps` gradient steps of every active member in lockstep (Trainer::run's contract per
  /// member: the same collection, the same epoch-boundary finish). A member's own halt or
  /// failure is caught into its MemberRun::error and retires it. @throws what a group launch
  /// throws (CudaError, DeviceLost): that concerns every member.
  std::vector<MemberRun> run(int64_t steps);
  /// Makes a running run() return after the current step, for every member (thread-safe).
  void request_stop() noexcept;
  void clear_stop() noexcept;

 private:
  std::shared_ptr<LearnerGroup> learners_;
  std::vector<std::shared_ptr<Trainer>> members_;
  /// Members the run thread still trains (it alone reads and writes them): false once a member
  /// halted, failed or was retired.
  std::vector<bool> active_;
  std::vector<std::atomic<bool>> retired_;  ///< retire() requests, from any thread
};

}  // namespace dqn
