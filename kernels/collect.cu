// The GPU collector's kernels (collect_launch.cuh): one thread per environment copy acts, steps
// and assembles n-step transitions with the host's rules; the rows are then laid out in the host's
// order for the replay's insert. The kernels take the environment as a template parameter (an
// env policy: CartPoleCopies, TradingCopies below), which supplies the largest observation and
// one copy's step with its auto-reset; acting, the n-step rule, the episode statistics, the
// observation write and the rows' layout are the same code for every environment.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "kernels/collect_launch.cuh"
#include "kernels/env_cartpole.cuh"
#include "kernels/env_trading.cuh"
#include "rules/act_rules.h"
#include "rules/n_step_rules.h"

namespace dqn::cuda::detail {
namespace {

constexpr int kThreads = 256;

/// CartPole's copies as the collector steps them (env_cartpole.cuh).
struct CartPoleCopies {
  static constexpr int kMaxStateDim = 4;
  __device__ static void Step(const CollectView& c, int i, int action, float* next_obs, float& reward, uint8_t& terminated,
                              uint8_t& truncated, float* final_obs) {
    StepCartPoleCopy(c.cartpole, i, action, next_obs, reward, terminated, truncated, final_obs);
  }
};

/// The trading copies as the collector steps them (env_trading.cuh): training episodes from
/// random starts, truncated at episode_length, restarted from the copy's own stream.
struct TradingCopies {
  static constexpr int kMaxStateDim = kMaxTradingObsDim;
  __device__ static void Step(const CollectView& c, int i, int action, float* next_obs, float& reward, uint8_t& terminated,
                              uint8_t& truncated, float* final_obs) {
    StepTradingCopy(c.trading, i, action, next_obs, reward, terminated, truncated, final_obs);
  }
};

unsigned Blocks(int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

__device__ inline void CopyRow(const TransitionRows& from, int64_t i, const TransitionRows& to, int64_t j, int d) {
  for (int k = 0; k < d; ++k) {
    to.states[j * d + k] = from.states[i * d + k];
    to.next_states[j * d + k] = from.next_states[i * d + k];
  }
  to.actions[j] = from.actions[i];
  to.rewards[j] = from.rewards[i];
  to.dones[j] = from.dones[i];
  to.discounts[j] = from.discounts[i];
}

/// Copy i's part of a vector step (epsilon-greedy on its own draw, its Env step, the n-step rule
/// into its emission slots, its episode statistics) under the counters `ctl` as the vector step
/// began; returns its emissions (also written to emit_count[i]).
template <class Env>
__device__ int32_t StepCollectorCopy(const CollectView& c, const CollectorControl& ctl, int i) {
  const int d = c.state_dim, a = c.n_actions;
  // Epsilon-greedy on this copy's own draw of this vector step.
  const double eps = rules::EpsilonAt(c.eps_start, c.eps_end, c.eps_decay_steps, c.learning_starts, ctl.env_steps);
  const rules::ExploreDraw draw = rules::DrawExploration(c.seed, ctl.vector_steps, i, a);
  const int32_t action = draw.u < eps ? draw.random_action
                                      : rules::GreedyAction(c.a + static_cast<int64_t>(i) * a, c.v ? c.v + i : nullptr, a);
  // The copy's step.
  float s[Env::kMaxStateDim], next_obs[Env::kMaxStateDim], final_obs[Env::kMaxStateDim];
  for (int k = 0; k < d; ++k) s[k] = c.obs[static_cast<int64_t>(i) * d + k];
  float reward;
  uint8_t terminated, truncated;
  Env::Step(c, i, action, next_obs, reward, terminated, truncated, final_obs);
  // The n-step rule, emitting into this copy's slots.
  const int64_t first = static_cast<int64_t>(i) * c.n_step;
  const rules::NStepRing ring{c.ring_states + first * d, c.ring_actions + first, c.ring_rewards + first, c.ring_head[i],
                              c.ring_count[i], c.n_step, d};
  int32_t emitted = 0;
  rules::NStepPush(ring, s, action, reward, final_obs, terminated != 0, truncated != 0, c.gamma,
                   [&](const float* s0, int32_t a0, float ret, const float* s1, bool done, float discount) {
                     const int64_t row = first + emitted++;
                     for (int k = 0; k < d; ++k) {
                       c.emit.states[row * d + k] = s0[k];
                       c.emit.next_states[row * d + k] = s1[k];
                     }
                     c.emit.actions[row] = a0;
                     c.emit.rewards[row] = ret;
                     c.emit.dones[row] = done ? 1 : 0;
                     c.emit.discounts[row] = discount;
                   });
  c.emit_count[i] = emitted;
  // Episode statistics, as the host's Trainer::collect keeps them.
  const double ep_return = rules::AddD(c.ep_return[i], static_cast<double>(reward));
  const int32_t ep_length = c.ep_length[i] + 1;
  if (terminated || truncated) {
    ++c.episodes[i];
    c.return_sum[i] = rules::AddD(c.return_sum[i], ep_return);
    c.last_return[i] = ep_return;
    c.last_length[i] = ep_length;
    if (c.log) {
      const uint32_t k = atomicAdd(c.log_count, 1u);
      if (k < c.log_capacity) c.log[k] = EpisodeLogEntry{ep_return, ctl.env_steps + i + 1, ep_length, i};
    }
    c.ep_return[i] = 0;
    c.ep_length[i] = 0;
  } else {
    c.ep_return[i] = ep_return;
    c.ep_length[i] = ep_length;
  }
  for (int k = 0; k < d; ++k) c.obs[static_cast<int64_t>(i) * d + k] = next_obs[k];
  c.actions[i] = action;
  return emitted;
}

/// The row count of the vector step, and its counters advanced (after every read of them).
__device__ inline void FinishVectorStep(const CollectView& c, int64_t rows) {
  *c.row_count = rows;
  c.ctl->vector_steps += 1;
  c.ctl->env_steps += c.num_envs;
}

template <class Env>
__global__ void __launch_bounds__(kThreads) CollectStepKernel(CollectView c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < c.num_envs) StepCollectorCopy<Env>(c, *c.ctl, i);
}

/// The whole vector step in one block of kBlock >= E threads: thread i steps copy i, a block-wide
/// exclusive scan of the emissions gives each copy's first row, and thread i moves its own
/// emissions there (the host's order: copy by copy, oldest first, as GatherKernel lays them).
template <class Env, int kBlock>
__global__ void __launch_bounds__(kBlock) CollectFusedKernel(CollectView c) {
  using Scan = cub::BlockScan<int32_t, kBlock>;
  __shared__ typename Scan::TempStorage scan;
  const int i = threadIdx.x;
  const CollectorControl ctl = *c.ctl;  // read by every thread before the scan's barriers
  const int32_t emitted = i < c.num_envs ? StepCollectorCopy<Env>(c, ctl, i) : 0;
  int32_t offset = 0, total = 0;
  Scan(scan).ExclusiveSum(emitted, offset, total);
  if (i >= c.num_envs) return;
  c.emit_offset[i] = offset;
  const int64_t first = static_cast<int64_t>(i) * c.n_step;
  for (int k = 0; k < emitted; ++k) CopyRow(c.emit, first + k, c.rows, offset + k, c.state_dim);
  if (i == 0) FinishVectorStep(c, total);
}

/// Thread t moves emission k = t mod n of copy i = t / n to its row; the thread of copy E - 1's
/// first slot also writes the row count and advances the counters (every read of them in this
/// vector step happened in the step kernel before).
__global__ void __launch_bounds__(kThreads) GatherKernel(CollectView c) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t e = c.num_envs;
  if (t >= e * c.n_step) return;
  const int64_t i = t / c.n_step, k = t % c.n_step;
  if (k < c.emit_count[i]) CopyRow(c.emit, t, c.rows, c.emit_offset[i] + k, c.state_dim);
  if (i == e - 1 && k == 0) FinishVectorStep(c, static_cast<int64_t>(c.emit_offset[i]) + c.emit_count[i]);
}

/// LaunchCollectStep for the environment Env.
template <class Env>
cudaError_t LaunchCollectStepFor(const CollectView& c, cudaStream_t stream) {
  if (c.num_envs < 1 || c.state_dim > Env::kMaxStateDim) return cudaErrorInvalidValue;
  CollectStepKernel<Env><<<Blocks(c.num_envs), kThreads, 0, stream>>>(c);
  return cudaGetLastError();
}

/// LaunchCollect for the environment Env.
template <class Env>
cudaError_t LaunchCollectFor(const CollectView& c, void* scan_temp, size_t scan_temp_bytes, cudaStream_t stream) {
  if (c.num_envs < 1 || c.state_dim > Env::kMaxStateDim) return cudaErrorInvalidValue;
  if (c.num_envs <= 256) {
    CollectFusedKernel<Env, 256><<<1, 256, 0, stream>>>(c);
    return cudaGetLastError();
  }
  if (c.num_envs <= kMaxFusedCopies) {
    CollectFusedKernel<Env, kMaxFusedCopies><<<1, kMaxFusedCopies, 0, stream>>>(c);
    return cudaGetLastError();
  }
  if (cudaError_t e = LaunchCollectStepFor<Env>(c, stream); e != cudaSuccess) return e;
  size_t bytes = scan_temp_bytes;
  if (cudaError_t e = cub::DeviceScan::ExclusiveSum(scan_temp, bytes, c.emit_count, c.emit_offset, c.num_envs, stream); e != cudaSuccess)
    return e;
  GatherKernel<<<Blocks(static_cast<int64_t>(c.num_envs) * c.n_step), kThreads, 0, stream>>>(c);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchCollectStep(const CollectView& c, cudaStream_t stream) {
  return c.env == CollectEnv::kTrading ? LaunchCollectStepFor<TradingCopies>(c, stream) : LaunchCollectStepFor<CartPoleCopies>(c, stream);
}

cudaError_t CollectScanTempBytes(int copies, size_t* bytes) {
  return cub::DeviceScan::ExclusiveSum(nullptr, *bytes, static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr),
                                       copies);
}

cudaError_t LaunchCollect(const CollectView& c, void* scan_temp, size_t scan_temp_bytes, cudaStream_t stream) {
  return c.env == CollectEnv::kTrading ? LaunchCollectFor<TradingCopies>(c, scan_temp, scan_temp_bytes, stream)
                                       : LaunchCollectFor<CartPoleCopies>(c, scan_temp, scan_temp_bytes, stream);
}

}  // namespace dqn::cuda::detail
