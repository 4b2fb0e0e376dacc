// The CUDA replay buffer (see cuda_replay.h): allocation, host paths, graph capture.
#include "cuda/cuda_replay.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/carver.h"
#include "cuda/sync.h"
#include "replay/rank_sampler.h"
#include "replay/replay_config.h"
#include "replay/transition_store.h"
#include "rules/step_rules.h"

namespace dqn::cuda {
namespace {

constexpr int64_t kStageRows = 4096;      // host inserts are staged this many rows at a time
constexpr int64_t kMaxUpdateBatch = 1 << 20;

}  // namespace

CudaReplay::CudaReplay(const ReplayConfig& config, const CudaReplayOptions& options)
    : config_(config), options_(options) {
  ValidateReplayConfig(config);
  detail::ReplayView& v = view_;
  v.tree = detail::MakeTreeLayout(config.capacity, options.fan_log);
  v.capacity = config.capacity;
  v.state_dim = config.state_dim;
  v.state_bf16 = options.state_bf16;
  v.sampler = config.sampler == Sampler::kRank      ? detail::SamplerKind::kRank
              : config.sampler == Sampler::kUniform ? detail::SamplerKind::kUniform
                                                    : detail::SamplerKind::kProportional;
  v.batch_max_weights = config.is_normalization == IsNormalization::kBatch;
  v.alpha = config.alpha;
  v.beta0 = config.beta0;
  v.eps = config.eps;
  v.p_clip = config.p_clip;
  v.beta_steps = config.beta_steps;
  v.seed[0] = static_cast<uint32_t>(config.seed);
  v.seed[1] = static_cast<uint32_t>(config.seed >> 32);
  v.chained_launches = options.chained_launches;
  int device = 0;
  Check(cudaGetDevice(&device), "reading the current device");
  {
    int optin = 0;
    Check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "reading the shared-memory limit");
    Check(detail::PrepareUpdateKernels(optin, &v.shared_bytes), "configuring the update kernels");
  }

  const bool rank = v.sampler == detail::SamplerKind::kRank;
  if (rank) Check(detail::RankTempBytes(config.capacity, &rank_temp_bytes_), "sizing the rank sort");
  const int64_t n = config.capacity;
  const int64_t state_elems = n * config.state_dim;
  const size_t state_bytes = options.state_bf16 ? 2 : 4;
  auto carve = [&](Carver& c) {
    v.states = c.take<char>(state_elems * static_cast<int64_t>(state_bytes));
    v.next_states = c.take<char>(state_elems * static_cast<int64_t>(state_bytes));
    v.actions = c.take<int32_t>(n);
    v.rewards = c.take<float>(n);
    v.dones = c.take<uint8_t>(n);
    v.discounts = c.take<float>(n);
    v.marks = c.take<uint32_t>(n);
    v.generations = c.take<uint32_t>(n);  // generations .. state: the L2 window (persist_in_l2)
    v.sum = c.take<double>(v.tree.nodes);
    v.min = c.take<double>(v.tree.offset[v.tree.levels]);
    v.state = c.take<detail::DeviceState>(1);
    if (rank) {
      v.rank_slots = c.take<int32_t>(n);
      v.rank_cdf = c.take<double>(n + 1);
      rank_iota_ = c.take<int32_t>(n);
      rank_keys_ = c.take<double>(n);
      rank_temp_ = c.take<char>(static_cast<int64_t>(rank_temp_bytes_));
    }
  };
  Carver measure(nullptr);
  carve(measure);
  storage_bytes_ = measure.used();

  size_t free_bytes = 0, total_bytes = 0;
  Check(cudaMemGetInfo(&free_bytes, &total_bytes), "reading free device memory");
  const auto oom = [&] {
    return CudaError(Status::kErrorOutOfMemory, cudaErrorMemoryAllocation,
                     "out of memory, " + GiB(storage_bytes_) + " GiB asked, " + GiB(free_bytes) + " GiB free");
  };
  if (options.simulate_oom) throw oom();
  if (const cudaError_t e = cudaMalloc(&block_, storage_bytes_); e != cudaSuccess) {
    cudaGetLastError();
    block_ = nullptr;
    if (e == cudaErrorMemoryAllocation) throw oom();
    Check(e, "allocating the replay buffer");
  }
  try {
    Carver place(block_);
    carve(place);
    if (options.l2_persist) persist_in_l2(device);
    Check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating the replay stream");
    const detail::DeviceState init{};
    Check(cudaMemcpyAsync(v.state, &init, sizeof init, cudaMemcpyHostToDevice, stream_), "initialising the replay state");
    Check(detail::LaunchResetTree(v, stream_), "clearing the sum tree");
    if (rank) {
      std::vector<double> cdf(static_cast<size_t>(n + 1));
      dqn::detail::CumulativePowerLaw(n, config.alpha, cdf.data());
      Check(cudaMemcpyAsync(v.rank_cdf, cdf.data(), cdf.size() * sizeof(double), cudaMemcpyHostToDevice, stream_),
            "uploading the rank CDF");
      Check(detail::LaunchIota(rank_iota_, n, stream_), "filling the rank sort's slot list");
      synchronize();  // before `cdf` goes away
    }
    ensure_stage(kStageRows, 4096);
    synchronize();
  } catch (...) {
    if (stream_) cudaStreamDestroy(stream_);
    cudaFree(block_);
    cudaFree(stage_);
    throw;
  }
}

/// Sets view_.l2_window (for `device`, the current one) over generations .. state (carved in
/// that order: the arrays that every step reads at random places) and raises the device's
/// persisting L2 set-aside to the window's size (CUDA programming guide, "Device Memory L2
/// Access Management"). Only a window that the set-aside holds whole: at capacity 1e7 (166 MB, a
/// hit ratio of 0.3) it made sampling slower (bench/RESULTS.md, session 5). Best effort: a GPU
/// without persisting L2, a window too large, or a call that fails leaves the window off.
void CudaReplay::persist_in_l2(int device) {
  int max_window = 0, max_persist = 0;
  size_t set_aside = 0;
  const auto ok = [](cudaError_t e) { return e == cudaSuccess || (cudaGetLastError(), false); };
  if (!ok(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, device)) ||
      !ok(cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, device)) ||
      !ok(cudaDeviceGetLimit(&set_aside, cudaLimitPersistingL2CacheSize)))
    return;
  char* const first = reinterpret_cast<char*>(view_.generations);
  const size_t bytes = static_cast<size_t>(reinterpret_cast<char*>(view_.state + 1) - first);
  if (bytes > static_cast<size_t>(std::min(max_window, max_persist))) return;  // also a GPU without persisting L2 (0)
  if (set_aside < bytes && (!ok(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes)) ||
                            !ok(cudaDeviceGetLimit(&set_aside, cudaLimitPersistingL2CacheSize)) || set_aside < bytes))
    return;
  view_.l2_window.base_ptr = first;
  view_.l2_window.num_bytes = bytes;
  view_.l2_window.hitRatio = 1.0f;
  view_.l2_window.hitProp = cudaAccessPropertyPersisting;
  view_.l2_window.missProp = cudaAccessPropertyStreaming;
}

CudaReplay::~CudaReplay() {
  if (view_.l2_window.num_bytes > 0) cudaCtxResetPersistingL2Cache();  // the lines return to normal use
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
  if (graph_) cudaGraphDestroy(graph_);
  if (stream_) SynchronizeNoThrow(stream_), cudaStreamDestroy(stream_);
  cudaFree(batch_block_);
  cudaFree(stage_);
  cudaFree(block_);
  cudaGetLastError();
}

void CudaReplay::synchronize() const { Synchronize(stream_, "running the replay kernels"); }

detail::DeviceState CudaReplay::read_state() const {
  detail::DeviceState s;
  Check(cudaMemcpyAsync(&s, view_.state, sizeof s, cudaMemcpyDeviceToHost, stream_), "reading the replay state");
  synchronize();
  return s;
}

void CudaReplay::ensure_stage(int64_t rows, int64_t updates) {
  if (rows <= stage_rows_ && updates <= stage_updates_) return;
  rows = std::max(rows, stage_rows_);
  updates = std::max(updates, stage_updates_);
  const int64_t saved_rows = stage_rows_, saved_updates = stage_updates_;
  stage_rows_ = rows;
  stage_updates_ = updates;
  Carver measure(nullptr);
  stage_layout(measure);
  stage_rows_ = saved_rows;
  stage_updates_ = saved_updates;
  if (stage_) {
    synchronize();
    Check(cudaFree(stage_), "freeing the staging buffer");
    stage_ = nullptr;
  }
  Check(cudaMalloc(&stage_, measure.used()), "allocating the staging buffer");
  stage_rows_ = rows;
  stage_updates_ = updates;
}

CudaReplay::Stage CudaReplay::stage_layout(Carver& c) const {
  Stage st;
  CarveTransitions(c, st, stage_rows_, config_.state_dim);
  st.indices = c.take<int32_t>(stage_updates_);
  st.generations = c.take<uint32_t>(stage_updates_);
  st.td_errors = c.take<float>(stage_updates_);
  return st;
}

CudaReplay::Stage CudaReplay::stage() const {
  Carver c(stage_);
  return stage_layout(c);
}

void CudaReplay::insert(const TransitionBatch& b) {
  dqn::detail::ValidateTransitionBatch(b, config_.state_dim);
  const int64_t d = config_.state_dim;
  // Rows that a later row of the same batch overwrites are skipped, except for the generation
  // bump, which insert_device counts from the batch length: so send whole chunks in order.
  for (int64_t first = 0; first < b.count; first += kStageRows) {
    const int64_t rows = std::min(kStageRows, b.count - first);
    const Stage st = stage();
    const auto h2d = [&](void* dst, const void* src, size_t bytes) {
      Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "copying transitions to the GPU");
    };
    h2d(st.states, b.states + first * d, rows * d * 4);
    h2d(st.next_states, b.next_states + first * d, rows * d * 4);
    h2d(st.actions, b.actions + first, rows * 4);
    h2d(st.rewards, b.rewards + first, rows * 4);
    h2d(st.dones, b.dones + first, rows);
    if (b.discounts) h2d(st.discounts, b.discounts + first, rows * 4);
    detail::InsertView in;
    in.states = st.states;
    in.next_states = st.next_states;
    in.actions = st.actions;
    in.rewards = st.rewards;
    in.dones = st.dones;
    in.discounts = b.discounts ? st.discounts : nullptr;
    insert_device(in, rows);
    // The next chunk reuses the staging buffer: wait for this one.
    if (first + rows < b.count) synchronize();
  }
}

void CudaReplay::insert_device(const detail::InsertView& in, int64_t count) {
  if (count <= 0) return;
  Check(detail::LaunchInsert(view_, in, count, stream_), "launching the insert kernels");
  size_ = std::min(config_.capacity, size_ + count);
}

void CudaReplay::insert_device_counted(const detail::InsertView& in, const int64_t* count, int64_t max_count) {
  Check(detail::LaunchInsertCounted(view_, in, count, max_count, stream_), "launching the counted insert kernels");
}

void CudaReplay::sync_size() { size_ = read_state().size; }

void CudaReplay::rank_resort_if_due() {
  if (view_.sampler != detail::SamplerKind::kRank) return;
  if (samples_since_sort_ >= 0 && samples_since_sort_ < config_.rank_sort_interval) return;
  Check(detail::LaunchRankSort(view_, size_, rank_keys_, rank_iota_, rank_temp_, rank_temp_bytes_, stream_),
        "sorting priorities for rank-based sampling");
  samples_since_sort_ = 0;
}

void CudaReplay::sample_device(int64_t batch, const detail::SampleView& out) {
  if (size_ == 0) throw std::runtime_error("cannot sample from an empty replay buffer");
  if (batch < 1) throw std::invalid_argument("batch size must be >= 1, got " + std::to_string(batch));
  if (options_.simulate_kernel_error && !simulated_error_done_) {
    simulated_error_done_ = true;
    Check(detail::LaunchInvalidConfiguration(stream_), "launching the sample kernel (simulated failure)");
  }
  rank_resort_if_due();
  Check(detail::LaunchSample(view_, out, batch, stream_), "launching the sample kernel");
  if (view_.sampler == detail::SamplerKind::kRank) ++samples_since_sort_;
}

void CudaReplay::update_device(const int32_t* indices, const uint32_t* generations, const float* td_errors, int64_t n) {
  if (n < 0 || n > kMaxUpdateBatch) throw std::invalid_argument("update size must be in [0, 2^20], got " + std::to_string(n));
  Check(detail::LaunchUpdate(view_, indices, generations, td_errors, n, stream_), "launching the priority update");
}

void CudaReplay::reserve_batch(int64_t batch) {
  if (batch <= batch_capacity_) return;
  const int64_t d = config_.state_dim;
  auto carve = [&](Carver& c) {
    CarveBatch(c, batch_, batch, d);
    batch_.probabilities = c.take<double>(batch);
    batch_td_ = c.take<float>(batch);
  };
  Carver measure(nullptr);
  carve(measure);
  if (batch_block_) {
    synchronize();
    Check(cudaFree(batch_block_), "freeing the batch buffers");
    batch_block_ = nullptr;
  }
  Check(cudaMalloc(&batch_block_, measure.used()), "allocating the batch buffers");
  Carver place(batch_block_);
  carve(place);
  batch_capacity_ = batch;
}

void CudaReplay::read_batch(int64_t batch, SampleBatch& out) const {
  if (batch > batch_capacity_) throw std::invalid_argument("read_batch: only " + std::to_string(batch_capacity_) + " reserved");
  const int64_t d = config_.state_dim;
  const auto d2h = [&](void* dst, const void* src, size_t bytes) {
    if (dst) Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "copying the batch to the host");
  };
  d2h(out.indices, batch_.indices, batch * 4);
  d2h(out.generations, batch_.generations, batch * 4);
  d2h(out.weights, batch_.weights, batch * 4);
  d2h(out.states, batch_.states, batch * d * 4);
  d2h(out.actions, batch_.actions, batch * 4);
  d2h(out.rewards, batch_.rewards, batch * 4);
  d2h(out.next_states, batch_.next_states, batch * d * 4);
  d2h(out.dones, batch_.dones, batch);
  d2h(out.discounts, batch_.discounts, batch * 4);
  synchronize();
}

void CudaReplay::sample(int64_t batch_size, SampleBatch& out) {
  ValidateSampleRequest(batch_size, out);
  if (size_ == 0) throw std::runtime_error("cannot sample from an empty replay buffer");
  if (view_.sampler == detail::SamplerKind::kProportional && !(total_priority() > 0.0))
    throw std::runtime_error("every stored priority is zero, so nothing can be sampled (use eps > 0)");
  reserve_batch(batch_size);
  sample_device(batch_size, batch_);
  read_batch(batch_size, out);
}

void CudaReplay::set_batch_td(const float* td, int64_t n) {
  if (n > batch_capacity_) throw std::invalid_argument("set_batch_td: only " + std::to_string(batch_capacity_) + " reserved");
  Check(cudaMemcpyAsync(batch_td_, td, n * 4, cudaMemcpyHostToDevice, stream_), "copying TD errors to the GPU");
}

UpdateResult CudaReplay::update_priorities(const int32_t* indices, const uint32_t* generations, const float* td_errors,
                                           int64_t n) {
  ValidateUpdateRequest(indices, generations, td_errors, n, size_);
  if (n == 0) return {};
  ensure_stage(stage_rows_, n);
  const Stage st = stage();
  int32_t* d_idx = st.indices;
  uint32_t* d_gen = st.generations;
  float* d_td = st.td_errors;
  Check(cudaMemcpyAsync(d_idx, indices, n * 4, cudaMemcpyHostToDevice, stream_), "copying indices to the GPU");
  Check(cudaMemcpyAsync(d_gen, generations, n * 4, cudaMemcpyHostToDevice, stream_), "copying generations to the GPU");
  Check(cudaMemcpyAsync(d_td, td_errors, n * 4, cudaMemcpyHostToDevice, stream_), "copying TD errors to the GPU");
  update_device(d_idx, d_gen, d_td, n);
  const detail::UpdateCounts u = read_state().last_update;
  return UpdateResult{u.applied, u.rejected_nonfinite, u.stale, u.duplicates};
}

UpdateResult CudaReplay::total_update_counts() const {
  const detail::UpdateCounts u = read_state().total_update;
  return UpdateResult{u.applied, u.rejected_nonfinite, u.stale, u.duplicates};
}

void CudaReplay::run_step(int64_t batch) {
  reserve_batch(batch);
  sample_device(batch, batch_);
  update_device(batch_.indices, batch_.generations, batch_td_, batch);
}

void CudaReplay::capture_step_graph(int64_t batch) {
  reserve_batch(batch);
  rank_resort_if_due();  // the sort stays outside the graph; launch_step_graph re-sorts when due
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_), graph_exec_ = nullptr;
  if (graph_) cudaGraphDestroy(graph_), graph_ = nullptr;
  Check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "beginning the graph capture");
  cudaError_t launch = detail::LaunchSample(view_, batch_, batch, stream_);
  if (launch == cudaSuccess) launch = detail::LaunchUpdate(view_, batch_.indices, batch_.generations, batch_td_, batch, stream_);
  const cudaError_t end = cudaStreamEndCapture(stream_, &graph_);
  Check(launch, "capturing the replay step");
  Check(end, "ending the graph capture");
  Check(cudaGraphInstantiate(&graph_exec_, graph_, 0), "instantiating the replay step graph");
  graph_batch_ = batch;
}

void CudaReplay::launch_step_graph() {
  if (!graph_exec_) throw std::logic_error("launch_step_graph before capture_step_graph");
  rank_resort_if_due();
  Check(cudaGraphLaunch(graph_exec_, stream_), "launching the replay step graph");
  if (view_.sampler == detail::SamplerKind::kRank) ++samples_since_sort_;
}

double CudaReplay::total_priority() const {
  double root = 0;
  // The update leaves the levels above the partition level stale (kernels/replay_launch.cuh).
  Check(detail::LaunchDeriveTop(view_, stream_), "deriving the sum tree's top levels");
  Check(cudaMemcpyAsync(&root, view_.sum, sizeof root, cudaMemcpyDeviceToHost, stream_), "reading the sum-tree root");
  synchronize();
  return root;
}

double CudaReplay::max_priority() const { return read_state().max_priority; }

double CudaReplay::beta() const {
  return rules::BetaAt(config_.beta0, config_.beta_steps, sample_steps());
}

int64_t CudaReplay::sample_steps() const { return static_cast<int64_t>(read_state().sample_ticks / detail::kTicksPerSample); }

void CudaReplay::set_sample_steps(int64_t steps) {
  if (steps < 0) throw std::invalid_argument("sample_steps must be >= 0, got " + std::to_string(steps));
  // The device counter holds steps * 2^32 in 64 bits (DeviceState::sample_ticks).
  if (steps >= (int64_t{1} << 32))
    throw std::invalid_argument("sample_steps must be < 4294967296 on the CUDA backend, got " + std::to_string(steps));
  const uint64_t ticks = static_cast<uint64_t>(steps) * detail::kTicksPerSample;
  Check(cudaMemcpyAsync(&view_.state->sample_ticks, &ticks, sizeof ticks, cudaMemcpyHostToDevice, stream_), "setting the sample step");
  synchronize();
}

void CudaReplay::download(Contents& c) const {
  const detail::DeviceState st = read_state();
  const int64_t n = st.size, d = config_.state_dim;
  c.size = n;
  c.cursor = st.cursor;
  c.sample_steps = static_cast<int64_t>(st.sample_ticks / detail::kTicksPerSample);
  c.max_priority = st.max_priority;
  c.states.resize(n * d);
  c.next_states.resize(n * d);
  c.actions.resize(n);
  c.rewards.resize(n);
  c.dones.resize(n);
  c.discounts.resize(n);
  c.leaves.resize(n);
  const auto d2h = [&](void* dst, const void* src, size_t bytes) {
    Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "copying the buffer to the host");
  };
  std::vector<uint16_t> raw;
  for (int which = 0; which < 2; ++which) {
    std::vector<float>& dst = which == 0 ? c.states : c.next_states;
    const void* src = which == 0 ? view_.states : view_.next_states;
    if (!options_.state_bf16) {
      d2h(dst.data(), src, n * d * 4);
      continue;
    }
    raw.resize(n * d);
    d2h(raw.data(), src, n * d * 2);
    synchronize();
    for (int64_t i = 0; i < n * d; ++i) {
      const uint32_t bits = static_cast<uint32_t>(raw[i]) << 16;  // bf16 is the high half of an f32
      std::memcpy(&dst[i], &bits, 4);
    }
  }
  d2h(c.actions.data(), view_.actions, n * 4);
  d2h(c.rewards.data(), view_.rewards, n * 4);
  d2h(c.dones.data(), view_.dones, n);
  d2h(c.discounts.data(), view_.discounts, n * 4);
  d2h(c.leaves.data(), view_.sum + view_.tree.offset[view_.tree.levels], n * 8);
  synchronize();
}

void CudaReplay::leaf_priorities(double* out) const {
  if (size_ == 0) return;
  Check(cudaMemcpyAsync(out, view_.sum + view_.tree.offset[view_.tree.levels], size_ * sizeof(double), cudaMemcpyDeviceToHost, stream_),
        "reading leaf priorities");
  synchronize();
}

}  // namespace dqn::cuda
