// Insert and reset kernels of the CUDA replay. An insert of `count` rows writes the last
// min(count, N) of them at the device write cursor (a row that a later row of the same batch
// overwrites is skipped, but its generation bump is kept), gives each the leaf priority of the
// running max priority, and recomputes the touched ancestors with one launch per level over the
// node range that covers the written leaves (two ranges when the write wraps), down to the
// partition level P. A last one-block launch derives the levels above P from level P (as the
// sample does) and stores them, then advances cursor and size. Cursor and size are read on the
// device: capturable; so can the count be (LaunchInsertCounted: the GPU collector's rows, counted
// by a kernel before it), the grids then sized for the most rows it may be.
#include <cuda_runtime.h>

#include "kernels/replay_launch.cuh"
#include "kernels/replay_tree.cuh"

namespace dqn::cuda::detail {
namespace {

constexpr int kThreads = 256;

template <bool kBf16>
__global__ void InsertRowsKernel(ReplayView v, InsertView in, InsertCount rows) {
  const int64_t count = rows.get();
  const int64_t n = count < v.capacity ? count : v.capacity;
  const int64_t first_row = count - n;
  const int64_t cursor = v.state->cursor;
  const int d = v.state_dim;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t e = t0; e < n * d; e += stride) {
    const int64_t row = first_row + e / d, k = e % d;
    const int64_t slot = (cursor + row) % v.capacity;
    StoreState<kBf16>(v.states, slot * d + k, in.states[row * d + k]);
    StoreState<kBf16>(v.next_states, slot * d + k, in.next_states[row * d + k]);
  }
  const double leaf = LeafPriority(v.state->max_priority, v);
  double* leaves = v.sum + v.tree.offset[v.tree.levels];
  for (int64_t e = t0; e < n; e += stride) {
    const int64_t row = first_row + e;
    const int64_t slot = (cursor + row) % v.capacity;
    v.actions[slot] = in.actions[row];
    v.rewards[slot] = in.rewards[row];
    v.dones[slot] = in.dones[row];
    v.discounts[slot] = in.discounts ? in.discounts[row] : (in.dones[row] ? 0.0f : 1.0f);
    v.generations[slot] += static_cast<uint32_t>(row / v.capacity + 1);  // rows row, row-N, ... wrote it
    leaves[slot] = leaf;
  }
}

/// Recomputes the nodes of level l that cover the leaves just written.
template <int K>
__global__ void PropagateRangeKernel(ReplayView v, InsertCount rows, int l) {
  __shared__ int64_t offset[kMaxTreeLevels + 1];
  StageOffsets(v, offset);
  __syncthreads();
  const int64_t count = rows.get();
  const int64_t n = count < v.capacity ? count : v.capacity;
  const int64_t cursor = v.state->cursor;
  const int64_t start = (cursor + (count - n)) % v.capacity;
  const int shift = v.tree.fan_log * (v.tree.levels - l);
  const int64_t end = start + n;  // exclusive, may pass capacity (wrap)
  int64_t lo1 = start >> shift, hi1, lo2 = 1, hi2 = 0;  // second range empty unless wrapped
  if (end <= v.capacity) {
    hi1 = (end - 1) >> shift;
  } else {
    hi1 = (v.capacity - 1) >> shift;
    lo2 = 0;
    hi2 = (end - v.capacity - 1) >> shift;
    if (hi2 + 1 >= lo1) { lo1 = 0; lo2 = 1; hi2 = 0; }  // the ranges meet: one range
  }
  const int64_t n1 = hi1 - lo1 + 1, n2 = hi2 - lo2 + 1;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n1 + n2; t += stride)
    RecomputeNode<K>(v, offset, l, t < n1 ? lo1 + t : lo2 + (t - n1));
}

/// Derives the levels above the partition level P from level P and stores them (one block of
/// kTopThreads); with `advance` it then advances cursor and size past an insert of `rows` rows.
template <int K>
__global__ void __launch_bounds__(kTopThreads) DeriveTopKernel(ReplayView v, InsertCount rows, bool advance) {
  __shared__ TopShared s;
  StageTop<K, true>(LoadTopChunk<K>(v), v, nullptr, s);
  __syncthreads();
  if (threadIdx.x >= 32) return;
  const int P = v.tree.part_level;
  const auto store = [&](int l, int64_t j, double sum, double min) {
    v.sum[v.tree.offset[l] + j] = sum;
    v.min[v.tree.offset[l] + j] = min;
  };
  if (P > 1 && threadIdx.x < v.tree.count[P - 1]) store(P - 1, threadIdx.x, s.up_sum[threadIdx.x], s.up_min[threadIdx.x]);
  StoreUpperLevels<K, true>(v, s, store);
  if (threadIdx.x != 0) return;
  double total, min_total;
  RootFromWarps(s, total, min_total);
  store(0, 0, total, min_total);
  if (!advance) return;
  const int64_t count = rows.get();
  DeviceState& ws = *v.state;
  const int64_t n = count < v.capacity ? count : v.capacity;
  ws.cursor = (ws.cursor + count) % v.capacity;
  ws.size = ws.size + n < v.capacity ? ws.size + n : v.capacity;
}

__global__ void ResetKernel(ReplayView v) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t i = t0; i < v.tree.nodes; i += stride) v.sum[i] = 0.0;
  for (int64_t i = t0; i < v.tree.offset[v.tree.levels]; i += stride) v.min[i] = INFINITY;
  for (int64_t i = t0; i < v.capacity; i += stride) {
    v.generations[i] = 0;
    v.marks[i] = 0;
  }
}

unsigned GridFor(int64_t work) {
  const int64_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 4096 ? 4096 : blocks));
}

}  // namespace

cudaError_t LaunchResetTree(const ReplayView& v, cudaStream_t stream) {
  ResetKernel<<<GridFor(v.tree.nodes), kThreads, 0, stream>>>(v);
  return cudaGetLastError();
}

namespace {

// The insert's launches for at most max_rows rows (the grids' size); the kernels read the count.
cudaError_t QueueInsert(const ReplayView& v, const InsertView& in, InsertCount rows, int64_t max_rows, cudaStream_t stream) {
  const int64_t n = max_rows < v.capacity ? max_rows : v.capacity;
  if (v.state_bf16) InsertRowsKernel<true><<<GridFor(n * v.state_dim), kThreads, 0, stream>>>(v, in, rows);
  else InsertRowsKernel<false><<<GridFor(n * v.state_dim), kThreads, 0, stream>>>(v, in, rows);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  DQN_FANOUT_SWITCH(v.tree.fan_log, K, {
    for (int l = v.tree.levels - 1; l >= v.tree.part_level; --l) {
      const int shift = v.tree.fan_log * (v.tree.levels - l);
      PropagateRangeKernel<K><<<GridFor((n >> shift) + 2), kThreads, 0, stream>>>(v, rows, l);
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    DeriveTopKernel<K><<<1, kTopThreads, 0, stream>>>(v, rows, true);
  })
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchInsert(const ReplayView& v, const InsertView& in, int64_t count, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  return QueueInsert(v, in, InsertCount{count, nullptr}, count, stream);
}

cudaError_t LaunchInsertCounted(const ReplayView& v, const InsertView& in, const int64_t* count, int64_t max_count,
                                cudaStream_t stream) {
  if (max_count <= 0 || count == nullptr) return cudaErrorInvalidValue;
  return QueueInsert(v, in, InsertCount{0, count}, max_count, stream);
}

cudaError_t LaunchDeriveTop(const ReplayView& v, cudaStream_t stream) {
  DQN_FANOUT_SWITCH(v.tree.fan_log, K, { DeriveTopKernel<K><<<1, kTopThreads, 0, stream>>>(v, InsertCount{}, false); })
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
