// The device evaluation walk of a trading run (issue 24 item 1; DESIGN section 7): plain structs
// shared by host code and kernels/eval_walk.cu, and its launchers. Compiles with a host C++
// compiler: no device code here.
//
// One trading copy in the kValidation or kTest role (a TradingDevice of n = 1) walks its span
// greedily: each step reads the acting forward's V and A of the copy's observation (queued
// before it by CudaLearner::queue_act_forward), takes rules::GreedyAction (the first maximum of
// the dueling Q, std::max_element's rule), steps the copy with the host's own step
// (env/trading_step.h: BookCopy, FinishStep) and records what the host's WalkLedger::Add reads.
// Once the walk ended (its last decision, or ruin) further steps do nothing, so the host queues
// the plan's number of steps without reading anything back in between.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "env/trading_step.h"
#include "kernels/env_launch.cuh"

namespace dqn::cuda::detail {

/// One step of an evaluation walk as the device recorded it.
struct EvalStepRecord {
  trading::StepRecord step;  ///< the decision (level, target), the order booked, its booking
  int32_t action = 0;        ///< the greedy action taken, in [0, NumActions)
  int32_t prev_level = 0;    ///< the decided level before the step (the changed-position count compares it)
  int32_t bars_end = 0;      ///< bar returns recorded through this step (the step's are [previous bars_end, bars_end))
  float reward = 0;          ///< the step's reward as FinishStep writes it (f32, reward_scale x the booked return)
};

/// Where a walk stands (device memory, one per walk).
struct EvalWalkState {
  int32_t steps = 0;  ///< steps recorded
  int32_t bars = 0;   ///< bar returns booked (may exceed max_bars only if the sizing is wrong: the host checks)
  int32_t ended = 0;  ///< 1 once the walk ended (last decision or ruin): later steps do nothing
};

/// The device buffers of one evaluation walk.
struct EvalWalkView {
  TradingDevice env;                  ///< one copy (n = 1) of the kValidation or kTest role
  float* obs = nullptr;               ///< [obs_dim] the copy's current observation (the acting forward's input)
  float* final_obs = nullptr;         ///< [obs_dim] scratch: FinishStep's observation after the step
  const float* v = nullptr;           ///< [1] the acting forward's V (dueling), or null
  const float* a = nullptr;           ///< [n_actions] its A (dueling) or Q
  int n_actions = 0;
  EvalStepRecord* records = nullptr;  ///< [max_steps]
  int32_t max_steps = 0;              ///< the plan's steps: (N - 1) / decision_interval + 1
  double* bar_returns = nullptr;      ///< [max_bars] per-bar returns of the equity curve, in order
  int32_t max_bars = 0;               ///< bars the walk can book: d_{N-1} + 1 - d_0
  EvalWalkState* state = nullptr;
};

/// Restarts the walk's copy at its first decision, writes its first observation into view.obs
/// and clears view.state. @returns the launch's error.
cudaError_t LaunchEvalWalkReset(const EvalWalkView& view, cudaStream_t stream);
/// One greedy step of the walk from view.v and view.a (nothing once it ended). @returns the launch's error.
cudaError_t LaunchEvalWalkStep(const EvalWalkView& view, cudaStream_t stream);

}  // namespace dqn::cuda::detail
