// The CUDA replay's device-side data (plain structs shared by the host code in
// native/src/cuda/ and the kernels) and the launchers that the host code calls. Compiles with
// a host C++ compiler: no device code here (that is in replay_tree.cuh and replay_*.cu).
//
// Layout (DESIGN section 3): one f64 array `sum` holds every level of a K-ary sum tree, top
// down (level 0 = root); level l starts at tree.offset[l] and holds tree.count[l] nodes; the
// children of node j at level l are K*j .. K*j+K-1 at level l+1; leaves (level L = tree.levels)
// are the slots' priorities p^alpha (0 for empty slots). The f64 array `min` holds the internal
// levels 0..L-1 of the min tree at the same offsets (its leaves are the sum tree's leaves; empty
// slots, whose leaf is 0, are left out of the minimum; an empty subtree holds +inf).
// The partition level P (tree.part_level) is the first level below the root with more than
// kTopLevelNodes needed nodes. Levels P..L are the tree's state: every kernel that changes a
// leaf recomputes its ancestors down to level P. The levels above P (at most kTopLevelNodes
// nodes at P - 1, fewer above) are derived from level P by whoever reads them: each sample
// block in its prologue (into shared memory), and a one-block kernel that stores them at the
// end of every insert and before every host read (LaunchDeriveTop). The priority update does
// not store them, so that no block of it waits for all the others to reduce them on every
// step (bench/RESULTS.md, session 9). Every reader therefore sees a root that equals the sum
// of the leaves, as DESIGN section 3 asks; only the stored copy lags between an update and the
// next derivation.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace dqn::cuda::detail {

/// Most tree levels below the root (K = 2 and N = 1e8 needs 27).
inline constexpr int kMaxTreeLevels = 32;
/// Most needed nodes of the level above the partition level P (see the layout note above).
inline constexpr int64_t kTopLevelNodes = 32;

/// Shape of the K-ary tree, computed once on the host (MakeTreeLayout) and passed by value.
struct TreeLayout {
  int fan_log = 5;                      ///< log2 K
  int levels = 1;                       ///< L: the leaves are level L
  int part_level = 1;                   ///< P in [1, L]: levels above it are derived from it
  int64_t offset[kMaxTreeLevels + 1]{}; ///< first node of each level in `sum`
  int64_t count[kMaxTreeLevels + 1]{};  ///< nodes allocated at each level
  int64_t nodes = 0;                    ///< total nodes (length of `sum`)
};

/// K-ary layout for `capacity` leaves; fan-out 2^fan_log with fan_log in [1, 5].
TreeLayout MakeTreeLayout(int64_t capacity, int fan_log);

/// Counts of one priority update (mirrors dqn::UpdateResult).
struct UpdateCounts {
  int64_t applied = 0, rejected_nonfinite = 0, stale = 0, duplicates = 0;
};

/// Fixed-point unit of DeviceState::sample_ticks: one sample() call adds exactly this much.
inline constexpr uint64_t kTicksPerSample = uint64_t{1} << 32;

/// Mutable replay state that lives in device memory so graph replays read and advance it.
struct DeviceState {
  int64_t size = 0;          ///< stored transitions
  int64_t cursor = 0;        ///< next slot to write
  double max_priority = 1;   ///< running max priority, |td| domain, before alpha
  int64_t sorted_size = 0;   ///< rank-based: size at the last sort
  UpdateCounts last_update;  ///< counts of the last priority update
  UpdateCounts total_update; ///< cumulative counts
  uint32_t update_epoch = 0; ///< priority updates so far (tags `marks`)
  uint32_t blocks_done = 0;  ///< last-block counter of the batch-max sample pass (0 between launches)
  /// sample() calls so far times kTicksPerSample (drives beta and the Philox counter). Each
  /// block of a sample launch atomically adds its share of kTicksPerSample (shares > 0, summing
  /// to it exactly), so every block reads the same call number (ticks >> 32) from its own
  /// atomic and the launch leaves the next one behind: no last-block pass. Alone on its
  /// 128-byte line: the blocks' loads of `size` must not queue behind these atomics.
  alignas(128) uint64_t sample_ticks = 0;
};

enum class SamplerKind : int { kProportional = 0, kRank = 1, kUniform = 2 };

/// Everything a kernel needs, passed by value.
struct ReplayView {
  void* states = nullptr;       ///< [N x D] f32 or bf16 (state_bf16)
  void* next_states = nullptr;  ///< [N x D]
  int32_t* actions = nullptr;   ///< [N]
  float* rewards = nullptr;     ///< [N]
  uint8_t* dones = nullptr;     ///< [N]
  float* discounts = nullptr;   ///< [N]
  uint32_t* generations = nullptr; ///< [N]
  double* sum = nullptr;        ///< [tree.nodes]
  double* min = nullptr;        ///< [tree.offset[L]]
  uint32_t* marks = nullptr;    ///< [N] update epoch that last wrote the slot (multi-chunk updates)
  int32_t* rank_slots = nullptr; ///< [N] slots by rank at the last sort (rank-based)
  double* rank_cdf = nullptr;   ///< [N + 1] C(r) = sum_{k<=r} k^-alpha, C(0) = 0 (rank-based)
  DeviceState* state = nullptr;
  TreeLayout tree;
  int64_t capacity = 0;
  int state_dim = 0;
  bool state_bf16 = false;
  SamplerKind sampler = SamplerKind::kProportional;
  bool batch_max_weights = false; ///< normalise IS weights by the batch max (else buffer max)
  double alpha = 0.6, beta0 = 0.4, eps = 1e-6, p_clip = 1e6;
  int64_t beta_steps = 100000;
  uint32_t seed[2] = {1, 0};
  int shared_bytes = 0;      ///< dynamic shared memory one block may opt into (sizes the update's slabs)
  /// Launch the sample and update kernels with programmatic dependent launch (Hopper PDL): each
  /// may be scheduled while its predecessor finishes and waits on the device (griddepcontrol)
  /// before touching memory. Off: plain stream order.
  bool chained_launches = true;
  /// L2 access-policy window of the sample and update launches (num_bytes 0: none): the slots'
  /// generations, the sum tree, the min tree and the state, which every step reads at random
  /// places, persist in the L2's set-aside instead of being evicted by the gathered rows.
  cudaAccessPolicyWindow l2_window{};
};

/// Device buffers that a sample fills (each sized for B).
struct SampleView {
  int32_t* indices = nullptr;
  uint32_t* generations = nullptr;
  float* weights = nullptr;
  float* states = nullptr;      ///< [B x D] f32
  int32_t* actions = nullptr;
  float* rewards = nullptr;
  float* next_states = nullptr; ///< [B x D] f32
  uint8_t* dones = nullptr;
  float* discounts = nullptr;
  double* probabilities = nullptr; ///< [B] P(i) of each draw (also the batch-max scratch)
};

/// Device transitions to insert (row-major f32 states). `discounts` may be null (1 - done).
struct InsertView {
  const float* states = nullptr;
  const int32_t* actions = nullptr;
  const float* rewards = nullptr;
  const float* next_states = nullptr;
  const uint8_t* dones = nullptr;
  const float* discounts = nullptr;
};

/// How many rows an insert writes: `value`, or *device when `device` is set (read on the device,
/// so that a graph inserts the rows a kernel before it counted).
struct InsertCount {
  int64_t value = 0;
  const int64_t* device = nullptr;
#ifdef __CUDACC__
  __device__ int64_t get() const { return device ? *device : value; }
#endif
};

// Launchers: each enqueues on `stream` and returns the launch error (cudaSuccess when queued).
// None synchronizes, allocates or reads device values on the host, so all are capturable.

/// Clears the trees (leaves 0, min +inf) and the state.
cudaError_t LaunchResetTree(const ReplayView& v, cudaStream_t stream);
/// Recomputes the levels above the partition level from it and stores them (one block), so
/// that the host reads a whole, consistent tree (the update leaves those levels stale).
cudaError_t LaunchDeriveTop(const ReplayView& v, cudaStream_t stream);
/// Writes `count` transitions at the device cursor with the running max priority, bumps the
/// generations, recomputes the touched ancestors level by level down to the partition level,
/// derives the levels above it, and advances cursor and size.
cudaError_t LaunchInsert(const ReplayView& v, const InsertView& in, int64_t count, cudaStream_t stream);
/// LaunchInsert of the *count (device memory, 0 <= *count <= max_count) rows a kernel queued
/// before it counted; the launches are sized for max_count rows. cudaErrorInvalidValue when
/// max_count < 1 or count is null.
cudaError_t LaunchInsertCounted(const ReplayView& v, const InsertView& in, const int64_t* count, int64_t max_count,
                                cudaStream_t stream);
/// Draws `batch` transitions, gathers them and their IS weights into `out`, advances the
/// Philox counter and the beta schedule.
cudaError_t LaunchSample(const ReplayView& v, const SampleView& out, int64_t batch, cudaStream_t stream);
/// Test switch of the runtime fallback: launches a kernel with an invalid configuration and
/// returns its (non-sticky) launch error.
cudaError_t LaunchInvalidConfiguration(cudaStream_t stream);
/// Priority update from device arrays of `n` (index, generation, TD error) entries: the winning
/// entries' leaves and their ancestors down to the partition level (the levels above it are
/// derived by their readers, see the layout note).
cudaError_t LaunchUpdate(const ReplayView& v, const int32_t* indices, const uint32_t* generations,
                         const float* td_errors, int64_t n, cudaStream_t stream);
/// Sets `shared_bytes` to the dynamic shared memory that one update block can use next to the
/// kernels' static shared memory when a block may opt into `optin_bytes` in all, and raises
/// the update kernels' limit to it (outside any capture); the constructor of CudaReplay calls it.
cudaError_t PrepareUpdateKernels(int optin_bytes, int* shared_bytes);
/// Rank-based: fills `iota` ([capacity]) with 0, 1, 2, ... for the sorts (once).
cudaError_t LaunchIota(int32_t* iota, int64_t n, cudaStream_t stream);
/// Rank-based: sorts the stored slots by priority (descending) into rank_slots. `size` is the
/// host's count of stored slots (inserts are host-driven, so the host knows it exactly).
cudaError_t LaunchRankSort(const ReplayView& v, int64_t size, double* keys_out, const int32_t* iota,
                           void* temp, size_t temp_bytes, cudaStream_t stream);
/// Temp bytes the rank sort needs for `capacity` entries.
cudaError_t RankTempBytes(int64_t capacity, size_t* bytes);

}  // namespace dqn::cuda::detail
