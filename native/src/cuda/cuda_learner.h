// The CUDA learner (DESIGN section 4): the Learner interface with every tensor on the GPU and a
// training step that the host only launches. Parameters, gradients, target parameters and Adam
// moments live in flat device buffers of the CPU layout (ParamLayout), every tensor pointer
// computed once here. One step is one CUDA graph: the GPU replay's sample, one launch of the
// persistent learner kernel (its phases listed in kernels/learner_launch.cuh), the replay's
// priority update and an asynchronous
// copy of the device scalar block into a pinned host block; the causal probe is a graph of its
// own, launched on schedule. Acting on the host uses a pinned copy of the online weights that
// an asynchronous copy refreshes every actor_sync_interval steps (an event query, never a wait).
// With a CPU replay (its GPU allocation failed, or a replay kernel failed) the batch is staged
// through pinned memory and the step waits for its TD errors: that path synchronizes per step.
//
// Usage:
//   dqn::cuda::CudaLearner l(net, config, seed, features);   // throws CudaError (out of memory, ...)
//   l.insert(replay, transitions);
//   l.train(replay, scalars);   // queued; scalars arrive in l.host_block()
//   l.finish(scalars);          // the epoch boundary's sync
// A learner that trained on a GPU replay queues its work on the replay's stream and waits for it
// when destroyed: destroy it before that replay (the Trainer's members are declared in that order).
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cuda/status.h"
#include "kernels/learner_launch.cuh"
#include "model/q_network.h"
#include "train/learner.h"

namespace dqn::cuda {

class CudaReplay;
class Carver;
class CudaLearnerGroup;

/// Where a CudaLearner's device block comes from when it is not its own cudaMalloc: a seed
/// group's one allocation (CudaLearnerGroup), which hands its members equal blocks a fixed
/// stride apart. take() returns `bytes` of device memory that outlive the learner, or throws
/// CudaError (out of memory, or bytes unlike the group's other members).
class DeviceBlockSource {
 public:
  virtual ~DeviceBlockSource() = default;
  virtual void* take(size_t bytes) = 0;
};

/// Where one phase of the learner kernel spent its time in a profiled step (µs, global timer;
/// profile_step adds each step's values): total, from block 0's start of the phase to its start
/// of the next; work_max and work_mean, over the blocks, from a block's start of the phase to
/// its arrival at the barrier after it; barrier, from the last block's arrival to the first
/// block's release. The busiest block's work, when it had a tile, in parts (tile_steps counts
/// the steps these sums cover): from the phase's start to its first tile's (lead), to the
/// tile's first K chunk staged (the operands' first round trip), to the end of its K loop, to
/// its epilogue stored, and from there to the barrier (more tiles, a side job, the block's
/// last __syncthreads).
struct PhaseProfile {
  double total_us = 0, work_max_us = 0, work_mean_us = 0, barrier_us = 0;
  int tile_steps = 0;
  double tile_lead_us = 0, tile_first_chunk_us = 0, tile_k_loop_us = 0, tile_epilogue_us = 0, tile_tail_us = 0;
};

class CudaLearner final : public Learner {
 public:
  /// Initializes the weights exactly as the CPU learner does for `seed` (InitParams on the host,
  /// then copied). @throws std::invalid_argument for a bad shape or option, CudaError when the
  /// buffers do not fit ("out of memory, N GiB asked, M GiB free") or a CUDA call fails.
  /// `blocks` (or null: the learner allocates its own) provides the device block.
  CudaLearner(const NetConfig& net, const LearnerConfig& config, uint64_t seed, std::vector<FeatureGroup> causal_features,
              DeviceBlockSource* blocks = nullptr);
  ~CudaLearner() override;
  CudaLearner(const CudaLearner&) = delete;
  CudaLearner& operator=(const CudaLearner&) = delete;

  uint32_t train(Replay& replay, ScalarBlock& out) override;
  uint32_t finish(ScalarBlock& out) override;
  void insert(Replay& replay, const TransitionBatch& batch) override;
  void greedy(const float* states, int64_t rows, int32_t* actions) override;
  void refresh_actor() override;
  int64_t steps() const override { return steps_; }
  void set_steps(int64_t steps) override;
  const ParamLayout& layout() const override { return layout_; }
  void save_params(LearnerTensors& out) override;
  void load_params(const LearnerTensors& in) override;
  std::string backend() const override { return "cuda"; }
  ScalarBlock* host_block() override { return pinned_scalars_; }
  void inject_nan(uint32_t flag, int64_t at_step) override;

  /// Device buffers of an acting forward pass over `rows` observations (the GPU collector).
  struct ActForward {
    const float* x = nullptr;   ///< [rows x D] observations
    int rows = 0;
    std::vector<float*> h;      ///< one [rows x width] buffer per hidden layer
    float* v = nullptr;         ///< [rows] V (dueling; unused otherwise)
    float* a = nullptr;         ///< [rows x A] A (dueling) or Q
  };
  /// The acting forward of the GPU collector (issue 24): queues on `s` the online network's
  /// forward pass over act.rows device observations: the step's own program and tiles
  /// (add_forward) at the learner's precision, so the network is defined once. `s` must be the
  /// stream this learner's steps run on (the GPU replay's): the launch uses the learner kernel's
  /// grid barrier. @throws std::invalid_argument for a bad shape; CudaError when the launch fails.
  void queue_act_forward(const ActForward& act, cudaStream_t s);

  // ---- For the device checks and benchmarks (native/test/cuda/learner_cuda_tool.cpp). ----
  /// One step of the learner's core (forward, loss, backward, clip, Adam, target update) on a
  /// batch given in host arrays, eagerly; writes the TD errors into td [B]. Synchronizes.
  uint32_t step_on_batch(const SampleBatch& batch, float* td);
  /// Host copy of the gradient buffer of the last step (synchronizes).
  std::vector<float> gradients() const;
  /// Host copies of the last step's online trunk activations after ReLU, one [2B x width] matrix
  /// per hidden layer (rows 0..B-1 from s, B..2B-1 from s'); synchronizes.
  std::vector<std::vector<float>> online_hidden() const;
  /// One eager step on a GPU replay, timed by CUDA events around the sample, the learner kernel
  /// and the update, and inside the kernel by the global timer at each phase's barrier; adds
  /// each part's microseconds (sample, forward, loss, backward, optimizer, update, and the
  /// learner kernel's launch and drain outside its phases) to phases_us[7] when not null, and
  /// each phase's times to per_phase (resized to the phase count) when given.
  /// Synchronizes (profiling only).
  void profile_step(Replay& replay, double* phases_us, std::vector<PhaseProfile>* per_phase = nullptr);
  /// Steps queued by train() with a GPU replay: eager (graph off) or graph-replayed.
  void set_use_graphs(bool on) { use_graphs_ = on; }
  const LearnerConfig& config() const { return config_; }
  /// The GPU replay behind `replay` (a CudaReplay, or a FallbackReplay still on the GPU), or null.
  static CudaReplay* device_replay(Replay& replay);
  /// Runs f; a sticky CUDA error (the context is lost until the process ends) becomes DeviceLost,
  /// which the trainer host answers by continuing the run on the CPU backend.
  template <typename F>
  static decltype(auto) guarded(F f) {
    try {
      return f();
    } catch (const CudaError& e) {
      if (e.sticky()) throw DeviceLost(std::string("CUDA context lost: ") + e.what());
      throw;
    }
  }

 private:
  friend class CudaLearnerGroup;  // builds one program for its members and steps them together
  struct Buffers;   // every device buffer, carved from one block
  /// One network's forward pass over `rows` rows of x: trunk activations h[l], heads v and a.
  struct Pass {
    const ParamView* net;
    const float* x;
    int rows;
    const std::vector<float*>& h;
    float *v, *a;
  };
  /// The step's core as one program (forward .. Adam); `replay` (the GPU replay's view, or
  /// null) feeds the PER scalars; stamps (profiling only, or null) receives the phase times.
  detail::CoreProgram step_program(const detail::ReplayView* replay, uint64_t* stamps) const;
  /// Forward phases of `on` (and of `tg` beside it in each phase, when not null).
  void add_forward(detail::CoreProgram& pr, const Pass& on, const Pass* tg) const;
  void add_backward(detail::CoreProgram& pr) const;
  void build_step(cudaStream_t s, const detail::ReplayView* replay);
  /// One eager, profiled launch of `pr` on s (this learner's, or a seed group's whole program):
  /// CUDA events around sample() (queued first), the program with this learner's phase and tile
  /// stamps, and update(); then summarize_profile. Synchronizes (profiling only).
  void profile_launch(cudaStream_t s, detail::CoreProgram& pr, const std::function<void()>& sample,
                      const std::function<void()>& update, double* phases_us, std::vector<PhaseProfile>* per_phase);
  /// profile_step's figures from its events' times ms (sample, kernel, update) and the phase and
  /// tile stamps the program `pr` left in this learner's buffers (reads them: synchronizes).
  void summarize_profile(const detail::CoreProgram& pr, const float (&ms)[3], double* phases_us,
                         std::vector<PhaseProfile>* per_phase) const;
  /// Bytes of the tile stamps of a program of `phases` phases.
  size_t tile_stamp_bytes(int phases) const;
  /// The program on `blocks` resident blocks (0: one per multiprocessor, core_blocks_).
  void launch_core(const detail::CoreProgram& pr, cudaStream_t s, const char* what, int blocks = 0);
  detail::TdLossArgs loss_args() const;  // the loss phase's view of the buffers
  void launch_probe(cudaStream_t s);
  void queue_steps(cudaStream_t s, CudaReplay& gpu);  // K x (the replay's sample, the core, the update)
  void queue_staged(cudaStream_t s);                  // the staged batch in, the core, TD errors out
  void queue_scalars(cudaStream_t s);                 // device scalar block -> pinned block
  void sample_into(CudaReplay& gpu);                  // the replay's sample into this learner's batch
  void update_from(CudaReplay& gpu);                  // the replay's priority update from this learner's TD errors
  uint32_t train_staged(Replay& replay, ScalarBlock& out);
  void after_launch(cudaStream_t s);
  void publish(ScalarBlock& out) const;
  void upload_params(const LearnerTensors& t);
  /// A copy that completes before returning (counted: setup and epoch-boundary paths only).
  void copy_now(void* dst, const void* src, size_t bytes, const char* what) const;
  void release();  // frees every CUDA resource (idempotent)

  ParamLayout layout_;
  LearnerConfig config_;
  std::vector<FeatureGroup> causal_features_;
  detail::LearnerParams params_;
  Precision precision_;
  cudaStream_t own_stream_ = nullptr;  // construction, and steps with a CPU replay
  cudaStream_t work_stream_ = nullptr; // where steps are queued (the GPU replay's stream)
  void* block_ = nullptr;
  bool owns_block_ = false;            // block_ is this learner's cudaMalloc (not a group's)
  int core_blocks_ = 0;                // blocks of the learner kernel (all resident)
  std::vector<void*> pinned_;          // every pinned allocation, freed together
  Buffers* buf_ = nullptr;
  ScalarBlock* pinned_scalars_ = nullptr;
  cudaGraphExec_t step_exec_ = nullptr, staged_exec_ = nullptr, probe_exec_ = nullptr;
  bool use_graphs_ = true;
  CudaReplay* step_exec_replay_ = nullptr;  // the replay step_exec_ was captured against
  int64_t steps_ = 0;        // steps queued (or done)
  int64_t launches_ = 0;     // train() calls so far (the first is eager)
  // Acting copy of the online weights: two pinned buffers, one in use, one being refilled.
  float* act_[2] = {nullptr, nullptr};
  std::vector<ParamView> act_view_;
  int act_cur_ = 0;
  bool act_in_flight_ = false;
  cudaEvent_t act_event_ = nullptr;
  Workspace act_ws_;
  // Insert staging: a ring of pinned slots, each with the event of its copy.
  struct InsertSlot { void* host = nullptr; cudaEvent_t done = nullptr; };
  std::vector<InsertSlot> insert_ring_;
  int64_t insert_rows_ = 0;
  size_t insert_next_ = 0;
  void* insert_device_ = nullptr;
  void* insert_pinned_ = nullptr;  // the slots' pinned memory, one block
  void grow_insert(int64_t rows);
  // Staged path (CPU replay): pinned batch, TD errors and PER scalars.
  SampleBatch staged_;
  float* staged_td_ = nullptr;
  ScalarBlock* staged_per_ = nullptr;  // PER scalars of the CPU replay, copied into the device block
  int64_t simulate_sticky_step_ = -1;  // DQN_SIMULATE_STICKY_ERROR: a kernel fault at that step
};

}  // namespace dqn::cuda
