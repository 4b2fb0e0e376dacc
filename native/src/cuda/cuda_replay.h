// The CUDA replay buffer (DESIGN section 3): the Replay interface on the GPU, plus entry points
// that take and fill device arrays without any host synchronization (insert_device,
// sample_device, update_device), so a training step can capture them in a CUDA graph.
// Storage is one pre-allocated device block (structure of arrays, ring buffer, per-slot
// generation, K-ary f64 sum tree and min tree); nothing is allocated after construction except
// the host-path staging buffers, which grow outside any graph.
//
// Usage:
//   dqn::cuda::CudaReplay r(config, {});            // throws CudaError (kErrorOutOfMemory, ...)
//   r.insert(batch);                                // host arrays
//   r.reserve_batch(256);
//   r.capture_step_graph(256);                      // sample + gather + IS weights + update(td)
//   r.launch_step_graph();                          // replay; the host only launches
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/status.h"
#include "kernels/replay_launch.cuh"
#include "replay/replay.h"

namespace dqn::cuda {

class Carver;  // cuda/carver.h

/// GPU-specific construction options.
struct CudaReplayOptions {
  int fan_log = 5;            ///< sum-tree fan-out 2^fan_log: 1 (binary), 4 (16-ary) or 5 (32-ary, measured fastest)
  bool state_bf16 = false;    ///< store states as bf16 (gathered back as f32)
  /// Programmatic dependent launch of the sample and update kernels (ReplayView::chained_launches).
  bool chained_launches = true;
  /// Keep the slots' generations and the sum and min trees in the L2's persisting set-aside
  /// (ReplayView::l2_window; raises the device's cudaLimitPersistingL2CacheSize to the
  /// window's size) when the set-aside can hold them whole: about 12.5 bytes per transition at
  /// K = 32, so up to ~3.1M transitions on an H200 (39 MB set-aside at most). No effect
  /// otherwise.
  bool l2_persist = true;
  bool simulate_oom = false;  ///< test switch: fail as if the allocation ran out of memory
  /// Test switch: the first sample launches a kernel with an invalid configuration, a real
  /// non-sticky CUDA launch error (exercises the runtime fallback).
  bool simulate_kernel_error = false;
};

class CudaReplay final : public Replay {
 public:
  /// Allocates everything on the current device. Throws std::invalid_argument for a bad config,
  /// CudaError with Status::kErrorOutOfMemory and the message "out of memory, N GiB asked, M GiB
  /// free" when the buffer does not fit (or simulate_oom), CudaError for any other failure.
  CudaReplay(const ReplayConfig& config, const CudaReplayOptions& options);
  ~CudaReplay() override;
  CudaReplay(const CudaReplay&) = delete;
  CudaReplay& operator=(const CudaReplay&) = delete;

  void insert(const TransitionBatch& batch) override;
  void sample(int64_t batch_size, SampleBatch& out) override;
  UpdateResult update_priorities(const int32_t* indices, const uint32_t* generations, const float* td_errors,
                                 int64_t n) override;
  int64_t size() const override { return size_; }
  int64_t capacity() const override { return config_.capacity; }
  int state_dim() const override { return config_.state_dim; }
  /// Sum-tree root; first derives and stores the levels above the partition level (one-block
  /// kernel), which the priority update leaves stale, so that the whole tree is then consistent.
  double total_priority() const override;
  double max_priority() const override;
  double beta() const override;
  int64_t sample_steps() const override;
  void set_sample_steps(int64_t steps) override;
  void leaf_priorities(double* out) const override;
  std::string backend() const override { return "cuda"; }
  /// Host memory held: none beyond the object (the buffer lives on the GPU; see device_bytes()).
  int64_t host_memory_bytes() const override { return 0; }

  // ---- Device entry points: enqueue on stream(), never synchronize. ----
  /// Inserts `count` transitions from device arrays (device-to-device).
  void insert_device(const detail::InsertView& in, int64_t count);
  /// Inserts the *count transitions (device memory; 0 <= *count <= max_count) that a kernel
  /// queued before it counted (the GPU collector, issue 24). Nothing is read on the host, so
  /// size() does not include them until sync_size() (the epoch boundary's synchronization).
  /// @throws CudaError when a launch fails.
  void insert_device_counted(const detail::InsertView& in, const int64_t* count, int64_t max_count);
  /// Reads the number of stored transitions from the device into size() (synchronizes).
  void sync_size();
  /// Samples `batch` transitions into device arrays. Rank-based: re-sorts first when due
  /// (every rank_sort_interval calls, counted on the host).
  void sample_device(int64_t batch, const detail::SampleView& out);
  /// Priority update from device arrays; counts accumulate in the device state.
  void update_device(const int32_t* indices, const uint32_t* generations, const float* td_errors, int64_t n);
  cudaStream_t stream() const { return stream_; }
  /// Blocks until the replay's queued work is done; throws CudaError if it failed.
  void synchronize() const;

  // ---- Internal batch buffers and the captured step graph (tests, benches, the learner). ----
  /// Makes the internal batch buffers hold `batch` samples (allocates outside any capture).
  void reserve_batch(int64_t batch);
  const detail::SampleView& batch_view() const { return batch_; }
  float* batch_td() const { return batch_td_; }
  /// Copies host TD errors into the internal TD buffer (for update from batch_td()).
  void set_batch_td(const float* td, int64_t n);
  /// One step: sample_device(batch into the internal buffers) then update_device(their indices
  /// and generations, batch_td()). Eager, or captured once as a CUDA graph and replayed.
  void run_step(int64_t batch);
  void capture_step_graph(int64_t batch);
  void launch_step_graph();
  /// Batch size of the captured step graph (0 before capture_step_graph).
  int64_t graph_batch() const { return graph_batch_; }
  /// Copies the internal batch buffers to host arrays (synchronizes).
  void read_batch(int64_t batch, SampleBatch& out) const;
  /// Cumulative update counts (synchronizes).
  UpdateResult total_update_counts() const;

  /// Host copy of the whole buffer (states as f32), for moving it to another backend.
  struct Contents {
    std::vector<float> states, next_states, rewards, discounts;
    std::vector<int32_t> actions;
    std::vector<uint8_t> dones;
    std::vector<double> leaves;  ///< p^alpha of slots [0, size)
    int64_t size = 0, cursor = 0, sample_steps = 0;
    double max_priority = 1;
  };
  /// Copies slots [0, size) and the ring state to the host (synchronizes).
  void download(Contents& out) const;

  /// Device bytes held by the buffer itself (storage and trees, no staging), and per transition.
  size_t device_bytes() const { return storage_bytes_; }
  double bytes_per_transition() const { return static_cast<double>(storage_bytes_) / static_cast<double>(config_.capacity); }
  bool state_bf16() const { return options_.state_bf16; }
  int fan_log() const { return options_.fan_log; }
  /// Bytes in the L2 persisting window (CudaReplayOptions::l2_persist), 0 when it is off.
  size_t l2_persisting_bytes() const { return view_.l2_window.num_bytes; }
  /// The device view (layout and pointers), for checks that read the trees directly.
  const detail::ReplayView& view() const { return view_; }

 private:
  /// Device staging for the host paths: insert rows and update entries.
  struct Stage {
    float* states; float* next_states; int32_t* actions; float* rewards; float* discounts; uint8_t* dones;
    int32_t* indices; uint32_t* generations; float* td_errors;
  };
  Stage stage_layout(Carver& c) const;
  Stage stage() const;
  detail::DeviceState read_state() const;
  void ensure_stage(int64_t rows, int64_t updates);
  void rank_resort_if_due();
  void persist_in_l2(int device);

  ReplayConfig config_;
  CudaReplayOptions options_;
  cudaStream_t stream_ = nullptr;
  detail::ReplayView view_;
  void* block_ = nullptr;          // the storage block
  size_t storage_bytes_ = 0;
  // Rank-based extras (inside the block).
  int32_t* rank_iota_ = nullptr;
  double* rank_keys_ = nullptr;
  void* rank_temp_ = nullptr;
  size_t rank_temp_bytes_ = 0;
  int64_t samples_since_sort_ = -1;  // -1: never sorted
  bool simulated_error_done_ = false;
  // Host mirror of the ring: exact after host-counted inserts, behind after device-counted ones
  // until sync_size().
  int64_t size_ = 0;
  // Staging for the host paths and the internal batch (grown on demand).
  void* stage_ = nullptr;
  int64_t stage_rows_ = 0, stage_updates_ = 0;
  void* batch_block_ = nullptr;
  int64_t batch_capacity_ = 0;
  detail::SampleView batch_;
  float* batch_td_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
  int64_t graph_batch_ = 0;
};

}  // namespace dqn::cuda
