// The CUDA learner (see cuda_learner.h): buffers, the step as one program of the persistent
// learner kernel, graph capture, acting copies and the staged path for a CPU replay.
#include "cuda/cuda_learner.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cpu/rng.h"
#include "cuda/carver.h"
#include "cuda/cuda_replay.h"
#include "cuda/fallback_replay.h"
#include "cuda/graph.h"
#include "cuda/status.h"
#include "cuda/sync.h"
#include "replay/transition_store.h"

namespace dqn::cuda {

using detail::CoreProgram;
using detail::GemmProblem;
using detail::MatIn;
using detail::PhaseKind;

struct CudaLearner::Buffers {
  float *online = nullptr, *target = nullptr, *grads = nullptr, *m = nullptr, *v = nullptr;
  ParamView on, tg, gr;
  detail::SampleView batch;            // states and next_states adjacent: x [2B x D]
  float* x = nullptr;                  // = batch.states
  std::vector<float*> h_on, h_tg;      // trunk activations [2B x w], [B x w]
  float *v_on = nullptr, *a_on = nullptr, *v_tg = nullptr, *a_tg = nullptr;
  float *d_v = nullptr, *d_a = nullptr, *dh[2] = {nullptr, nullptr};
  float* head_sums = nullptr;          // [F] row sums of the online advantage weights (loss phase)
  float* td = nullptr;
  detail::LearnerControl* ctl = nullptr;
  ScalarBlock* scalars = nullptr;
  detail::Partials partials;
  detail::GridBarrier* barrier = nullptr;  // the step kernel's barrier (zeroed once)
  uint64_t* stamps = nullptr;              // [StampCount(kMaxPhases, blocks)] phase times of profile_step
  uint64_t* tile_stamps = nullptr;         // [TileStamp(kMaxPhases, 0, blocks)] tile times of profile_step
  // Causal probe.
  int groups = 0;
  detail::ProbeArgs probe;
  std::vector<float*> h_probe;
  float *v_probe = nullptr, *a_probe = nullptr;
};

namespace {

/// Pinned insert slots in flight. Collection runs ahead of the GPU by at most what the launch
/// queue holds (about a thousand launches, some hundred steps), so the ring is not lapped.
constexpr int kInsertSlots = 256;

MatIn RowMajor(const float* p, int64_t ld) { return {p, ld, 1, -1}; }
/// Xᵀ of a row-major X [rows x cols] with a virtual row of ones at index cols: [cols + 1 x rows].
MatIn TransposedWithOnes(const float* x, int cols) { return {x, 1, cols, cols}; }
/// Wᵀ of a row-major W [in x out]: [out x in].
MatIn Transposed(const float* w, int out) { return {w, 1, out, -1}; }

/// y = relu?(x·W + b) for `rows` rows of x [rows x in].
GemmProblem Dense(const DenseView& d, const float* x, int rows, float* y, bool relu) {
  GemmProblem p;
  p.m = rows, p.n = d.out, p.k = d.in;
  p.a = RowMajor(x, d.in);
  p.b = RowMajor(d.w, d.out);
  p.c = y, p.ldc = d.out;
  p.bias = d.b;
  p.relu = relu;
  return p;
}

/// [dW; db] = [x, 1]ᵀ·dy over `rows` rows, into the gradient slot g (W then b, contiguous).
GemmProblem WeightGrad(const DenseView& g, const float* x, const float* dy, int rows) {
  GemmProblem p;
  p.m = g.in + 1, p.n = g.out, p.k = rows;
  p.a = TransposedWithOnes(x, g.in);
  p.b = RowMajor(dy, g.out);
  p.c = g.w, p.ldc = g.out;
  return p;
}

/// dx = (dy·Wᵀ) ⊙ (x_act > 0): the input gradient through the ReLU of the layer below.
GemmProblem InputGrad(const DenseView& w, const float* dy, int rows, float* dx, const float* x_act) {
  GemmProblem p;
  p.m = rows, p.n = w.in, p.k = w.out;
  p.a = RowMajor(dy, w.out);
  p.b = Transposed(w.w, w.out);
  p.c = dx, p.ldc = w.in;
  p.mask = x_act, p.ldm = w.in;
  return p;
}

/// Appends a product to a phase. @throws std::logic_error past the kernel's kMaxPhaseProblems.
void AddProblem(detail::Phase& ph, const GemmProblem& p) {
  if (ph.count >= detail::kMaxPhaseProblems) throw std::logic_error("the learner's step program is larger than the kernel's limits");
  ph.p[ph.count++] = p;
}

/// Appends a phase to the program: products (kGemm) or one of the step's reductions.
detail::Phase& AddPhase(CoreProgram& pr, PhaseKind kind, std::initializer_list<GemmProblem> problems = {}) {
  if (pr.phases >= detail::kMaxPhases) throw std::logic_error("the learner's step program is larger than the kernel's limits");
  detail::Phase& ph = pr.phase[pr.phases++];
  ph.kind = kind;
  for (const GemmProblem& p : problems) AddProblem(ph, p);
  return ph;
}

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

/// True when a counter that advanced by `by` to `now` passed a multiple of `interval`.
bool Crossed(int64_t now, int64_t by, int64_t interval) { return now / interval != (now - by) / interval; }

}  // namespace

CudaLearner::CudaLearner(const NetConfig& net, const LearnerConfig& config, uint64_t seed,
                         std::vector<FeatureGroup> causal_features, DeviceBlockSource* blocks)
    : layout_(net),
      config_(config),
      causal_features_(std::move(causal_features)),
      precision_(config.precision),
      act_ws_(layout_, config.act_rows) {
  ValidateLearner(net, config, causal_features_);
  if (config.batch_size > 65536)
    throw std::invalid_argument("batch_size must be in [1, 65536], got " + std::to_string(config.batch_size));
  if (config.steps_per_launch < 1 || config.steps_per_launch > 64)
    throw std::invalid_argument("steps_per_launch must be in [1, 64], got " + std::to_string(config.steps_per_launch));
  if (config.actor_sync_interval < 1)
    throw std::invalid_argument("actor_sync_interval must be >= 1, got " + std::to_string(config.actor_sync_interval));
  simulate_sticky_step_ = EnvInt("DQN_SIMULATE_STICKY_ERROR", -1);

  detail::LearnerParams& p = params_;
  p.options = config;
  p.batch = static_cast<int>(config.batch_size);
  p.n_actions = net.n_actions;
  p.dueling = net.dueling;
  p.n_params = layout_.size();

  const int64_t b = config.batch_size, d = net.state_dim, a = net.n_actions, n = layout_.size();
  const auto& trunk = layout_.trunk();
  // Slots of the gradient norm's partials: one per output tile of every weight gradient [W; b].
  int64_t norm_slots = 0;
  for (const DenseSlot& s : trunk) norm_slots += detail::TileCount(s.in + 1, s.out);
  if (net.dueling) norm_slots += detail::TileCount(layout_.value().in + 1, layout_.value().out);
  norm_slots += detail::TileCount(layout_.advantage().in + 1, layout_.advantage().out);
  int64_t groups = static_cast<int64_t>(causal_features_.size()), group_cols = 0;
  for (const FeatureGroup& g : causal_features_) group_cols += static_cast<int64_t>(g.indices.size());
  const int64_t probe_rows = groups > 0 ? (groups + 1) * b : 0;

  // The step kernel's blocks: all resident at once (its phases meet at grid-wide barriers).
  Check(detail::CoreBlocks(precision_, &core_blocks_), "sizing the learner kernel's grid");

  buf_ = new Buffers();
  Buffers& B = *buf_;
  auto carve = [&](Carver& c) {
    B.online = c.take<float>(n), B.target = c.take<float>(n), B.grads = c.take<float>(n);
    B.m = c.take<float>(n), B.v = c.take<float>(n);
    B.batch.indices = c.take<int32_t>(b);
    B.batch.generations = c.take<uint32_t>(b);
    B.batch.weights = c.take<float>(b);
    B.x = c.take<float>(2 * b * d);
    B.batch.states = B.x;
    B.batch.next_states = B.x ? B.x + b * d : nullptr;
    B.batch.actions = c.take<int32_t>(b);
    B.batch.rewards = c.take<float>(b);
    B.batch.dones = c.take<uint8_t>(b);
    B.batch.discounts = c.take<float>(b);
    B.batch.probabilities = c.take<double>(b);
    B.h_on.clear(), B.h_tg.clear(), B.h_probe.clear();
    for (const DenseSlot& s : trunk) {
      B.h_on.push_back(c.take<float>(2 * b * s.out));
      B.h_tg.push_back(c.take<float>(b * s.out));
      B.h_probe.push_back(c.take<float>(probe_rows * s.out));
    }
    B.v_on = c.take<float>(2 * b), B.a_on = c.take<float>(2 * b * a);
    B.v_tg = c.take<float>(b), B.a_tg = c.take<float>(b * a);
    B.d_v = c.take<float>(b), B.d_a = c.take<float>(b * a);
    B.head_sums = c.take<float>(layout_.advantage().in);
    B.dh[0] = c.take<float>(b * layout_.max_width()), B.dh[1] = c.take<float>(b * layout_.max_width());
    B.td = c.take<float>(b);
    B.ctl = c.take<detail::LearnerControl>(1);
    B.barrier = c.take<detail::GridBarrier>(1);
    B.stamps = c.take<uint64_t>(detail::StampCount(detail::kMaxPhases, core_blocks_));
    B.tile_stamps = c.take<uint64_t>(detail::TileStamp(detail::kMaxPhases, 0, core_blocks_));
    B.scalars = c.take<ScalarBlock>(1);
    B.partials.loss = c.take<double>(8 * detail::kMaxPartialBlocks);
    B.partials.flags = c.take<uint32_t>(detail::kMaxPartialBlocks);
    B.partials.norm = c.take<double>(norm_slots);
    B.partials.norm_slots = static_cast<int>(norm_slots);
    B.probe.inputs = c.take<float>(probe_rows * d);
    B.v_probe = c.take<float>(probe_rows), B.a_probe = c.take<float>(probe_rows * a);
    B.probe.per_group = c.take<double>(groups);
    B.probe.group_start = c.take<int32_t>(groups + 1);
    B.probe.group_cols = c.take<int32_t>(group_cols);
  };
  Carver measure(nullptr);
  carve(measure);
  if (blocks) {
    try {
      block_ = blocks->take(measure.used());
    } catch (...) {
      delete buf_;
      buf_ = nullptr;
      throw;
    }
  } else {
    size_t free_bytes = 0, total_bytes = 0;
    Check(cudaMemGetInfo(&free_bytes, &total_bytes), "reading free device memory");
    if (const cudaError_t e = cudaMalloc(&block_, measure.used()); e != cudaSuccess) {
      cudaGetLastError();
      delete buf_;
      buf_ = nullptr;
      throw CudaError(Status::kErrorOutOfMemory, e,
                      "out of memory: the learner needs " + GiB(measure.used()) + " GiB, " + GiB(free_bytes) + " GiB free");
    }
    owns_block_ = true;
  }
  try {
    Carver place(block_);
    carve(place);
    B.on = ParamView(layout_, B.online), B.tg = ParamView(layout_, B.target), B.gr = ParamView(layout_, B.grads);
    B.groups = static_cast<int>(groups);
    B.probe.groups = static_cast<int>(groups);
    B.probe.state_dim = static_cast<int>(d);
    B.probe.states = B.x;
    B.probe.v = net.dueling ? B.v_probe : nullptr;
    B.probe.a = B.a_probe;
    Check(cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking), "creating the learner stream");
    work_stream_ = own_stream_;
    Check(cudaEventCreateWithFlags(&act_event_, cudaEventDisableTiming), "creating the actor event");

    // Pinned host memory: the scalar block, the acting copies, the staged batch.
    const auto pinned = [&](size_t bytes) {
      void* ptr = nullptr;
      Check(cudaHostAlloc(&ptr, bytes, cudaHostAllocDefault), "allocating pinned host memory");
      pinned_.push_back(ptr);
      std::memset(ptr, 0, bytes);
      return ptr;
    };
    pinned_scalars_ = new (pinned(sizeof(ScalarBlock))) ScalarBlock();
    staged_per_ = new (pinned(sizeof(ScalarBlock))) ScalarBlock();
    for (float*& act : act_) act = static_cast<float*>(pinned(static_cast<size_t>(n) * sizeof(float)));
    act_view_ = {ParamView(layout_, act_[0]), ParamView(layout_, act_[1])};
    auto carve_staged = [&](Carver& c) {
      CarveBatch(c, staged_, b, d);
      staged_td_ = c.take<float>(b);
    };
    Carver staged_size(nullptr);
    carve_staged(staged_size);
    Carver staged_place(pinned(staged_size.used()));
    carve_staged(staged_place);

    // Weights as the CPU learner draws them, copied in; the target network starts equal.
    LearnerTensors init;
    init.online.resize(static_cast<size_t>(n));
    Rng init_rng(seed, /*stream=*/0);
    InitParams(layout_, init.online.data(), init_rng);
    init.target = init.online;
    init.adam_m.assign(init.online.size(), 0.0f);
    init.adam_v.assign(init.online.size(), 0.0f);
    upload_params(init);

    Check(cudaMemsetAsync(B.barrier, 0, sizeof(detail::GridBarrier), own_stream_), "clearing the learner kernel's barrier");

    const detail::LearnerControl ctl{};
    Check(cudaMemcpyAsync(B.ctl, &ctl, sizeof ctl, cudaMemcpyHostToDevice, own_stream_), "initialising the learner state");
    const ScalarBlock zero{};
    Check(cudaMemcpyAsync(B.scalars, &zero, sizeof zero, cudaMemcpyHostToDevice, own_stream_), "initialising the scalars");
    std::vector<int32_t> starts{0}, cols;
    for (const FeatureGroup& g : causal_features_) {
      cols.insert(cols.end(), g.indices.begin(), g.indices.end());
      starts.push_back(static_cast<int32_t>(cols.size()));
    }
    if (groups > 0) {
      Check(cudaMemcpyAsync(const_cast<int32_t*>(B.probe.group_start), starts.data(), starts.size() * 4,
                            cudaMemcpyHostToDevice, own_stream_), "uploading the probe's feature groups");
      Check(cudaMemcpyAsync(const_cast<int32_t*>(B.probe.group_cols), cols.data(), cols.size() * 4,
                            cudaMemcpyHostToDevice, own_stream_), "uploading the probe's feature groups");
    }
    Synchronize(own_stream_, "initialising the learner");
  } catch (...) {
    release();
    throw;
  }
}

CudaLearner::~CudaLearner() { release(); }

void CudaLearner::release() {
  if (work_stream_) SynchronizeNoThrow(work_stream_);
  if (own_stream_) SynchronizeNoThrow(own_stream_), cudaStreamDestroy(own_stream_), own_stream_ = nullptr;
  work_stream_ = nullptr;
  for (cudaGraphExec_t* e : {&step_exec_, &staged_exec_, &probe_exec_}) DestroyGraph(e);
  for (InsertSlot& s : insert_ring_)
    if (s.done) cudaEventDestroy(s.done);
  insert_ring_.clear();
  if (insert_pinned_) cudaFreeHost(insert_pinned_), insert_pinned_ = nullptr;
  if (insert_device_) cudaFree(insert_device_), insert_device_ = nullptr;
  if (act_event_) cudaEventDestroy(act_event_), act_event_ = nullptr;
  for (void* ptr : pinned_) cudaFreeHost(ptr);
  pinned_.clear();
  if (block_ && owns_block_) cudaFree(block_);
  block_ = nullptr;
  delete buf_;
  buf_ = nullptr;
}

void CudaLearner::upload_params(const LearnerTensors& t) {
  CheckTensorSizes(t, layout_.size());
  const size_t bytes = static_cast<size_t>(layout_.size()) * sizeof(float);
  const std::pair<float*, const float*> copies[] = {{buf_->online, t.online.data()}, {buf_->target, t.target.data()},
                                                    {buf_->m, t.adam_m.data()},      {buf_->v, t.adam_v.data()}};
  for (const auto& [dst, src] : copies)
    Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, work_stream_), "uploading the learner's weights");
  std::memcpy(act_[act_cur_], t.online.data(), bytes);
  Synchronize(work_stream_, "uploading the learner's weights");
}

// ---- The step: every launch below is capturable (no sync, no allocation, no host reads). ----

void CudaLearner::profile_step(Replay& replay, double* phases_us, std::vector<PhaseProfile>* per_phase) {
  CudaReplay* gpu = device_replay(replay);
  if (!gpu) throw std::invalid_argument("profile_step needs a replay on the GPU");
  work_stream_ = gpu->stream();
  Buffers& B = *buf_;
  CoreProgram pr = step_program(&gpu->view(), nullptr);
  profile_launch(
      work_stream_, pr, [&] { gpu->sample_device(params_.batch, B.batch); },
      [&] { gpu->update_device(B.batch.indices, B.batch.generations, B.td, params_.batch); }, phases_us, per_phase);
  ++steps_;
}

void CudaLearner::profile_launch(cudaStream_t s, CoreProgram& pr, const std::function<void()>& sample,
                                 const std::function<void()>& update, double* phases_us, std::vector<PhaseProfile>* per_phase) {
  Buffers& B = *buf_;
  pr.stamps = B.stamps;
  pr.tile_stamps = B.tile_stamps;
  cudaEvent_t ev[4];
  for (cudaEvent_t& e : ev) Check(cudaEventCreate(&e), "creating a profiling event");
  Check(cudaEventRecord(ev[0], s), "recording an event");
  sample();
  Check(cudaEventRecord(ev[1], s), "recording an event");
  Check(cudaMemsetAsync(B.tile_stamps, 0, tile_stamp_bytes(pr.phases), s), "clearing the tile stamps");
  launch_core(pr, s, "launching the learner step");
  Check(cudaEventRecord(ev[2], s), "recording an event");
  update();
  Check(cudaEventRecord(ev[3], s), "recording an event");
  Synchronize(s, "profiling a step");
  float ms[3] = {};
  for (int i = 0; i < 3; ++i) Check(cudaEventElapsedTime(&ms[i], ev[i], ev[i + 1]), "reading a profiling event");
  for (cudaEvent_t e : ev) cudaEventDestroy(e);
  summarize_profile(pr, ms, phases_us, per_phase);
}

size_t CudaLearner::tile_stamp_bytes(int phases) const {
  return sizeof(uint64_t) * static_cast<size_t>(detail::TileStamp(phases, 0, core_blocks_));
}

void CudaLearner::summarize_profile(const CoreProgram& pr, const float (&ms)[3], double* phases_us,
                                    std::vector<PhaseProfile>* per_phase) const {
  Buffers& B = *buf_;
  const size_t tile_bytes = tile_stamp_bytes(pr.phases);
  const int blocks = core_blocks_;
  std::vector<uint64_t> stamps(static_cast<size_t>(detail::StampCount(pr.phases, blocks)));
  copy_now(stamps.data(), B.stamps, sizeof(uint64_t) * stamps.size(), "reading the phase times");
  std::vector<uint64_t> tile_stamps(tile_bytes / sizeof(uint64_t));
  copy_now(tile_stamps.data(), B.tile_stamps, tile_bytes, "reading the tile times");
  if (!phases_us) return;
  const auto at = [&](int ph, int b, int what) { return 1e-3 * static_cast<double>(stamps[detail::Stamp(ph, b, what, blocks)]); };
  if (per_phase) {
    per_phase->resize(static_cast<size_t>(pr.phases));
    for (int k = 0; k < pr.phases; ++k) {
      double work_max = 0, work_sum = 0, last_arrival = 0, first_release = 1e300;
      int critical = 0;
      for (int b = 0; b < blocks; ++b) {
        const double work = at(k, b, 1) - at(k, b, 0);
        if (work > work_max) work_max = work, critical = b;
        work_sum += work;
        last_arrival = std::max(last_arrival, at(k, b, 1));
        first_release = std::min(first_release, at(k + 1, b, 0));
      }
      PhaseProfile& f = (*per_phase)[static_cast<size_t>(k)];
      f.total_us += at(k + 1, 0, 0) - at(k, 0, 0);
      f.work_max_us += work_max;
      f.work_mean_us += work_sum / blocks;
      f.barrier_us += first_release - last_arrival;
      // The busiest block's first tile, when it had one.
      const uint64_t* ts = tile_stamps.data() + detail::TileStamp(k, critical, blocks);
      if (ts[0] != 0 && ts[3] != 0) {
        const double t0 = 1e-3 * static_cast<double>(ts[0]), t1 = 1e-3 * static_cast<double>(ts[1]);
        const double t2 = 1e-3 * static_cast<double>(ts[2]), t3 = 1e-3 * static_cast<double>(ts[3]);
        f.tile_steps += 1;
        f.tile_lead_us += t0 - at(k, critical, 0);
        f.tile_first_chunk_us += t1 - t0;
        f.tile_k_loop_us += t2 - t1;
        f.tile_epilogue_us += t3 - t2;
        f.tile_tail_us += at(k, critical, 1) - t3;
      }
    }
  }
  // Parts of the program, read from its phase kinds: products up to the loss (forward), the
  // loss, products up to the optimizer (backward), the optimizer (block 0's phase starts).
  int loss = 0, optimizer = 0;
  for (int k = 0; k < pr.phases; ++k) {
    if (pr.phase[k].kind == PhaseKind::kTdLoss) loss = k;
    if (pr.phase[k].kind == PhaseKind::kOptimizer) optimizer = k;
  }
  const int ends[4] = {loss, loss + 1, optimizer, optimizer + 1};
  int begin = 0;
  for (int k = 0; k < 4; ++k) {
    phases_us[1 + k] += at(ends[k], 0, 0) - at(begin, 0, 0);
    begin = ends[k];
  }
  const double inside = at(pr.phases, 0, 0) - at(0, 0, 0);
  phases_us[0] += 1e3 * ms[0];
  phases_us[5] += 1e3 * ms[2];
  phases_us[6] += 1e3 * ms[1] - inside;  // the step kernel's launch and drain, outside its phases
}

void CudaLearner::launch_core(const CoreProgram& pr, cudaStream_t s, const char* what, int blocks) {
  Check(detail::LaunchCore(pr, precision_, blocks > 0 ? blocks : core_blocks_, s), what);
}

void CudaLearner::add_forward(CoreProgram& pr, const Pass& on, const Pass* tg) const {
  const bool dueling = layout_.config().dueling;
  const float* x_on = on.x;
  const float* x_tg = tg ? tg->x : nullptr;
  for (size_t l = 0; l < on.net->trunk.size(); ++l) {
    const GemmProblem p_on = Dense(on.net->trunk[l], x_on, on.rows, on.h[l], true);
    if (tg) AddPhase(pr, PhaseKind::kGemm, {p_on, Dense(tg->net->trunk[l], x_tg, tg->rows, tg->h[l], true)});
    else AddPhase(pr, PhaseKind::kGemm, {p_on});
    x_on = on.h[l];
    if (tg) x_tg = tg->h[l];
  }
  // Heads: V and A (the dueling combine happens where Q is read).
  const GemmProblem a_on = Dense(on.net->advantage, x_on, on.rows, on.a, false);
  if (!dueling && !tg) return void(AddPhase(pr, PhaseKind::kGemm, {a_on}));
  if (!dueling) return void(AddPhase(pr, PhaseKind::kGemm, {a_on, Dense(tg->net->advantage, x_tg, tg->rows, tg->a, false)}));
  const GemmProblem v_on = Dense(on.net->value, x_on, on.rows, on.v, false);
  if (!tg) return void(AddPhase(pr, PhaseKind::kGemm, {v_on, a_on}));
  AddPhase(pr, PhaseKind::kGemm, {v_on, a_on, Dense(tg->net->value, x_tg, tg->rows, tg->v, false),
                                  Dense(tg->net->advantage, x_tg, tg->rows, tg->a, false)});
}

void CudaLearner::add_backward(CoreProgram& pr) const {
  const Buffers& B = *buf_;
  const int b = params_.batch;
  // Each weight gradient's output tiles leave their sums of squares in its own slots.
  double* slot = B.partials.norm;
  const auto weight_grad = [&](const DenseView& g, const float* x, const float* dy, int rows) {
    GemmProblem p = WeightGrad(g, x, dy, rows);
    p.sq = slot;
    slot += detail::TileCount(p.m, p.n);
    return p;
  };
  const size_t top = B.on.trunk.size() - 1;
  const float* feat = B.h_on[top];  // the first B rows: the states s
  // The head's weight gradients (its input gradient came from the loss phase, in dh[0]) beside
  // the top trunk layer's products.
  GemmProblem head[2];
  int heads = 0;
  if (layout_.config().dueling) head[heads++] = weight_grad(B.gr.value, feat, B.d_v, b);
  head[heads++] = weight_grad(B.gr.advantage, feat, B.d_a, b);
  // Trunk, top down: each layer's weight gradient and the gradient of its input in one phase.
  int cur = 0;
  for (size_t l = top + 1; l-- > 0;) {
    const float* x = l == 0 ? B.x : B.h_on[l - 1];
    const GemmProblem dw = weight_grad(B.gr.trunk[l], x, B.dh[cur], b);
    detail::Phase& ph = AddPhase(pr, PhaseKind::kGemm, {dw});
    if (l > 0) {
      AddProblem(ph, InputGrad(B.on.trunk[l], B.dh[cur], b, B.dh[1 - cur], B.h_on[l - 1]));
      cur = 1 - cur;
    }
    if (l == top)
      for (int k = 0; k < heads; ++k) AddProblem(ph, head[k]);
  }
}

detail::TdLossArgs CudaLearner::loss_args() const {
  const Buffers& B = *buf_;
  const bool dueling = layout_.config().dueling;
  detail::TdLossArgs t;
  t.v_online = dueling ? B.v_on : nullptr;
  t.a_online = B.a_on;
  t.v_target = dueling ? B.v_tg : nullptr;
  t.a_target = B.a_tg;
  t.actions = B.batch.actions, t.rewards = B.batch.rewards, t.discounts = B.batch.discounts, t.weights = B.batch.weights;
  t.td = B.td;
  t.d_value = dueling ? B.d_v : nullptr;
  t.d_adv = B.d_a;
  t.features = B.h_on.back();  // its first B rows: the states s
  t.width = B.on.advantage.in;
  t.adv_w = B.on.advantage.w;
  t.value_w = dueling ? B.on.value.w : nullptr;
  t.adv_row_sums = B.head_sums;
  t.d_features = B.dh[0];
  return t;
}

CoreProgram CudaLearner::step_program(const detail::ReplayView* replay, uint64_t* stamps) const {
  const Buffers& B = *buf_;
  const int b = params_.batch;
  CoreProgram pr;
  pr.params = params_;
  pr.loss = loss_args();
  pr.grads = B.grads, pr.online = B.online, pr.target = B.target, pr.m = B.m, pr.v = B.v;
  pr.ctl = B.ctl, pr.partials = B.partials, pr.scalars = B.scalars;
  pr.barrier = B.barrier;
  pr.stamps = stamps;
  // 1-2. Online Q of s and s' as one product of 2B rows, target Q of s' (its B rows) beside it;
  // the row sums of the advantage weights (for the loss phase's input gradient) beside the head.
  const Pass target{&B.tg, B.x + static_cast<int64_t>(b) * layout_.config().state_dim, b, B.h_tg, B.v_tg, B.a_tg};
  add_forward(pr, Pass{&B.on, B.x, 2 * b, B.h_on, B.v_on, B.a_on}, &target);
  if (replay) pr.group.per[0] = detail::MakePerView(*replay), pr.phase[0].side = detail::SideJob::kPerScalars;
  pr.phase[pr.phases - 1].side = detail::SideJob::kHeadSums;
  // 3-4. Double DQN target, IS-weighted Huber loss, TD errors, dL/dV, dL/dA and dL/dfeatures;
  // the loss's partials are folded beside the top layer's backward products.
  const int loss_phase = pr.phases;
  AddPhase(pr, PhaseKind::kTdLoss);
  add_backward(pr);
  pr.phase[loss_phase + 1].side = detail::SideJob::kFoldLoss;
  // The schedules (for the optimizer phase) beside the first phase without a side job.
  for (int k = 0; k < pr.phases; ++k)
    if (pr.phase[k].side == detail::SideJob::kNone) {
      pr.phase[k].side = detail::SideJob::kSchedules;
      break;
    }
  // 6-7. Global-norm clip (the norm from the backward products' tile sums) and Adam, then the
  // target network.
  AddPhase(pr, PhaseKind::kOptimizer);
  return pr;
}

void CudaLearner::build_step(cudaStream_t s, const detail::ReplayView* replay) {
  launch_core(step_program(replay, nullptr), s, "launching the learner step");
}

void CudaLearner::queue_scalars(cudaStream_t s) {
  constexpr size_t kBytes = sizeof(ScalarBlock) - kLearnerScalarsBegin;
  Check(cudaMemcpyAsync(reinterpret_cast<char*>(pinned_scalars_) + kLearnerScalarsBegin,
                        reinterpret_cast<const char*>(buf_->scalars) + kLearnerScalarsBegin, kBytes, cudaMemcpyDeviceToHost, s),
        "copying the scalar block to the host");
}

void CudaLearner::sample_into(CudaReplay& gpu) { gpu.sample_device(params_.batch, buf_->batch); }

// TD errors straight into the replay's priority update.
void CudaLearner::update_from(CudaReplay& gpu) {
  gpu.update_device(buf_->batch.indices, buf_->batch.generations, buf_->td, params_.batch);
}

void CudaLearner::queue_steps(cudaStream_t s, CudaReplay& gpu) {
  for (int k = 0; k < config_.steps_per_launch; ++k) {
    sample_into(gpu);
    build_step(s, &gpu.view());
    update_from(gpu);
  }
  queue_scalars(s);
}

void CudaLearner::queue_staged(cudaStream_t s) {
  const int64_t b = params_.batch, d = layout_.config().state_dim;
  const detail::SampleView& dst = buf_->batch;
  const auto h2d = [&](void* to, const void* from, size_t bytes) {
    Check(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, s), "copying the staged batch to the GPU");
  };
  h2d(dst.indices, staged_.indices, b * 4);
  h2d(dst.generations, staged_.generations, b * 4);
  h2d(dst.weights, staged_.weights, b * 4);
  h2d(dst.states, staged_.states, b * d * 4);
  h2d(dst.next_states, staged_.next_states, b * d * 4);
  h2d(dst.actions, staged_.actions, b * 4);
  h2d(dst.rewards, staged_.rewards, b * 4);
  h2d(dst.discounts, staged_.discounts, b * 4);
  // PER health of the CPU replay, as of its last update.
  constexpr size_t kPerBegin = offsetof(ScalarBlock, nan_td_rejected), kPerEnd = offsetof(ScalarBlock, causal_per_feature);
  h2d(reinterpret_cast<char*>(buf_->scalars) + kPerBegin, reinterpret_cast<char*>(staged_per_) + kPerBegin, kPerEnd - kPerBegin);
  build_step(s, nullptr);
  Check(cudaMemcpyAsync(staged_td_, buf_->td, b * 4, cudaMemcpyDeviceToHost, s), "copying TD errors to the host");
  queue_scalars(s);
}

CudaReplay* CudaLearner::device_replay(Replay& replay) {
  if (auto* fb = dynamic_cast<FallbackReplay*>(&replay)) return fb->gpu();
  return dynamic_cast<CudaReplay*>(&replay);
}

uint32_t CudaLearner::train(Replay& replay, ScalarBlock& out) {
  return guarded([&] {
    CudaReplay* gpu = device_replay(replay);
    if (!gpu) return train_staged(replay, out);
    work_stream_ = gpu->stream();
    // The first launch runs eagerly (it also meets a failing replay kernel outside any capture);
    // rank-based sampling re-sorts on a host schedule, so its steps are not captured.
    const bool graphs = use_graphs_ && launches_ > 0 && gpu->view().sampler != detail::SamplerKind::kRank;
    try {
      if (step_exec_replay_ != gpu) DestroyGraph(&step_exec_);
      step_exec_replay_ = gpu;  // the graph bakes in this replay's buffers
      RunGraph(work_stream_, graphs, &step_exec_, "launching the step graph", [&] { queue_steps(work_stream_, *gpu); });
    } catch (const CudaError& e) {
      // A non-sticky replay failure: the buffer moves to the CPU for the rest of the run
      // (DESIGN section 5) and this step runs on the staged path.
      auto* fb = dynamic_cast<FallbackReplay*>(&replay);
      if (e.sticky() || !fb) throw;
      DestroyGraph(&step_exec_);
      step_exec_replay_ = nullptr;
      fb->fall_back(e.what());
      work_stream_ = own_stream_;
      return train_staged(replay, out);
    }
    ++launches_;
    steps_ += config_.steps_per_launch;
    after_launch(work_stream_);
    publish(out);
    return pinned_scalars_->nan_flags;
  });
}

uint32_t CudaLearner::train_staged(Replay& replay, ScalarBlock& out) {
  cudaStream_t s = work_stream_ = own_stream_;
  staged_per_->beta = replay.beta();
  replay.sample(params_.batch, staged_);
  RunGraph(s, use_graphs_ && launches_ > 0, &staged_exec_, "launching the staged step graph", [&] { queue_staged(s); });
  ++launches_;
  ++steps_;
  // The CPU replay needs this step's TD errors on the host: this path waits every step.
  Synchronize(s, "running a training step on a staged batch");
  publish(out);
  const uint32_t flags = pinned_scalars_->nan_flags;
  if (flags) return flags;
  const UpdateResult u = replay.update_priorities(staged_.indices, staged_.generations, staged_td_, params_.batch);
  staged_per_->nan_td_rejected += u.rejected_nonfinite;
  staged_per_->per_total = replay.total_priority();
  staged_per_->per_max_priority = replay.max_priority();
  after_launch(s);
  return 0;
}

void CudaLearner::after_launch(cudaStream_t s) {
  const int64_t k = config_.steps_per_launch;
  if (buf_->groups > 0 && Crossed(steps_, k, config_.causal_interval)) {
    // The causal probe of DESIGN section 4, its own graph: the batch's states under the updated weights.
    RunGraph(s, use_graphs_, &probe_exec_, "launching the causal probe", [&] {
      launch_probe(s);
      queue_scalars(s);
    });
  }
  if (!act_in_flight_ && Crossed(steps_, k, config_.actor_sync_interval)) {
    Check(cudaMemcpyAsync(act_[1 - act_cur_], buf_->online, static_cast<size_t>(layout_.size()) * sizeof(float),
                          cudaMemcpyDeviceToHost, s),
          "copying the acting weights");
    Check(cudaEventRecord(act_event_, s), "recording the acting weights' copy");
    act_in_flight_ = true;
  }
  if (simulate_sticky_step_ > 0 && Crossed(steps_, k, simulate_sticky_step_) && steps_ >= simulate_sticky_step_) {
    simulate_sticky_step_ = -1;
    Check(detail::LaunchKernelFault(s), "launching the simulated kernel fault");
  }
}

void CudaLearner::launch_probe(cudaStream_t s) {
  Buffers& B = *buf_;
  const int b = params_.batch, rows = (B.groups + 1) * b;
  Check(detail::LaunchProbeInputs(B.probe, b, s), "launching the causal probe's inputs");
  CoreProgram pr;
  pr.params = params_;
  pr.barrier = B.barrier;
  add_forward(pr, Pass{&B.on, B.probe.inputs, rows, B.h_probe, B.v_probe, B.a_probe}, nullptr);
  launch_core(pr, s, "launching the causal probe's forward pass");
  Check(detail::LaunchProbeReduce(params_, B.probe, B.ctl, B.scalars, s), "launching the causal probe's reduction");
}

void CudaLearner::queue_act_forward(const ActForward& act, cudaStream_t s) {
  if (act.rows < 1 || act.x == nullptr || act.a == nullptr || act.h.size() != buf_->on.trunk.size() ||
      (layout_.config().dueling && act.v == nullptr))
    throw std::invalid_argument("the acting forward needs rows >= 1, observations, one buffer per hidden layer (" +
                                std::to_string(buf_->on.trunk.size()) + "), A and, with dueling heads, V");
  CoreProgram pr;
  pr.params = params_;
  pr.barrier = buf_->barrier;
  add_forward(pr, Pass{&buf_->on, act.x, act.rows, act.h, act.v, act.a}, nullptr);
  // As many blocks as its widest phase has output tiles (a block walks one tile at a time; each
  // tile's arithmetic is the same on any block): a few copies' forward then meets at barriers of
  // a few blocks instead of one per multiprocessor.
  int widest = 1;
  for (int ph = 0; ph < pr.phases; ++ph) {
    int tiles = 0;
    for (int k = 0; k < pr.phase[ph].count; ++k) tiles += detail::TileCount(pr.phase[ph].p[k].m, pr.phase[ph].p[k].n);
    widest = std::max(widest, tiles);
  }
  guarded([&] { launch_core(pr, s, "launching the acting forward pass", std::min(widest, core_blocks_)); });
}

void CudaLearner::publish(ScalarBlock& out) const {
  if (&out != pinned_scalars_) CopyLearnerScalars(*pinned_scalars_, out);
}

void CudaLearner::copy_now(void* dst, const void* src, size_t bytes, const char* what) const {
  Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, work_stream_), what);
  Synchronize(work_stream_, what);
}

uint32_t CudaLearner::finish(ScalarBlock& out) {
  return guarded([&] {
    Synchronize(work_stream_, "finishing the queued training steps");
    publish(out);
    return pinned_scalars_->nan_flags;
  });
}

void CudaLearner::grow_insert(int64_t rows) {
  Synchronize(work_stream_, "growing the insert staging");
  for (InsertSlot& slot : insert_ring_) cudaEventDestroy(slot.done);
  insert_ring_.clear();
  if (insert_pinned_) cudaFreeHost(insert_pinned_), insert_pinned_ = nullptr;
  if (insert_device_) cudaFree(insert_device_), insert_device_ = nullptr;
  insert_rows_ = std::max<int64_t>(rows, 64);
  const int64_t d = layout_.config().state_dim;
  // Six arrays per slot, each rounded up to kCarveAlign by the Carver; slots start aligned too.
  const size_t row_bytes = static_cast<size_t>(2 * d * 4 + 4 + 4 + 4 + 1);
  const size_t bytes = (static_cast<size_t>(insert_rows_) * row_bytes + 6 * kCarveAlign + kCarveAlign - 1) / kCarveAlign * kCarveAlign;
  Check(cudaMalloc(&insert_device_, bytes), "allocating the insert staging");
  Check(cudaHostAlloc(&insert_pinned_, bytes * kInsertSlots, cudaHostAllocDefault), "allocating pinned insert staging");
  insert_ring_.resize(kInsertSlots);
  for (size_t i = 0; i < insert_ring_.size(); ++i) {
    insert_ring_[i].host = static_cast<char*>(insert_pinned_) + i * bytes;
    Check(cudaEventCreateWithFlags(&insert_ring_[i].done, cudaEventDisableTiming), "creating an insert event");
  }
}

void CudaLearner::insert(Replay& replay, const TransitionBatch& batch) {
  guarded([&] {
    CudaReplay* gpu = device_replay(replay);
    if (!gpu || batch.count == 0) {
      if (batch.count > 0) replay.insert(batch);
      return;
    }
    if (batch.count > insert_rows_) grow_insert(batch.count);
    InsertSlot& slot = insert_ring_[insert_next_];
    insert_next_ = (insert_next_ + 1) % insert_ring_.size();
    // The slot's last copy must be done before its memory is rewritten; with kInsertSlots in
    // flight this waits only when collection runs further ahead than the launch queue allows.
    if (const cudaError_t e = cudaEventQuery(slot.done); e == cudaErrorNotReady) WaitEvent(slot.done, "reusing insert staging");
    else Check(e, "checking the insert staging");
    const int64_t n = batch.count, d = layout_.config().state_dim;
    dqn::detail::ValidateTransitionBatch(batch, static_cast<int>(d));
    auto carve = [&](Carver& c, detail::InsertView& v) {
      CarveTransitions(c, v, insert_rows_, d);
      return c.used();
    };
    detail::InsertView host, dev;
    Carver hc(slot.host), dc(insert_device_);
    const size_t used = carve(hc, host);
    carve(dc, dev);
    std::memcpy(const_cast<float*>(host.states), batch.states, n * d * 4);
    std::memcpy(const_cast<float*>(host.next_states), batch.next_states, n * d * 4);
    std::memcpy(const_cast<int32_t*>(host.actions), batch.actions, n * 4);
    std::memcpy(const_cast<float*>(host.rewards), batch.rewards, n * 4);
    std::memcpy(const_cast<uint8_t*>(host.dones), batch.dones, n);
    if (batch.discounts) std::memcpy(const_cast<float*>(host.discounts), batch.discounts, n * 4);
    else dev.discounts = nullptr;
    Check(cudaMemcpyAsync(insert_device_, slot.host, used, cudaMemcpyHostToDevice, gpu->stream()),
          "copying transitions to the GPU");
    gpu->insert_device(dev, n);
    Check(cudaEventRecord(slot.done, gpu->stream()), "recording the insert copy");
  });
}

void CudaLearner::greedy(const float* states, int64_t rows, int32_t* actions) {
  guarded([&] {
    if (act_in_flight_ && config_.deterministic) {
      // The weights of the refresh queued at a fixed step act from the first action after it.
      WaitEvent(act_event_, "refreshing the acting weights");
      act_cur_ = 1 - act_cur_, act_in_flight_ = false;
    } else if (act_in_flight_) {
      const cudaError_t e = cudaEventQuery(act_event_);  // never a wait
      if (e == cudaSuccess) act_cur_ = 1 - act_cur_, act_in_flight_ = false;
      else if (e != cudaErrorNotReady) Check(e, "refreshing the acting weights");
    }
  });
  GreedyActions(layout_, act_view_[static_cast<size_t>(act_cur_)], states, rows, act_ws_, actions);
}

void CudaLearner::refresh_actor() {
  guarded([&] {
    if (act_in_flight_) WaitEvent(act_event_, "refreshing the acting weights"), act_in_flight_ = false;
    Check(cudaMemcpyAsync(act_[act_cur_], buf_->online, static_cast<size_t>(layout_.size()) * sizeof(float),
                          cudaMemcpyDeviceToHost, work_stream_),
          "copying the acting weights");
    Synchronize(work_stream_, "refreshing the acting weights");
  });
}

void CudaLearner::set_steps(int64_t steps) {
  guarded([&] {
    Synchronize(work_stream_, "setting the step counter");
    detail::LearnerControl ctl;
    copy_now(&ctl, buf_->ctl, sizeof ctl, "reading the learner state");
    ctl.t = steps, ctl.halted = 0, ctl.loss_flags = 0;
    copy_now(buf_->ctl, &ctl, sizeof ctl, "writing the learner state");
    ScalarBlock sc;
    copy_now(&sc, buf_->scalars, sizeof sc, "reading the scalars");
    sc.step = steps, sc.nan_flags = 0;
    copy_now(buf_->scalars, &sc, sizeof sc, "writing the scalars");
    pinned_scalars_->step = steps, pinned_scalars_->nan_flags = 0;
    steps_ = steps;
  });
}

void CudaLearner::inject_nan(uint32_t flag, int64_t at_step) {
  guarded([&] {
    Synchronize(work_stream_, "arming a fault injection");
    detail::LearnerControl ctl;
    copy_now(&ctl, buf_->ctl, sizeof ctl, "reading the learner state");
    ctl.inject_flag = flag, ctl.inject_step = at_step;
    copy_now(buf_->ctl, &ctl, sizeof ctl, "writing the learner state");
  });
}

void CudaLearner::save_params(LearnerTensors& out) {
  guarded([&] {
    const size_t n = static_cast<size_t>(layout_.size());
    Synchronize(work_stream_, "reading the learner's weights");
    const std::pair<std::vector<float>*, const float*> copies[] = {
        {&out.online, buf_->online}, {&out.target, buf_->target}, {&out.adam_m, buf_->m}, {&out.adam_v, buf_->v}};
    for (const auto& [dst, src] : copies) {
      dst->resize(n);
      copy_now(dst->data(), src, n * sizeof(float), "reading the learner's weights");
    }
  });
}

void CudaLearner::load_params(const LearnerTensors& in) {
  guarded([&] {
    Synchronize(work_stream_, "replacing the learner's weights");
    upload_params(in);
  });
}

uint32_t CudaLearner::step_on_batch(const SampleBatch& batch, float* td) {
  return guarded([&] {
    cudaStream_t s = own_stream_;
    Synchronize(work_stream_, "starting a step on a given batch");
    work_stream_ = s;
    std::memcpy(staged_.indices, batch.indices, params_.batch * 4);
    std::memcpy(staged_.generations, batch.generations, params_.batch * 4);
    const int64_t b = params_.batch, d = layout_.config().state_dim;
    std::memcpy(staged_.weights, batch.weights, b * 4);
    std::memcpy(staged_.states, batch.states, b * d * 4);
    std::memcpy(staged_.next_states, batch.next_states, b * d * 4);
    std::memcpy(staged_.actions, batch.actions, b * 4);
    std::memcpy(staged_.rewards, batch.rewards, b * 4);
    std::memcpy(staged_.discounts, batch.discounts, b * 4);
    queue_staged(s);
    Synchronize(s, "running a step on a given batch");
    std::memcpy(td, staged_td_, b * 4);
    ++steps_;
    return pinned_scalars_->nan_flags;
  });
}

std::vector<std::vector<float>> CudaLearner::online_hidden() const {
  return guarded([&] {
    Synchronize(work_stream_, "reading the activations");
    std::vector<std::vector<float>> out;
    for (size_t l = 0; l < layout_.trunk().size(); ++l) {
      out.emplace_back(static_cast<size_t>(2 * params_.batch) * layout_.trunk()[l].out);
      copy_now(out.back().data(), buf_->h_on[l], out.back().size() * sizeof(float), "reading the activations");
    }
    return out;
  });
}

std::vector<float> CudaLearner::gradients() const {
  return guarded([&] {
    std::vector<float> g(static_cast<size_t>(layout_.size()));
    Synchronize(work_stream_, "reading the gradients");
    copy_now(g.data(), buf_->grads, g.size() * sizeof(float), "reading the gradients");
    return g;
  });
}

}  // namespace dqn::cuda
