// Several CUDA learners stepped by one launch (see cuda_learner_group.h).
#include "cuda/cuda_learner_group.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda/carver.h"
#include "cuda/cuda_replay.h"
#include "cuda/graph.h"
#include "cuda/status.h"
#include "cuda/sync.h"

namespace dqn::cuda {

/// The members' device blocks: one cudaMalloc of `members` equal blocks, sized by the first
/// member's request; member s gets base + s * stride.
class CudaLearnerGroup::Arena final : public DeviceBlockSource {
 public:
  explicit Arena(int members) : members_(members) {}
  ~Arena() override {
    if (base_) cudaFree(base_);
  }
  void* take(size_t bytes) override {
    if (!base_) {
      stride_ = (bytes + kCarveAlign - 1) / kCarveAlign * kCarveAlign;
      size_t free_bytes = 0, total_bytes = 0;
      Check(cudaMemGetInfo(&free_bytes, &total_bytes), "reading free device memory");
      const size_t all = stride_ * static_cast<size_t>(members_);
      if (const cudaError_t e = cudaMalloc(&base_, all); e != cudaSuccess) {
        cudaGetLastError();
        base_ = nullptr;
        throw CudaError(Status::kErrorOutOfMemory, e,
                        "out of memory: " + std::to_string(members_) + " learners need " + GiB(all) + " GiB, " +
                            GiB(free_bytes) + " GiB free");
      }
    }
    if (bytes > stride_ || taken_ >= members_)
      throw CudaError(Status::kErrorInvalidValue, cudaErrorInvalidValue,
                      "a seed group's members must have one shape (member " + std::to_string(taken_) + " asked " +
                          std::to_string(bytes) + " bytes, the group's stride is " + std::to_string(stride_) + ")");
    return static_cast<char*>(base_) + stride_ * static_cast<size_t>(taken_++);
  }
  int64_t stride() const { return static_cast<int64_t>(stride_); }

 private:
  int members_;
  int taken_ = 0;
  void* base_ = nullptr;
  size_t stride_ = 0;
};

CudaLearnerGroup::CudaLearnerGroup(const NetConfig& net, const LearnerConfig& config, const std::vector<uint64_t>& seeds,
                                   const std::vector<FeatureGroup>& causal_features)
    : config_(config) {
  const int n = static_cast<int>(seeds.size());
  if (n < 1 || n > detail::kMaxGroup)
    throw std::invalid_argument("a seed group has 1 to " + std::to_string(detail::kMaxGroup) + " members, got " +
                                std::to_string(seeds.size()));
  arena_ = std::make_unique<Arena>(n);
  try {
    for (uint64_t seed : seeds) members_.push_back(std::make_unique<CudaLearner>(net, config, seed, causal_features, arena_.get()));
    if (n > members_[0]->core_blocks_)
      throw std::invalid_argument("a seed group of " + std::to_string(n) + " needs as many resident blocks; this GPU runs " +
                                  std::to_string(members_[0]->core_blocks_));
    Check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating the group's stream");
    Check(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming), "creating the group's events");
    join_.resize(static_cast<size_t>(n));
    for (cudaEvent_t& e : join_) Check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "creating the group's events");
  } catch (...) {
    release();
    throw;
  }
}

CudaLearnerGroup::~CudaLearnerGroup() { release(); }

void CudaLearnerGroup::release() {
  if (stream_) SynchronizeNoThrow(stream_);
  DestroyGraph(&exec_);
  members_.clear();  // their blocks are the arena's: the members go first
  arena_.reset();
  if (fork_) cudaEventDestroy(fork_), fork_ = nullptr;
  for (cudaEvent_t e : join_)
    if (e) cudaEventDestroy(e);
  join_.clear();
  if (stream_) cudaStreamDestroy(stream_), stream_ = nullptr;
}

template <typename Op>
void CudaLearnerGroup::fan_out(const std::vector<CudaReplay*>& replays, Op op) {
  Check(cudaEventRecord(fork_, stream_), "forking the group's stream");
  for (size_t s = 0; s < replays.size(); ++s) {
    cudaStream_t r = replays[s]->stream();
    Check(cudaStreamWaitEvent(r, fork_, 0), "forking the group's stream");
    op(s);
    Check(cudaEventRecord(join_[s], r), "joining the group's stream");
    Check(cudaStreamWaitEvent(stream_, join_[s], 0), "joining the group's stream");
  }
}

detail::CoreProgram CudaLearnerGroup::group_program(const std::vector<CudaReplay*>& replays) const {
  detail::CoreProgram pr = members_[0]->step_program(&replays[0]->view(), nullptr);
  pr.group.count = size();
  pr.group.stride = arena_->stride();
  for (int s = 0; s < size(); ++s) pr.group.per[s] = detail::MakePerView(replays[static_cast<size_t>(s)]->view());
  return pr;
}

void CudaLearnerGroup::queue(const std::vector<CudaReplay*>& replays) {
  CudaLearner& lead = *members_[0];
  const detail::CoreProgram pr = group_program(replays);
  for (int k = 0; k < config_.steps_per_launch; ++k) {
    fan_out(replays, [&](size_t s) { members_[s]->sample_into(*replays[s]); });
    lead.launch_core(pr, stream_, "launching the seed group's learner step");
    fan_out(replays, [&](size_t s) { members_[s]->update_from(*replays[s]); });
  }
  for (auto& m : members_) m->queue_scalars(stream_);
}

void CudaLearnerGroup::check_replays(const std::vector<CudaReplay*>& replays) const {
  if (replays.size() != members_.size())
    throw std::invalid_argument("the seed group has " + std::to_string(size()) + " members but was given " +
                                std::to_string(replays.size()) + " replays");
  for (size_t s = 0; s < replays.size(); ++s) {
    if (!replays[s]) throw std::invalid_argument("member " + std::to_string(s) + " has no GPU replay");
    if (std::count(replays.begin(), replays.end(), replays[s]) > 1)
      throw std::invalid_argument("members of a seed group need a replay each (member " + std::to_string(s) + "'s is shared)");
  }
}

// Between steps each member's inserts queue on its replay's stream, which a graph launched on the
// group's stream does not order: the step waits for them, and later inserts wait for it.
void CudaLearnerGroup::order_inserts_before(const std::vector<CudaReplay*>& replays) {
  for (size_t s = 0; s < replays.size(); ++s) {
    Check(cudaEventRecord(join_[s], replays[s]->stream()), "ordering the seed group's step after the inserts");
    Check(cudaStreamWaitEvent(stream_, join_[s], 0), "ordering the seed group's step after the inserts");
  }
}

void CudaLearnerGroup::order_inserts_after(const std::vector<CudaReplay*>& replays) {
  Check(cudaEventRecord(fork_, stream_), "ordering the inserts after the seed group's step");
  for (CudaReplay* r : replays) Check(cudaStreamWaitEvent(r->stream(), fork_, 0), "ordering the inserts after the seed group's step");
}

void CudaLearnerGroup::train(const std::vector<CudaReplay*>& replays) {
  CudaLearner::guarded([&] {
    check_replays(replays);
    // The first launch runs eagerly (a failing kernel shows outside any capture); rank-based
    // sampling re-sorts on a host schedule, so it is never captured.
    const bool graph = launches_ > 0 && replays[0]->view().sampler != detail::SamplerKind::kRank;
    if (exec_replays_ != replays) DestroyGraph(&exec_);
    exec_replays_ = replays;
    order_inserts_before(replays);
    RunGraph(stream_, graph, &exec_, "launching the seed group's step graph", [&] { queue(replays); });
    order_inserts_after(replays);
    ++launches_;
    for (auto& m : members_) {
      m->work_stream_ = stream_;
      ++m->launches_;
      m->steps_ += config_.steps_per_launch;
      m->after_launch(stream_);
    }
  });
}

void CudaLearnerGroup::profile_step(const std::vector<CudaReplay*>& replays, double* phases_us, std::vector<PhaseProfile>* per_phase) {
  CudaLearner::guarded([&] {
    check_replays(replays);
    if (config_.steps_per_launch != 1)
      throw std::invalid_argument("profiling a seed group's step needs steps_per_launch 1, got " + std::to_string(config_.steps_per_launch));
    order_inserts_before(replays);
    detail::CoreProgram pr = group_program(replays);
    members_[0]->profile_launch(
        stream_, pr, [&] { fan_out(replays, [&](size_t s) { members_[s]->sample_into(*replays[s]); }); },
        [&] { fan_out(replays, [&](size_t s) { members_[s]->update_from(*replays[s]); }); }, phases_us, per_phase);
    order_inserts_after(replays);
    for (auto& m : members_) m->work_stream_ = stream_, ++m->steps_;
  });
}

uint32_t CudaLearnerGroup::finish() {
  return CudaLearner::guarded([&] {
    Synchronize(stream_, "finishing the seed group's steps");
    uint32_t flags = 0;
    for (auto& m : members_) flags |= m->host_block()->nan_flags;
    return flags;
  });
}

}  // namespace dqn::cuda
