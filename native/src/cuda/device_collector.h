// The GPU collector (issue 24; DESIGN sections 1, 4 and 7): environment copies (CartPole or
// trading) on the device, acted on from the learner's online weights as they are on the device
// (no host copy, no refresh interval), their n-step transitions written straight into the GPU
// replay at max priority. One vector step is a few launches on the learner's stream (kernels/collect_launch.cuh lists them)
// and reads nothing on the host: training launches it as one CUDA graph (launch()), and a run of
// vector steps and training steps can be captured in one graph. The rules are the host's: the
// environment's step (env/cartpole_dynamics.h, bit for bit with CartPoleVecEnv; or
// env/trading_step.h, bit for bit with the training TradingEnv), the n-step rule
// (rules/n_step_rules.h, bit for bit with NStepAccumulator), epsilon-greedy from counter-based draws (rules/act_rules.h);
// native/test/cuda/env_cuda_tool.cpp and collect_cuda_tool.cpp check each against the host step
// by step. Only training episodes step here: a trading run's evaluation walks step on the device
// in cuda/device_eval_walk.h.
//
// Usage:
//   DeviceCollector c(config, net);        // throws CudaError (out of memory, ...)
//   c.launch(learner, replay);             // one vector step as a graph, on replay.stream(); nothing waits
//   c.statistics();                        // the epoch boundary: synchronizes
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cuda/cuda_learner.h"
#include "env/make_env.h"
#include "kernels/collect_launch.cuh"
#include "model/param_layout.h"

namespace dqn::cuda {

class CudaReplay;
class DeviceTradingEnv;

/// What a DeviceCollector collects with (the trainer's fields of the same names).
struct DeviceCollectorConfig {
  int num_envs = 1;            ///< E, environment copies
  uint64_t seed = 1;           ///< copy i resets from Rng(seed, 1000 + i) (CartPoleVecEnv, the training TradingEnv); exploration from DrawExploration(seed, ..)
  int max_episode_steps = 500; ///< CartPole's truncation
  /// The trading environment's spec (its num_envs and seed are the two above), or none: CartPole.
  std::optional<EnvSpec> trading;
  int n_step = 1;
  double gamma = 0.99;
  double eps_start = 1.0, eps_end = 0.05;
  int64_t eps_decay_steps = 50000;  ///< env steps (all copies)
  int64_t learning_starts = 0;      ///< env steps with random actions first
  bool simulate_oom = false;        ///< test switch: the allocation fails as out of memory (env.simulate_collector_oom)
};

class DeviceCollector {
 public:
  /// Allocates the copies, rings, emission and row buffers and the acting forward's activations
  /// (one device block) and resets every copy (queued on the default stream, then waited for).
  /// Trading copies upload their tables first (DeviceTradingEnv, the training role).
  /// @throws std::invalid_argument unless num_envs >= 1, max_episode_steps >= 1, n_step >= 1,
  ///         gamma in [0, 1], eps_decay_steps >= 1 and net's inputs and actions are the
  ///         environment's (CartPole: 4 and 2; trading: ObsDim <= kMaxTradingObsDim and
  ///         NumActions), or for the trading spec's faults (as MakeTradingEnv);
  ///         CudaError when the buffers do not fit (or simulate_oom): "out of memory: the GPU collector of E
  ///         environments needs N GiB, M GiB free" (or the trading tables' own message).
  DeviceCollector(const DeviceCollectorConfig& config, const NetConfig& net);
  ~DeviceCollector();
  DeviceCollector(const DeviceCollector&) = delete;
  DeviceCollector& operator=(const DeviceCollector&) = delete;

  /// One vector step: act(), then advance(), queued launch by launch (capturable).
  void step(CudaLearner& learner, CudaReplay& replay);
  /// One vector step as one CUDA graph launch: the first call (and the first after the learner
  /// or the replay changed) runs step() eagerly, the next captures it, later ones replay it.
  /// @throws CudaError when a launch, the capture or the instantiation fails.
  void launch(CudaLearner& learner, CudaReplay& replay);
  /// The acting forward over the copies' observations (V and A into view().v and view().a), queued on
  /// replay.stream(), which must be the stream the learner's steps run on.
  void act(CudaLearner& learner, CudaReplay& replay);
  /// Epsilon-greedy actions from the last act(), the copies' step, the n-step rule, and the
  /// counted insert of the emitted transitions, queued on replay.stream().
  void advance(CudaReplay& replay);

  /// Most transitions one vector step can emit: E n.
  int64_t max_rows_per_step() const { return static_cast<int64_t>(config_.num_envs) * config_.n_step; }
  const DeviceCollectorConfig& config() const { return config_; }
  /// The device buffers (for checks that read them after synchronizing).
  const detail::CollectView& view() const { return view_; }

  /// Episode statistics summed over the copies (synchronizes: the epoch boundary).
  struct Statistics {
    int64_t vector_steps = 0, env_steps = 0, episodes = 0;
    double return_sum = 0;                   ///< of the ended episodes, summed copy by copy in copy order
    std::vector<int64_t> episodes_per_copy;  ///< [E]
    std::vector<double> return_sum_per_copy; ///< [E]
  };
  Statistics statistics(const CudaReplay& replay) const;

  /// The episodes ended since the last drain, in the host's order (by env step), and empties
  /// the log (room for E x 1,024 of them, at least 65,536, at most 2^22); *dropped receives how many ended beyond its room
  /// (counted, not listed). Synchronizes s (the stream the steps were queued on: the epoch boundary).
  std::vector<detail::EpisodeLogEntry> drain_log(cudaStream_t s, int64_t* dropped);
  /// Sets the counters of the epsilon schedule and the exploration stream as after env_steps
  /// env steps (a resumed run; env_steps a multiple of E), queued on s.
  void set_env_steps(cudaStream_t s, int64_t env_steps);

 private:
  DeviceCollectorConfig config_;
  std::unique_ptr<DeviceTradingEnv> trading_;  // the trading copies' tables, states and streams (or null: CartPole)
  void* block_ = nullptr;
  void* scan_temp_ = nullptr;
  size_t scan_temp_bytes_ = 0;
  detail::CollectView view_;
  CudaLearner::ActForward act_;  // the acting forward's buffers (obs in, activations, V and A out), set once
  cudaGraphExec_t exec_ = nullptr;  // launch()'s graph of step(), captured against these two:
  const CudaReplay* exec_replay_ = nullptr;
  const CudaLearner* exec_learner_ = nullptr;
  int64_t launches_ = 0;            // launch() calls since exec_'s learner and replay were set
};

}  // namespace dqn::cuda
