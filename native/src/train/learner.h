// The DQN learner interface (DESIGN section 4): one interface, two implementations, the CPU
// reference (train/cpu_learner.*) and the CUDA learner (cuda/cuda_learner.*), chosen by the
// compute backend. The trainer loop, the checkpoint format and the scalar block are the same
// for both; parameters travel between them as host copies in one flat layout (LearnerTensors),
// so a checkpoint written by one backend loads on the other.
//
// Usage:
//   std::unique_ptr<Learner> l = MakeLearner(Compute::kCuda, net, config, seed, features);
//   l->insert(*replay, transitions);          // CUDA: pinned staging and an async copy
//   uint32_t flags = l->train(*replay, out);  // CUDA: one graph launch, no host sync
//   flags |= l->finish(out);                  // epoch boundary: the one sync, exact scalars
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "env/vec_env.h"
#include "model/param_layout.h"
#include "replay/replay.h"
#include "train/learner_config.h"
#include "train/scalar_block.h"

namespace dqn {

/// Host copies of the learner's flat buffers, each layout().size() floats, and its spectral
/// normalisation's power-iteration vectors (NetworkSpectralNorm::vectors; empty without spectral
/// normalisation, and always with the CUDA learner, which trains only the plain Q head).
struct LearnerTensors {
  std::vector<float> online, target, adam_m, adam_v;
  std::vector<float> spectral_u;
};

/// Checks what both learners need of their options and causal features (batch size, lr, Huber
/// delta, target update, probe intervals, feature indices inside the state).
/// Returns `config`. @throws std::invalid_argument naming the first bad value.
const LearnerConfig& ValidateLearner(const NetConfig& net, const LearnerConfig& config, const std::vector<FeatureGroup>& causal_features);

/// @throws std::invalid_argument naming the first buffer whose size is not n floats.
void CheckTensorSizes(const LearnerTensors& t, int64_t n);

/// Buffers of one sampled batch on the host.
struct SampleBuffers {
  explicit SampleBuffers(int64_t batch = 0, int state_dim = 0);
  std::vector<int32_t> indices, actions;
  std::vector<uint32_t> generations;
  std::vector<float> weights, states, rewards, next_states, discounts;
  std::vector<uint8_t> dones;
  SampleBatch view();  ///< pointers into the vectors, for Replay::sample
};

/// The learner: networks, optimizer state and the training step.
class Learner {
 public:
  virtual ~Learner() = default;
  /// One training step (or steps_per_launch steps on CUDA) on batches drawn from `replay`:
  /// sample, the heads' losses (Double DQN targets), backward, clip, Adam, target update, priority update, and the
  /// step's scalars (the learner's range of the block, PER health included) into `out`.
  /// Returns the NanFlag bits seen: the CPU's for this step, CUDA's as last copied to the pinned
  /// block (they may lag the queued steps; finish() is exact). A flagged step changes no
  /// parameter, nor does any later one. @throws std::runtime_error (CUDA: a CudaError) on failure.
  virtual uint32_t train(Replay& replay, ScalarBlock& out) = 0;
  /// Waits for every queued step (CUDA: the epoch boundary's one synchronization), publishes the
  /// exact scalars into `out` and returns the NanFlag bits.
  virtual uint32_t finish(ScalarBlock& out) = 0;
  /// Appends collected transitions to `replay` (CUDA with a GPU replay: through pinned staging
  /// and an asynchronous copy on the training stream, no host sync).
  virtual void insert(Replay& replay, const TransitionBatch& batch) = 0;
  /// Greedy actions argmax_a Q_online(s, a) (first index on ties) for states [rows x D]. CUDA:
  /// from the host's acting copy of the online weights (refreshed asynchronously).
  virtual void greedy(const float* states, int64_t rows, int32_t* actions) = 0;
  /// Makes greedy() use the current weights (CUDA: synchronizes; evaluation calls it).
  virtual void refresh_actor() {}
  virtual int64_t steps() const = 0;  ///< gradient steps done or queued (Adam's t)
  /// Sets the step counter (resume); also lifts a NaN halt (the restored weights are healthy).
  virtual void set_steps(int64_t steps) = 0;
  virtual const ParamLayout& layout() const = 0;
  /// Host copies of every buffer (CUDA: synchronizes). Resizes the vectors.
  virtual void save_params(LearnerTensors& out) = 0;
  /// Replaces every buffer. @throws std::invalid_argument when a vector's size is not layout().size()
  /// (or spectral_u's not the learner's own).
  virtual void load_params(const LearnerTensors& in) = 0;
  virtual std::string backend() const = 0;  ///< "cpu" or "cuda"
  /// The pinned host block the learner writes its scalars into (CUDA), or null (CPU: `out`).
  virtual ScalarBlock* host_block() { return nullptr; }
  /// Test-only fault injection (DESIGN section 5: every halt can be forced in a test): at
  /// gradient step `at_step`, one element of the tensor named by `flag` (kNanQOnline,
  /// kNanQTarget, kNanLoss, kNanGradients or kNanWeights) is set to NaN just before it is checked.
  virtual void inject_nan(uint32_t flag, int64_t at_step) = 0;
};

/// A learner's device became unusable (a sticky CUDA error: the context is lost until the
/// process ends). The message starts with "CUDA context lost"; the trainer host continues the
/// run on the CPU backend from the last checkpoint (DESIGN section 5).
class DeviceLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Compute { kCpu, kCuda };

/// Builds the learner for `compute`. @throws std::invalid_argument for a bad shape or option, and
/// for CUDA when net.heads is not the plain Q head (HeadsConfig::plain_q()); CUDA: a
/// cuda::CudaError (std::runtime_error) when the GPU cannot hold or run it.
std::unique_ptr<Learner> MakeLearner(Compute compute, const NetConfig& net, const LearnerConfig& config, uint64_t seed,
                                     std::vector<FeatureGroup> causal_features);

}  // namespace dqn
