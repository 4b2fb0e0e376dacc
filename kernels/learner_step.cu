// The CUDA learner's persistent step kernel and its probe kernels (see learner_launch.cuh).
// The step kernel walks a CoreProgram: grouped products (learner_tile.cuh), the TD loss with
// the head's input gradient, the gradient norm and Adam, with a grid-wide barrier between phases. Every formula mirrors the
// CPU reference (native/src/train/td_loss.cpp, adam.cpp, q_probes.cpp): the TD target in f64,
// Huber and its gradient as there, Adam in the same f32 operations. Reductions are
// deterministic: per-block partials in a fixed order, summed by the last block to finish (a
// counter in LearnerControl), so a step gives the same bits on every replay.
// Built with -dlcm=cg (native/CMakeLists.txt): a phase reads what other blocks wrote in an
// earlier phase of the same launch, so global loads must not be served from a stale L1 line.
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>

#include "kernels/learner_launch.cuh"
#include "kernels/learner_tile.cuh"
#include "rules/step_rules.h"

namespace dqn::cuda::detail {
namespace {

constexpr int kWarps = 8, kThreads = kWarps * 32;
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ float WarpSum(float x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(kFull, x, o);
  return x;
}
__device__ __forceinline__ double WarpSum(double x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(kFull, x, o);
  return x;
}
__device__ __forceinline__ double WarpMin(double x) {
  for (int o = 16; o > 0; o >>= 1) x = fmin(x, __shfl_xor_sync(kFull, x, o));
  return x;
}
__device__ __forceinline__ double WarpMax(double x) {
  for (int o = 16; o > 0; o >>= 1) x = fmax(x, __shfl_xor_sync(kFull, x, o));
  return x;
}

/// mean_a A(s, a) of one row, by one warp (the dueling combine's baseline).
__device__ __forceinline__ float RowMean(const float* adv, int n_actions, int lane) {
  float s = 0;
  for (int j = lane; j < n_actions; j += 32) s += adv[j];
  return WarpSum(s) / static_cast<float>(n_actions);
}

/// Q(s, a) = V(s) + A(s, a) - mean(A) (Wang et al. 2016, eq. 9); plain head: Q = A.
__device__ __forceinline__ float QValue(const float* v, const float* adv, int64_t row, int n_actions, float mean, int j) {
  const float a = adv[row * n_actions + j];
  return v ? rules::DuelingQ(v[row], a, mean) : a;
}

/// Argmax over lanes of (value, index), first index on ties, into every lane.
__device__ __forceinline__ void WarpArgmax(float& value, int& index) {
  for (int o = 16; o > 0; o >>= 1) {
    const float v = __shfl_xor_sync(kFull, value, o);
    const int i = __shfl_xor_sync(kFull, index, o);
    if (i >= 0 && (index < 0 || v > value || (v == value && i < index))) value = v, index = i;
  }
}

/// Marks this (virtual) block done; true in the last of `blocks` to finish (which then sees
/// every block's partials). Resets the counter for the next use.
__device__ bool LastBlock(uint32_t* counter, unsigned blocks) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(counter, 1u) == blocks - 1;
    if (last) *counter = 0;
  }
  __syncthreads();
  return last;
}

bool __device__ Injected(const LearnerControl* ctl, uint32_t flag, int64_t step) {
  return ctl->inject_flag == flag && ctl->inject_step == step;
}

enum LossField { kLoss, kSq, kW, kQSum, kQSq, kQMin, kQMax, kQRowMax, kLossFields };

/// Folds x into the partial of field k: min and max for the Q range, sums otherwise.
__device__ __forceinline__ double Fold(int k, double acc, double x) {
  return k == kQMin ? fmin(acc, x) : k == kQMax ? fmax(acc, x) : acc + x;
}

/// Fold of x over the block in a fixed order (xor tree in each warp, then warps in order);
/// the result is valid in thread 0.
__device__ double BlockFold(int k, double x) {
  __shared__ double warp_x[kWarps];
  for (int o = 16; o > 0; o >>= 1) x = Fold(k, x, __shfl_xor_sync(kFull, x, o));
  __syncthreads();
  if (threadIdx.x % 32 == 0) warp_x[threadIdx.x / 32] = x;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < kWarps; ++w) x = Fold(k, x, warp_x[w]);
  return x;
}

/// Action values a lane keeps in registers: rows of up to 32 kHeld actions are read once.
constexpr int kHeld = 2;

/// A row of action values read by one warp: lane l holds columns l + 32 u (u < kHeld) in
/// registers; columns past 32 kHeld are read again where needed.
struct HeldRow {
  const float* row;
  float x[kHeld];
};

/// Issues the loads of the held part of a row (columns past n read as 0).
__device__ __forceinline__ HeldRow ReadRow(const float* row, int n, int lane) {
  HeldRow r{row, {}};
#pragma unroll
  for (int u = 0; u < kHeld; ++u) r.x[u] = lane + 32 * u < n ? __ldcg(row + lane + 32 * u) : 0.0f;
  return r;
}

/// Calls f(j, x_j) for this lane's columns j = lane, lane + 32, ... < n, in order.
template <class F>
__device__ __forceinline__ void ForColumns(const HeldRow& r, int n, int lane, F&& f) {
#pragma unroll
  for (int u = 0; u < kHeld; ++u)
    if (lane + 32 * u < n) f(lane + 32 * u, r.x[u]);
  for (int j = lane + 32 * kHeld; j < n; j += 32) f(j, __ldcg(r.row + j));
}

/// mean_j x_j of the row (lanes sum their columns in order, then a fixed tree), in every lane.
__device__ __forceinline__ float HeldMean(const HeldRow& r, int n, int lane) {
  float s = 0;
  ForColumns(r, n, lane, [&](int, float x) { s += x; });
  return WarpSum(s) / static_cast<float>(n);
}

/// Column j of the row (the same j in every lane), from the lane that holds it or read again.
__device__ __forceinline__ float HeldAt(const HeldRow& r, int j, int lane) {
  if (j >= 32 * kHeld) return __ldcg(r.row + j);
  float mine = 0;
#pragma unroll
  for (int u = 0; u < kHeld; ++u)
    if (j == lane + 32 * u) mine = r.x[u];
  return __shfl_sync(kFull, mine, j % 32);
}

/// Features of a row a lane reads at once in FeatureGrad (loads in flight).
constexpr int kFeatureUnroll = 8;

/// dL/dfeatures of transition i = (dA·Waᵀ + dV·Wvᵀ) ⊙ (features > 0), by one warp (lane l:
/// features l, l + 32, ...). The row of dA is g at the action and -dq_mean elsewhere, so
/// sum_j dA_j Wa[k][j] = g Wa[k][act] - dq_mean S[k] with S the row sums of Wa (SideJob::
/// kHeadSums); then the rank-one term dV Wv[k] (dV = g) and the ReLU mask, in the order of the
/// input-gradient product's epilogue. Replaces that product (a phase of its own before).
__device__ __forceinline__ void FeatureGrad(const TdLossArgs& a, int n_act, int i, int lane, int act, float g,
                                            float dq_mean) {
  const int f = a.width;
  const float* x = a.features + static_cast<int64_t>(i) * f;
  float* out = a.d_features + static_cast<int64_t>(i) * f;
  for (int k0 = lane; k0 < f; k0 += 32 * kFeatureUnroll) {
    float xv[kFeatureUnroll], wa[kFeatureUnroll], s[kFeatureUnroll], wv[kFeatureUnroll];
#pragma unroll
    for (int u = 0; u < kFeatureUnroll; ++u) {  // every load first: one round trip for the lane's values
      const int k = k0 + 32 * u;
      if (k >= f) continue;
      xv[u] = __ldcg(x + k);
      wa[u] = __ldcg(a.adv_w + static_cast<int64_t>(k) * n_act + act);
      s[u] = __ldcg(a.adv_row_sums + k);
      wv[u] = a.value_w ? __ldcg(a.value_w + k) : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < kFeatureUnroll; ++u) {
      const int k = k0 + 32 * u;
      if (k >= f) continue;
      float y = g * wa[u] - dq_mean * s[u];
      if (a.value_w) y += g * wv[u];
      out[k] = xv[u] > 0.0f ? y : 0.0f;
    }
  }
}

/// SideJob::kHeadSums: S[k] = sum_j Wa[k][j] (j in order) of the online advantage weights, by
/// one block (thread t: rows t, t + 256, ...), for FeatureGrad in the next phase.
__device__ void HeadSums(const TdLossArgs& a, int n_act) {
  for (int k = threadIdx.x; k < a.width; k += kThreads) {
    const float* w = a.adv_w + static_cast<int64_t>(k) * n_act;
    float s = 0;
    for (int j = 0; j < n_act; ++j) s += __ldcg(w + j);
    a.adv_row_sums[k] = s;
  }
}

// One warp per transition: dueling combine, Double DQN target, Huber loss, dL/dV, dL/dA and
// dL/dfeatures.
// Virtual block vb of nvb = ceil(B / 8) covers transitions 8 vb .. 8 vb + 7. Every load of a
// transition is issued at once (its scalars and its three rows), so the loss waits for one
// round trip to L2 rather than one per dependent read.
__device__ void TdLoss(const LearnerParams& p, const TdLossArgs& a, const LearnerControl* ctl, const Partials& part,
                       unsigned vb) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int b = p.batch, n_act = p.n_actions;
  const int64_t step = ctl->t + 1;
  const bool stats = step % p.options.q_stats_interval == 0;
  double f[kLossFields] = {0, 0, 0, 0, 0, DBL_MAX, -DBL_MAX, 0};
  uint32_t flags = 0;
  const int i = static_cast<int>(vb) * kWarps + warp;
  if (i < b) {
    const float* v_on = a.v_online;
    const int act = a.actions[i];
    const float reward = a.rewards[i], discount = a.discounts[i], weight = a.weights[i];
    const float v_s = v_on ? v_on[i] : 0.0f, v_n = v_on ? v_on[b + i] : 0.0f, v_t = a.v_target ? a.v_target[i] : 0.0f;
    const HeldRow row_s = ReadRow(a.a_online + static_cast<int64_t>(i) * n_act, n_act, lane);
    const HeldRow row_n = ReadRow(a.a_online + static_cast<int64_t>(b + i) * n_act, n_act, lane);
    const HeldRow row_t = ReadRow(a.a_target + static_cast<int64_t>(i) * n_act, n_act, lane);
    const float mean_s = v_on ? HeldMean(row_s, n_act, lane) : 0.0f;
    const float mean_n = v_on ? HeldMean(row_n, n_act, lane) : 0.0f;
    const float mean_t = a.v_target ? HeldMean(row_t, n_act, lane) : 0.0f;
    // Q(s, a) = V(s) + A(s, a) - mean(A) (Wang et al. 2016, eq. 9); plain head: Q = A.
    const auto q_online_s = [&](float x) { return v_on ? rules::DuelingQ(v_s, x, mean_s) : x; };
    const auto q_online_n = [&](float x) { return v_on ? rules::DuelingQ(v_n, x, mean_n) : x; };
    const auto q_target = [&](float x) { return a.v_target ? rules::DuelingQ(v_t, x, mean_t) : x; };
    bool bad_online = false, bad_target = false;
    float best = 0;
    int best_j = -1;
    double row_max = -DBL_MAX;
    // The three rows column by column (the held columns, then any others read again).
    const auto visit = [&](int j, float xs, float xn, float xt) {
      float qs = q_online_s(xs);
      const float qn = q_online_n(xn);
      float qt = q_target(xt);
      if (i == 0 && j == 0 && Injected(ctl, kNanQOnline, step)) qs = __int_as_float(0x7fc00000);
      if (i == 0 && j == 0 && Injected(ctl, kNanQTarget, step)) qt = __int_as_float(0x7fc00000);
      bad_online = bad_online || !isfinite(qs) || !isfinite(qn);
      bad_target = bad_target || !isfinite(qt);
      // The action is chosen by the online network and valued by the target network (Double DQN).
      const float sel = p.options.double_dqn ? qn : qt;
      if (best_j < 0 || sel > best) best = sel, best_j = j;
      if (stats) {
        f[kQSum] += qs;
        f[kQSq] += static_cast<double>(qs) * qs;
        f[kQMin] = fmin(f[kQMin], static_cast<double>(qs));
        f[kQMax] = fmax(f[kQMax], static_cast<double>(qs));
        row_max = fmax(row_max, static_cast<double>(qs));
      }
    };
#pragma unroll
    for (int u = 0; u < kHeld; ++u)
      if (lane + 32 * u < n_act) visit(lane + 32 * u, row_s.x[u], row_n.x[u], row_t.x[u]);
    for (int j = lane + 32 * kHeld; j < n_act; j += 32) visit(j, __ldcg(row_s.row + j), __ldcg(row_n.row + j), __ldcg(row_t.row + j));
    WarpArgmax(best, best_j);
    if (__any_sync(kFull, bad_online)) flags |= kNanQOnline;
    if (__any_sync(kFull, bad_target)) flags |= kNanQTarget;
    if (stats) {
      f[kQSum] = WarpSum(f[kQSum]);
      f[kQSq] = WarpSum(f[kQSq]);
      f[kQMin] = WarpMin(f[kQMin]);
      f[kQMax] = WarpMax(f[kQMax]);
      f[kQRowMax] = WarpMax(row_max);
    }
    const float q_sa = q_online_s(HeldAt(row_s, act, lane));
    const float q_next = q_target(HeldAt(row_t, best_j, lane));
    const double y = rules::BootstrapTarget(reward, discount, q_next);
    const double err = y - static_cast<double>(q_sa);
    const double delta = p.options.huber_delta, w = weight;
    const float g = static_cast<float>(rules::WeightedHuberGrad(err, delta, w, 1.0 / static_cast<double>(b)));
    if (lane == 0) {
      a.td[i] = static_cast<float>(err);
      if (a.d_value) a.d_value[i] = g;
      f[kLoss] = w * rules::HuberValue(err, delta);
      f[kSq] = err * err;
      f[kW] = w;
    }
    // dQ_j/dA_k = [j == k] - 1/A: the row of dL/dA is g at the action minus the row's mean.
    const float mean_dq = a.d_value ? g / static_cast<float>(n_act) : 0.0f;
    for (int j = lane; j < n_act; j += 32)
      a.d_adv[static_cast<int64_t>(i) * n_act + j] = (j == act ? g : 0.0f) - mean_dq;
    FeatureGrad(a, n_act, i, lane, act, g, mean_dq);
  }
  // Block partials in warp order, then the last block sums them in block order.
  __shared__ double warp_f[kLossFields][kWarps];
  __shared__ uint32_t warp_flags[kWarps];
  if (lane == 0) {
    for (int k = 0; k < kLossFields; ++k) warp_f[k][warp] = f[k];
    warp_flags[warp] = flags;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double s[kLossFields] = {0, 0, 0, 0, 0, DBL_MAX, -DBL_MAX, 0};
    uint32_t fl = 0;
    for (int w = 0; w < kWarps; ++w) {
      for (int k = 0; k < kLossFields; ++k) s[k] = Fold(k, s[k], warp_f[k][w]);
      fl |= warp_flags[w];
    }
    for (int k = 0; k < kLossFields; ++k) part.loss[k * kMaxPartialBlocks + vb] = s[k];
    part.flags[vb] = fl;
  }
}

// One block folds the loss partials of the nvb virtual blocks into the scalars and the step's
// NaN flags: thread t takes blocks t, t + 256, ... in order, then a fixed tree over the threads
// (deterministic). Runs beside the next phase's products, off the step's critical path.
__device__ void FoldLoss(const LearnerParams& p, LearnerControl* ctl, const Partials& part, ScalarBlock* sc, unsigned nvb) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int b = p.batch, n_act = p.n_actions;
  const int64_t step = ctl->t + 1;
  const bool stats = step % p.options.q_stats_interval == 0;
  double s[kLossFields];
  uint32_t fl = 0;
  for (int k = 0; k < kLossFields; ++k) {
    double x = k == kQMin ? DBL_MAX : k == kQMax ? -DBL_MAX : 0.0;
    for (unsigned blk = threadIdx.x; blk < nvb; blk += kThreads) x = Fold(k, x, __ldcg(part.loss + k * kMaxPartialBlocks + blk));
    s[k] = BlockFold(k, x);
  }
  for (unsigned blk = threadIdx.x; blk < nvb; blk += kThreads) fl |= __ldcg(part.flags + blk);
  fl = __reduce_or_sync(kFull, fl);
  __shared__ uint32_t warp_or[kWarps];
  if (lane == 0) warp_or[warp] = fl;
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 0; w < kWarps; ++w) fl |= warp_or[w];
  const double inv_b = 1.0 / static_cast<double>(b);
  if (fl == 0) {  // as the CPU learner: Q-values are checked before the loss is formed
    double loss = s[kLoss] * inv_b;
    if (Injected(ctl, kNanLoss, step)) loss = __longlong_as_double(0x7ff8000000000000ll);
    sc->loss = loss;
    sc->td_mse = s[kSq] * inv_b;
    if (!isfinite(loss)) fl = kNanLoss;
  }
  sc->is_weight_mean = s[kW] * inv_b;
  if (stats && fl == 0) {
    const double n = static_cast<double>(b) * n_act, mean = s[kQSum] / n;
    sc->q_mean = mean;
    sc->q_min = s[kQMin];
    sc->q_max = s[kQMax];
    sc->q_var = fmax(0.0, s[kQSq] / n - mean * mean);
    sc->mean_max_q = s[kQRowMax] * inv_b;
    sc->q_stats_step = step;
  }
  ctl->loss_flags = fl;
}

__device__ double BlockSum(double x) {
  __shared__ double warp_s[kWarps];
  x = WarpSum(x);
  if (threadIdx.x % 32 == 0) warp_s[threadIdx.x / 32] = x;
  __syncthreads();
  double s = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < kWarps; ++w) s += warp_s[w];
  __syncthreads();
  return s;  // valid in thread 0
}

/// PER health of the replay (the values of its previous update: fine for charts), by one block
/// beside a phase's products.
__device__ void PerScalars(const PerView& replay, ScalarBlock* sc) {
  double total = 0;
#pragma unroll 8
  for (int64_t j = threadIdx.x; j < replay.count; j += kThreads) total += replay.level[j];
  total = BlockSum(total);
  if (threadIdx.x != 0) return;
  const DeviceState* st = replay.state;
  sc->per_total = total;
  sc->per_max_priority = st->max_priority;
  sc->nan_td_rejected = st->total_update.rejected_nonfinite;
  const int64_t calls = static_cast<int64_t>(st->sample_ticks >> 32) - 1;  // this batch's sample() call
  sc->beta = rules::BetaAt(replay.beta0, replay.beta_steps, calls);
}

/// This step's schedules (SideJob::kSchedules, thread 0): the learning rate (linear decay) and
/// Adam's bias corrections (Kingma & Ba 2015, Algorithm 1), formed in f64 as the CPU does.
__device__ void Schedules(const LearnerParams& p, LearnerControl* ctl) {
  if (threadIdx.x != 0) return;
  const int64_t t = ctl->t + 1;
  const AdamConfig& adam = p.options.adam;
  const double lr = rules::LearningRateAt(adam.lr, p.options.lr_end, p.options.lr_decay_steps, t);
  const rules::AdamScalars s = rules::AdamStepScalars(adam.beta1, adam.beta2, lr, t);
  ctl->step_size = s.step_size;
  ctl->inv_sqrt_bc2 = s.inv_sqrt_bc2;
}

/// What the optimizer phase does in this step, decided identically by every block.
struct StepPlan {
  int64_t t;          ///< this step's number (Adam's t)
  double norm;        ///< global gradient norm
  uint32_t flags;     ///< NanFlag bits of the loss and gradients
  bool apply;         ///< healthy and not halted: Adam and the target update run
  bool copy;          ///< hard target update
  float scale, step_size, inv_sqrt_bc2;
};

/// The global gradient norm from the backward products' per-tile sums of squares (every block
/// sums the same slots in the same order: thread t takes t, t + 256, ..., then BlockSum's fixed
/// tree), with the step's schedules (formed earlier in the step by the kSchedules side job from
/// the device step counter), into plan (shared memory).
__device__ void PlanStep(const LearnerParams& p, const LearnerControl* ctl, const double* slots, int n_slots,
                         StepPlan* plan) {
  double x = 0;
  for (int j = threadIdx.x; j < n_slots; j += kThreads) x += __ldcg(slots + j);
  const double norm2 = BlockSum(x);
  if (threadIdx.x == 0) {
    StepPlan s;
    s.t = ctl->t + 1;
    s.norm = sqrt(norm2);
    if (Injected(ctl, kNanGradients, s.t)) s.norm = __longlong_as_double(0x7ff8000000000000ll);
    s.flags = ctl->loss_flags;
    // Gradients are checked only when the loss was healthy (as on the CPU).
    if (s.flags == 0 && !isfinite(s.norm)) s.flags = kNanGradients;
    s.apply = s.flags == 0 && ctl->halted == 0;
    s.step_size = ctl->step_size;  // from the schedules' side job, earlier in this step
    s.inv_sqrt_bc2 = ctl->inv_sqrt_bc2;
    s.scale = static_cast<float>(rules::ClipCoefficient(s.norm, p.options.grad_clip));
    s.copy = p.options.target_update == TargetUpdate::kHard && rules::HardCopyAt(s.t, p.options.target_interval);
    *plan = s;
  }
  __syncthreads();
}

/// One group member's tensors and state (Group): member 0's pointers of the program shifted by
/// s * stride.
struct Member {
  const float* grads;
  float *online, *target, *m, *v;
  LearnerControl* ctl;
  ScalarBlock* scalars;
  Partials partials;
  TdLossArgs loss;
};

__device__ __forceinline__ Member MemberOf(const CoreProgram& prog, int s) {
  using tile::Shift;
  const int64_t d = s * prog.group.stride;
  Member x{Shift(prog.grads, d), Shift(prog.online, d), Shift(prog.target, d), Shift(prog.m, d), Shift(prog.v, d),
           Shift(prog.ctl, d), Shift(prog.scalars, d), prog.partials, prog.loss};
  x.partials.loss = Shift(x.partials.loss, d), x.partials.flags = Shift(x.partials.flags, d);
  x.partials.norm = Shift(x.partials.norm, d);
  TdLossArgs& a = x.loss;
  a.v_online = Shift(a.v_online, d), a.a_online = Shift(a.a_online, d), a.v_target = Shift(a.v_target, d);
  a.a_target = Shift(a.a_target, d), a.actions = Shift(a.actions, d), a.rewards = Shift(a.rewards, d);
  a.discounts = Shift(a.discounts, d), a.weights = Shift(a.weights, d), a.td = Shift(a.td, d);
  a.d_value = Shift(a.d_value, d), a.d_adv = Shift(a.d_adv, d);
  a.features = Shift(a.features, d), a.adv_w = Shift(a.adv_w, d), a.value_w = Shift(a.value_w, d);
  a.adv_row_sums = Shift(a.adv_row_sums, d), a.d_features = Shift(a.d_features, d);
  return x;
}

constexpr int kAdamUnroll = 4;  // elements a thread loads before it computes (loads in flight)

/// What Adam reads of kAdamUnroll parameters (i0 + u · stride, u < kAdamUnroll): gradient,
/// moments, weight and (Polyak) target weight.
struct AdamGroup {
  float g[kAdamUnroll], m[kAdamUnroll], v[kAdamUnroll], w[kAdamUnroll], tg[kAdamUnroll];
};

/// A block's share of one member's parameters: share `index` of `count` blocks updating that
/// member. A thread updates i0 = first() and then every kAdamUnroll · stride() elements; every
/// parameter is updated by exactly one thread, with the same arithmetic at any count.
struct AdamShare {
  int index, count;
  __device__ int64_t first() const { return static_cast<int64_t>(index) * kThreads + threadIdx.x; }
  __device__ int64_t stride() const { return static_cast<int64_t>(count) * kThreads; }
};

/// Issues the loads of the group at i0 (elements past the parameters are not read).
__device__ __forceinline__ void LoadAdam(const LearnerParams& p, const Member& me, const AdamShare& share, int64_t i0,
                                         AdamGroup& x) {
  const int64_t stride = share.stride(), n = p.n_params;
  const bool polyak = p.options.target_update == TargetUpdate::kPolyak;
#pragma unroll
  for (int u = 0; u < kAdamUnroll; ++u) {
    const int64_t i = i0 + u * stride;
    if (i >= n) continue;
    x.g[u] = me.grads[i], x.m[u] = me.m[i], x.v[u] = me.v[i], x.w[u] = me.online[i];
    if (polyak) x.tg[u] = me.target[i];
  }
}

/// Adam on the block's share of the member's parameters (its first group already loaded in x,
/// before the plan was made), then the target network (a hard copy every C steps, or Polyak
/// averaging every step) and the weights' NaN check.
__device__ void Adam(const LearnerParams& p, const Member& me, const StepPlan& plan, const AdamShare& share,
                     AdamGroup& x) {
  const rules::AdamConstants k = rules::MakeAdamConstants(p.options.adam.beta1, p.options.adam.beta2, p.options.adam.eps);
  const rules::AdamScalars s{plan.step_size, plan.inv_sqrt_bc2};
  const float tau = static_cast<float>(p.options.tau);
  const bool polyak = p.options.target_update == TargetUpdate::kPolyak, poison = Injected(me.ctl, kNanWeights, plan.t);
  const int64_t stride = share.stride(), first = share.first();
  float *online = me.online, *target = me.target, *m = me.m, *v = me.v;
  bool bad = false;
  for (int64_t i0 = first; i0 < p.n_params; i0 += kAdamUnroll * stride) {
    if (i0 != first) LoadAdam(p, me, share, i0, x);
#pragma unroll
    for (int u = 0; u < kAdamUnroll; ++u) {
      const int64_t i = i0 + u * stride;
      if (i >= p.n_params) continue;
      float mi = x.m[u], vi = x.v[u], wi = x.w[u];
      rules::AdamElement(k, s, x.g[u] * plan.scale, mi, vi, wi);
      if (poison && i == 0) wi = __int_as_float(0x7fc00000);
      m[i] = mi;
      v[i] = vi;
      online[i] = wi;
      bad = bad || !isfinite(wi);
      if (plan.copy) target[i] = wi;
      else if (polyak) target[i] = rules::Polyak(x.tg[u], wi, tau);
    }
  }
  ScalarBlock* sc = me.scalars;
  LearnerControl* ctl = me.ctl;
  if (bad) {  // as on the CPU, a step whose weights came out non-finite is not counted
    atomicOr(&sc->nan_flags, static_cast<uint32_t>(kNanWeights));
    atomicOr(&ctl->halted, static_cast<uint32_t>(kNanWeights));
  }
}

/// The last of the member's `blocks` blocks to finish the optimizer phase commits the step: the
/// device step counter, the halt flags and the step's scalars (cumulative sums included).
__device__ void CommitStep(const StepPlan& plan, LearnerControl* ctl, ScalarBlock* sc, unsigned blocks) {
  if (!LastBlock(&ctl->optimizer_blocks_done, blocks) || threadIdx.x != 0) return;
  if (plan.flags == 0) sc->grad_norm = plan.norm;
  ctl->loss_flags = 0;
  if (!plan.apply) {
    ctl->halted |= plan.flags;
    sc->nan_flags |= plan.flags;
    return;
  }
  ctl->t = plan.t;
  const bool bad_weights = (ctl->halted & kNanWeights) != 0;  // set by this step's Adam (halted was 0 before)
  sc->step = bad_weights ? plan.t - 1 : plan.t;
  sc->loss_sum += sc->loss;
  sc->td_mse_sum += sc->td_mse;
  sc->grad_norm_sum += plan.norm;
  sc->sum_steps += 1;
}

// Block f of the probe inputs: the batch's states, with every column of feature group f - 1 set
// to its batch mean (the intervention do(f)); block 0 keeps the batch as it is.
__global__ void __launch_bounds__(kThreads) ProbeInputsKernel(ProbeArgs a, int batch) {
  const int d = a.state_dim;
  float* out = a.inputs + static_cast<int64_t>(blockIdx.x) * batch * d;
  for (int64_t e = threadIdx.x; e < static_cast<int64_t>(batch) * d; e += kThreads) out[e] = a.states[e];
  if (blockIdx.x == 0) return;
  __shared__ float mean;
  const int g = blockIdx.x - 1;
  for (int k = a.group_start[g]; k < a.group_start[g + 1]; ++k) {
    const int col = a.group_cols[k];
    double s = 0;
    for (int r = threadIdx.x; r < batch; r += kThreads) s += a.states[static_cast<int64_t>(r) * d + col];
    s = BlockSum(s);
    if (threadIdx.x == 0) mean = static_cast<float>(s / static_cast<double>(batch));
    __syncthreads();
    for (int r = threadIdx.x; r < batch; r += kThreads) out[static_cast<int64_t>(r) * d + col] = mean;
    __syncthreads();
  }
}

// Block f: mean over the batch and actions of |Q(s) - Q(s_do(f))|; the last block averages.
__global__ void __launch_bounds__(kThreads) ProbeReduceKernel(LearnerParams p, ProbeArgs a, LearnerControl* ctl,
                                                               ScalarBlock* sc) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, b = p.batch, n_act = p.n_actions;
  const int64_t base = static_cast<int64_t>(blockIdx.x + 1) * b;
  double diff = 0;
  for (int r = warp; r < b; r += kWarps) {
    const float m0 = a.v ? RowMean(a.a + static_cast<int64_t>(r) * n_act, n_act, lane) : 0.0f;
    const float m1 = a.v ? RowMean(a.a + (base + r) * n_act, n_act, lane) : 0.0f;
    for (int j = lane; j < n_act; j += 32)
      diff += fabs(static_cast<double>(QValue(a.v, a.a, r, n_act, m0, j)) - QValue(a.v, a.a, base + r, n_act, m1, j));
  }
  diff = BlockSum(diff);
  if (threadIdx.x == 0) a.per_group[blockIdx.x] = diff / (static_cast<double>(b) * n_act);
  if (!LastBlock(&ctl->probe_blocks_done, gridDim.x) || threadIdx.x != 0) return;
  double total = 0;
  const int kept = a.groups < kMaxCausalFeatures ? a.groups : kMaxCausalFeatures;
  for (int g = 0; g < a.groups; ++g) {
    const double x = __ldcg(a.per_group + g);
    total += x;
    if (g < kept) sc->causal_per_feature[g] = x;
  }
  sc->causal_sensitivity = total / a.groups;
  sc->causal_features = kept;
  sc->causal_step = ctl->t;
}

/// Grid-wide barrier of `blocks` resident blocks, in two halves (the scheme of cooperative
/// groups' grid sync, with release/acquire operations instead of full fences). Arrive: a block
/// arrives with an acq_rel add (its threads' writes, ordered before by __syncthreads, become
/// visible first), which also gives its arrival rank (0 first, blocks - 1 last); the last to
/// arrive resets the count and opens the next generation with a release. Between the halves a
/// block may do work that reads no data of the phase just ended. Wait: the others poll the
/// generation, then acquire. Returns the rank in every thread.
__device__ __forceinline__ int Arrive(GridBarrier* b, unsigned blocks, uint32_t* generation) {
  __shared__ uint32_t rank;
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t g, arrived;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(g) : "l"(&b->generation) : "memory");
    asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], 1;" : "=r"(arrived) : "l"(&b->count) : "memory");
    if (arrived == blocks - 1) {
      asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(&b->count) : "memory");
      asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(&b->generation), "r"(g + 1) : "memory");
    }
    rank = arrived;
    *generation = g;
  }
  __syncthreads();
  return static_cast<int>(rank);
}

/// The second half: returns when the barrier of `generation` (from Arrive, thread 0's) is open.
__device__ __forceinline__ void Wait(GridBarrier* b, int rank, unsigned blocks, uint32_t generation) {
  if (threadIdx.x == 0 && rank != static_cast<int>(blocks) - 1) {
    uint32_t now;
    do {  // relaxed polls, then one acquire fence (an acquire load invalidates L1 on every poll)
      asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(now) : "l"(&b->generation) : "memory");
    } while (now == generation);
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
  }
  __syncthreads();
}

// The whole learner step (or the probe's forward pass): the program's phases in order, every
// block taking part in each, a barrier between phases.
static_assert(sizeof(CoreProgram) <= 32764, "the program travels as a kernel parameter (at most 32,764 bytes)");

template <Precision P>
__global__ void __launch_bounds__(kThreads) CoreKernel(const __grid_constant__ CoreProgram prog) {
  static_assert(tile::kThreads == kThreads, "one block shape for products and reductions");
  __shared__ tile::Smem smem;
  __shared__ StepPlan plan;
  __shared__ uint32_t generation;
  const bool stamp = prog.stamps && threadIdx.x == 0;
  const int blocks = static_cast<int>(gridDim.x), self = static_cast<int>(blockIdx.x);
  if (stamp) prog.stamps[Stamp(0, self, 0, blocks)] = tile::GlobalTimer();
  // A block's share of each phase follows its arrival rank at the barrier before the phase, and
  // its first tile is set up between arriving and the barrier's opening: the first blocks to
  // finish a phase take the next one's tiles, the last ones (when tiles are fewer than blocks)
  // none, so neither the set-up nor the stragglers sit on the critical path.
  int rank = self;
  const int members = prog.group.count;
  tile::Job job;
  tile::Prepare(prog.phase[0], rank, prog.group, job);
  for (int ph = 0; ph < prog.phases; ++ph) {
    const Phase& phase = prog.phase[ph];
    // Member s's side job goes to the block that arrived (s + 1)-th from last.
    if (const int s = blocks - 1 - rank; phase.side != SideJob::kNone && s < members) {
      const Member me = MemberOf(prog, s);
      switch (phase.side) {
        case SideJob::kFoldLoss:
          FoldLoss(prog.params, me.ctl, me.partials, me.scalars, (prog.params.batch + kWarps - 1) / kWarps);
          break;
        case SideJob::kPerScalars: PerScalars(prog.group.per[s], me.scalars); break;
        case SideJob::kSchedules: Schedules(prog.params, me.ctl); break;
        case SideJob::kHeadSums: HeadSums(me.loss, prog.params.n_actions); break;
        case SideJob::kNone: break;
      }
      __syncthreads();  // the side job's shared scratch and early-returning threads
    }
    switch (phase.kind) {
      case PhaseKind::kGemm:
        tile::RunPhase<P>(phase, prog.group, rank, job, smem,
                          prog.tile_stamps ? prog.tile_stamps + TileStamp(ph, self, blocks) : nullptr);
        break;
      case PhaseKind::kTdLoss: {
        // Virtual blocks of member s: s * nvb .. (s + 1) * nvb - 1.
        const unsigned nvb = static_cast<unsigned>((prog.params.batch + kWarps - 1) / kWarps);
        for (unsigned vb = static_cast<unsigned>(rank); vb < nvb * members; vb += gridDim.x) {
          const Member me = MemberOf(prog, static_cast<int>(vb / nvb));
          TdLoss(prog.params, me.loss, me.ctl, me.partials, vb % nvb);
          __syncthreads();  // the block's shared partials are reused by its next virtual block
        }
        break;
      }
      case PhaseKind::kOptimizer: {
        // The members side by side: member s takes the blocks of arrival rank s, s + N, s + 2N, ...
        // (N members), each block its share of that member's parameters. Every block of a member
        // makes the same plan and Adam is elementwise, so a member's update is the same at any
        // share count (alone or in a group).
        const int s = rank % members;
        const AdamShare share{rank / members, (blocks - s + members - 1) / members};
        const Member me = MemberOf(prog, s);
        AdamGroup x;
        LoadAdam(prog.params, me, share, share.first(), x);  // independent of the plan: in flight while it is made
        PlanStep(prog.params, me.ctl, me.partials.norm, me.partials.norm_slots, &plan);
        if (plan.apply) Adam(prog.params, me, plan, share, x);
        CommitStep(plan, me.ctl, me.scalars, static_cast<unsigned>(share.count));
        break;
      }
    }
    if (prog.stamps) {
      __syncthreads();  // the block's work is done
      if (stamp) prog.stamps[Stamp(ph, self, 1, blocks)] = tile::GlobalTimer();
    }
    if (ph + 1 < prog.phases || prog.stamps) {
      rank = Arrive(prog.barrier, gridDim.x, &generation);
      if (ph + 1 < prog.phases) tile::Prepare(prog.phase[ph + 1], rank, prog.group, job);
      Wait(prog.barrier, rank, gridDim.x, generation);
    }
    if (stamp) prog.stamps[Stamp(ph + 1, self, 0, blocks)] = tile::GlobalTimer();
  }
}

__global__ void KernelFault(float* bad) { *bad = 1.0f; }

template <Precision P>
cudaError_t BlocksOf(int* blocks) {
  int device = 0, sms = 0, resident = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, CoreKernel<P>, kThreads, 0);
  if (e != cudaSuccess) return e;
  if (resident < 1) return cudaErrorInvalidConfiguration;
  *blocks = sms;
  return cudaSuccess;
}

template <Precision P>
cudaError_t Launch(const CoreProgram& program, int blocks, cudaStream_t stream) {
  // Cooperative: the launch fails rather than starting blocks that could not all be resident
  // (the barriers would wait for them forever).
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(kThreads);
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, CoreKernel<P>, program);
}

}  // namespace

cudaError_t CoreBlocks(Precision precision, int* blocks) {
  switch (precision) {
    case Precision::kFP32: return BlocksOf<Precision::kFP32>(blocks);
    case Precision::kTF32: return BlocksOf<Precision::kTF32>(blocks);
    case Precision::kBF16: return BlocksOf<Precision::kBF16>(blocks);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchCore(const CoreProgram& program, Precision precision, int blocks, cudaStream_t stream) {
  if (blocks < 1 || program.phases < 1 || program.phases > kMaxPhases || !program.barrier) return cudaErrorInvalidValue;
  if ((program.params.batch + kWarps - 1) / kWarps > kMaxPartialBlocks || blocks > kMaxPartialBlocks) return cudaErrorInvalidValue;
  if (program.group.count < 1 || program.group.count > kMaxGroup || program.group.count > blocks) return cudaErrorInvalidValue;
  switch (precision) {
    case Precision::kFP32: return Launch<Precision::kFP32>(program, blocks, stream);
    case Precision::kTF32: return Launch<Precision::kTF32>(program, blocks, stream);
    case Precision::kBF16: return Launch<Precision::kBF16>(program, blocks, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchProbeInputs(const ProbeArgs& args, int batch, cudaStream_t stream) {
  ProbeInputsKernel<<<args.groups + 1, kThreads, 0, stream>>>(args, batch);
  return cudaGetLastError();
}

cudaError_t LaunchProbeReduce(const LearnerParams& p, const ProbeArgs& args, LearnerControl* ctl, ScalarBlock* scalars,
                              cudaStream_t stream) {
  if (args.groups < 1) return cudaSuccess;
  ProbeReduceKernel<<<args.groups, kThreads, 0, stream>>>(p, args, ctl, scalars);
  return cudaGetLastError();
}

cudaError_t LaunchKernelFault(cudaStream_t stream) {
  KernelFault<<<1, 1, 0, stream>>>(reinterpret_cast<float*>(uintptr_t{16}));
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
