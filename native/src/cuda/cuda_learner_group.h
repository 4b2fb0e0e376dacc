// Several CUDA learners (seeds) trained at once on one GPU (DESIGN section 4; issue 27): the
// members have one shape and one set of options and differ in their seeds (weights, replay,
// random streams). Their device blocks are one allocation, a fixed stride apart, so one launch
// of the persistent learner kernel advances all of them (kernels/learner_launch.cuh, Group):
// at batch 256 one learner's phase has 32 output tiles for 132 multiprocessors, N members have
// 32 N. A step of the group is one CUDA graph: the members' replay samples (each on its replay's
// stream, side by side), one learner launch, the members' priority updates (side by side) and
// the members' scalar copies. A member trains bit for bit as it would alone (the same tiles and
// reductions in the same order), which learner_cuda_tool's group check verifies.
//
// Usage:
//   CudaLearnerGroup g(net, config, {1, 2, 3, 4}, features);   // throws CudaError (out of memory, ...)
//   g.member(s).insert(*replays[s], transitions);                // each member as a Learner
//   g.train(replays);   // queued; member s's scalars arrive in g.member(s).host_block()
//   g.finish();         // waits
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/cuda_learner.h"

namespace dqn::cuda {

class CudaLearnerGroup {
 public:
  /// seeds.size() members (1 .. detail::kMaxGroup), member s initialised as CudaLearner(net,
  /// config, seeds[s], features) would be. @throws std::invalid_argument for a bad size, shape
  /// or option; CudaError when the members' blocks do not fit ("out of memory: N learners need
  /// X GiB, Y GiB free") or a CUDA call fails.
  CudaLearnerGroup(const NetConfig& net, const LearnerConfig& config, const std::vector<uint64_t>& seeds,
                   const std::vector<FeatureGroup>& causal_features);
  ~CudaLearnerGroup();
  CudaLearnerGroup(const CudaLearnerGroup&) = delete;
  CudaLearnerGroup& operator=(const CudaLearnerGroup&) = delete;

  int size() const { return static_cast<int>(members_.size()); }
  /// Member s (0 <= s < size()) as a Learner: acting, inserts, checkpoints, scalars. Its own
  /// train() still works (alone); the group's train() steps every member together.
  CudaLearner& member(int s) { return *members_.at(static_cast<size_t>(s)); }

  /// config.steps_per_launch training steps of every member, member s sampling and updating
  /// replays[s] (a GPU replay each, replays.size() == size(), none shared). The first call runs
  /// eagerly, later ones replay one captured graph (rebuilt when the replays change). Queued:
  /// never waits for the GPU. Member s's scalars land in member(s).host_block().
  /// @throws std::invalid_argument for a wrong count or a shared replay; CudaError when a
  /// launch fails (DeviceLost when the context is lost).
  void train(const std::vector<CudaReplay*>& replays);
  /// Waits for every queued step; returns the OR of the members' NaN flags.
  uint32_t finish();
  /// One eager step of every member (as train() with steps_per_launch 1), timed as
  /// CudaLearner::profile_step times one learner's: CUDA events around the members' samples, the
  /// one learner launch and the members' updates, the kernel's phases from the lead member's
  /// stamps. Adds each part's µs to phases_us[7] (sample, forward, loss, backward, optimizer,
  /// update, launch and drain) and each phase's to per_phase when given. Synchronizes
  /// (profiling only). @throws std::invalid_argument as train() does, or when steps_per_launch
  /// is not 1; CudaError when a launch fails.
  void profile_step(const std::vector<CudaReplay*>& replays, double* phases_us, std::vector<PhaseProfile>* per_phase = nullptr);

 private:
  class Arena;
  void release();  // frees every CUDA resource (idempotent)
  void queue(const std::vector<CudaReplay*>& replays);
  /// @throws std::invalid_argument unless replays holds one GPU replay per member, none shared.
  void check_replays(const std::vector<CudaReplay*>& replays) const;
  /// The lead member's step program for the whole group.
  detail::CoreProgram group_program(const std::vector<CudaReplay*>& replays) const;
  /// Orders the group's next step after the members' queued inserts (before), or their next
  /// inserts after the group's step (after).
  void order_inserts_before(const std::vector<CudaReplay*>& replays);
  void order_inserts_after(const std::vector<CudaReplay*>& replays);
  /// Runs op(s) for every member s, whose launches go to its replay's stream: the members side
  /// by side, after what is queued on the group's stream so far, which then waits for them all.
  template <typename Op>
  void fan_out(const std::vector<CudaReplay*>& replays, Op op);

  std::unique_ptr<Arena> arena_;
  std::vector<std::unique_ptr<CudaLearner>> members_;
  LearnerConfig config_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t fork_ = nullptr;
  std::vector<cudaEvent_t> join_;
  cudaGraphExec_t exec_ = nullptr;
  std::vector<CudaReplay*> exec_replays_;  // the replays exec_ was captured against
  int64_t launches_ = 0;
};

}  // namespace dqn::cuda
