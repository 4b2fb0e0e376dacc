// The GPU collector's device data and launchers (issue 24; DESIGN sections 1, 4 and 7): one
// vector step of environment copies (CartPole or trading) acted, stepped and written into the GPU
// replay without the host. Compiles with a host C++ compiler: no device code here (that is in
// collect.cu, whose kernels take the environment as a template parameter: its largest
// observation and one copy's step with its auto-reset; everything else is shared).
//
// One vector step, queued on the learner's stream after the acting forward (CudaLearner::
// queue_act_forward wrote V and A of every copy's observation):
//   1. LaunchCollect: one thread per copy does epsilon-greedy (rules/act_rules.h), the copy's
//      step (env/cartpole_dynamics.h or env/trading_step.h), the n-step rule
//      (rules/n_step_rules.h) into the copy's emission slots and the episode statistics; then
//      the emissions' offsets (an exclusive scan) lay the rows out in the host's order (copy by
//      copy, oldest first), with their count, and the step counters advance. Up to
//      kMaxFusedCopies copies this is one single-block kernel (a block-wide scan); beyond, the
//      step kernel (LaunchCollectStep), CUB's device-wide scan and a gather kernel;
//   2. the replay's counted insert (CudaReplay::insert_device_counted) of those rows.
// Nothing synchronizes, allocates or reads device values on the host: capturable.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/env_launch.cuh"
#include "kernels/replay_launch.cuh"

namespace dqn::cuda::detail {

/// The collector's counters in device memory, advanced by every vector step.
struct CollectorControl {
  int64_t vector_steps = 0;  ///< vector steps done (the exploration stream's counter)
  int64_t env_steps = 0;     ///< env steps done, all copies counted (epsilon's schedule)
};

/// One ended training episode, as the host's Trainer::collect reports it.
struct EpisodeLogEntry {
  double ret = 0;        ///< the episode's return (summed rewards, float64)
  int64_t env_step = 0;  ///< env step (all copies counted) at which it ended: vector step x E + copy + 1
  int32_t length = 0;    ///< env steps of the episode
  int32_t copy = 0;
};

/// Transitions as rows of a structure of arrays (device pointers), `state_dim` floats a state.
struct TransitionRows {
  float* states = nullptr;
  float* next_states = nullptr;
  int32_t* actions = nullptr;
  float* rewards = nullptr;
  uint8_t* dones = nullptr;
  float* discounts = nullptr;
};

/// The environment a collector's copies run.
enum class CollectEnv {
  kCartPole,  ///< CartPoleDevice: D = 4, A = 2
  kTrading,   ///< TradingDevice: D = trading::ObsDim (at most kMaxTradingObsDim), A = trading::NumActions
};

/// Largest trading observation the collector steps: 7 x 16 + 2 floats (lags <= 16, the config's bound).
inline constexpr int kMaxTradingObsDim = trading::kFeatures * 16 + 2;

/// Everything one vector step reads and writes (device pointers; E copies, D floats a state, A actions).
struct CollectView {
  CollectEnv env = CollectEnv::kCartPole;
  int num_envs = 0;             ///< E
  CartPoleDevice cartpole;      ///< the copies when env is kCartPole
  TradingDevice trading;        ///< the copies when env is kTrading
  float* obs = nullptr;         ///< [E x D] observations acted on; replaced by the next ones
  const float* v = nullptr;     ///< [E] V of obs (dueling), or null: a holds Q
  const float* a = nullptr;     ///< [E x A] A of obs (or Q)
  int n_actions = 2;
  int state_dim = 4;
  // The n-step rule's pending rings (rules::NStepRing of each copy).
  float* ring_states = nullptr;    ///< [E x n x D]
  int32_t* ring_actions = nullptr; ///< [E x n]
  float* ring_rewards = nullptr;   ///< [E x n]
  int32_t* ring_head = nullptr;    ///< [E]
  int32_t* ring_count = nullptr;   ///< [E]
  int n_step = 1;
  double gamma = 0.99;
  TransitionRows emit;             ///< [E x n] copy i's emissions of this step at rows i n ..
  int32_t* emit_count = nullptr;   ///< [E] emissions of this step
  int32_t* emit_offset = nullptr;  ///< [E] their exclusive prefix sum
  TransitionRows rows;             ///< [E x n] the step's transitions in the host's order
  int64_t* row_count = nullptr;    ///< [1] how many
  int32_t* actions = nullptr;      ///< [E] the actions taken
  // Episode statistics per copy (no atomics: each copy's own sums, in its own order).
  double* ep_return = nullptr;     ///< [E] the running episode's return
  int32_t* ep_length = nullptr;    ///< [E]
  int64_t* episodes = nullptr;     ///< [E] episodes ended
  double* return_sum = nullptr;    ///< [E] sum of the ended episodes' returns
  double* last_return = nullptr;   ///< [E] the last ended episode's return
  int32_t* last_length = nullptr;  ///< [E]
  // The episode log (or null): every ended episode appended at an atomically claimed index, in
  // no particular order (the host sorts by env_step, which is unique); entries past
  // log_capacity are counted in *log_count but not written.
  EpisodeLogEntry* log = nullptr;
  uint32_t* log_count = nullptr;
  int64_t log_capacity = 0;
  CollectorControl* ctl = nullptr;
  // Exploration (rules::EpsilonAt, rules::DrawExploration).
  uint64_t seed = 1;
  double eps_start = 1, eps_end = 0.05;
  int64_t eps_decay_steps = 1, learning_starts = 0;
};

/// Most copies whose vector step is one single-block kernel.
inline constexpr int kMaxFusedCopies = 1024;

/// Step 1 above; `scan_temp` of CollectScanTempBytes(E) bytes (used beyond kMaxFusedCopies).
/// cudaErrorInvalidValue for E < 1 or more state floats than the environment's largest (4 for
/// CartPole, kMaxTradingObsDim for trading).
cudaError_t LaunchCollect(const CollectView& c, void* scan_temp, size_t scan_temp_bytes, cudaStream_t stream);
/// The copies' part of step 1 alone (one thread per copy, no row layout): part of LaunchCollect
/// beyond kMaxFusedCopies, and what the collector's benchmark times as "the step".
cudaError_t LaunchCollectStep(const CollectView& c, cudaStream_t stream);
/// Temp bytes of the emissions' scan over `copies` copies.
cudaError_t CollectScanTempBytes(int copies, size_t* bytes);
/// The rows of a CollectView as the replay's insert reads them.
inline InsertView RowsForInsert(const TransitionRows& r) {
  return {r.states, r.actions, r.rewards, r.next_states, r.dones, r.discounts};
}

}  // namespace dqn::cuda::detail
