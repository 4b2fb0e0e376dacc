// A trading run's evaluation walk on the device (issue 24 item 1; DESIGN sections 4 and 7): one
// copy of the validation or test span's trading environment (DeviceTradingEnv, n = 1) acting
// greedily (epsilon 0, the first maximum of Q: rules::GreedyAction) from the online weights as
// they are on the device (CudaLearner::queue_act_forward: the learner's own program and tiles,
// no host copy of the weights), each step booked with the host's step (env/trading_step.h) and
// recorded on the device (kernels/eval_walk.cu). The host queues the plan's whole walk with no
// synchronization inside it (a walk ruined early does nothing in its later steps), reads the
// record once at the end, rebuilds the WalkLedger the host's env would have added up (the same
// WalkLedger::Add, step by step) and reports it with the host env's own code (ReportWalk), so the
// figures are bit for bit those of a host walk taking the same actions.
//
// Usage:
//   DeviceEvalWalk walk(spec, EnvRole::kValidation, net);   // throws std::invalid_argument, CudaError
//   const DeviceEvalWalk::Result r = walk.run(learner, replay_stream);   // one synchronization
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/cuda_learner.h"
#include "cuda/device_trading_env.h"
#include "env/trading_report.h"
#include "kernels/eval_walk_launch.cuh"
#include "model/param_layout.h"

namespace dqn::cuda {

class DeviceEvalWalk {
 public:
  /// Uploads the tables of `role`'s span (spec's num_envs is taken as 1), computes the walk's
  /// baselines on the host (as the host's evaluation env does once) and allocates the record,
  /// sized from the span's plan: one EvalStepRecord per step ((N - 1) / decision_interval + 1)
  /// and one f64 per bar the walk can book (d_{N-1} + 1 - d_0).
  /// @param role kValidation or kTest.
  /// @param net the learner's network (its input and action counts must be the environment's).
  /// @param simulate_oom test switch: the record's allocation fails as out of memory.
  /// @throws std::invalid_argument for kTrain, a network of other shapes, or the spec's faults (as
  ///   MakeTradingEnv); CudaError when the tables or the record do not fit ("out of memory: the
  ///   GPU evaluation walk of N steps needs X GiB, Y GiB free") or a copy fails.
  DeviceEvalWalk(const EnvSpec& spec, EnvRole role, const NetConfig& net, bool simulate_oom = false);
  ~DeviceEvalWalk();
  DeviceEvalWalk(const DeviceEvalWalk&) = delete;
  DeviceEvalWalk& operator=(const DeviceEvalWalk&) = delete;

  /// What one walk did and reports.
  struct Result {
    std::vector<int32_t> actions;  ///< [steps] the greedy actions taken
    std::vector<float> rewards;    ///< [steps] each step's reward (reward_scale x the booked return, f32)
    double ret = 0;                ///< the rewards summed in f64, in order (the host evaluate()'s episode return)
    WalkLedger ledger;             ///< as the host's evaluation env adds it up
    WalkReport report;             ///< ReportWalk(ledger, the setup, the baselines)
  };
  /// Walks the span once from its first decision: queues on `stream` (the stream the learner's
  /// steps run on, so the walk acts from the weights of every step queued before it) the reset,
  /// then per step the acting forward and the step (2 launches a step, nothing waits), then one
  /// copy of the record and one synchronization (counted).
  /// @throws CudaError when a launch or the copy fails; std::runtime_error when the record
  ///   overflowed its bars (a sizing fault; never expected).
  Result run(CudaLearner& learner, cudaStream_t stream);

  /// Steps of a whole walk (the plan's; a ruined walk records fewer).
  int32_t max_steps() const { return view_.max_steps; }
  const TradingSetup& setup() const { return env_->setup(); }

 private:
  std::unique_ptr<DeviceTradingEnv> env_;
  BaselineWalks baselines_;
  detail::EvalWalkView view_;
  CudaLearner::ActForward act_;
  void* block_ = nullptr;
};

}  // namespace dqn::cuda
