// The native Trainer: vectorized env + n-step accumulator + replay buffer + DQN learner, with
// epsilon-greedy collection, greedy evaluation on a separate env, checkpoints of the learner
// state, and the live scalar block. Methods are blocking; the addon runs run() and evaluate()
// on worker threads, one at a time per trainer (stop() may come from any thread).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cpu/rng.h"
#include "env/make_env.h"
#include "env/vec_env.h"
#include "replay/make_replay.h"
#include "replay/replay.h"
#include "train/device_collection.h"
#include "train/device_evaluation.h"
#include "train/learner.h"
#include "train/n_step.h"
#include "train/scalar_block.h"

namespace dqn {

/// Linear epsilon-greedy schedule over env steps (Mnih et al. 2015).
struct ExplorationConfig {
  double eps_start = 1.0;
  double eps_end = 0.05;
  int64_t eps_decay_steps = 50000;  ///< env steps from eps_start to eps_end
};

/// Everything a trainer needs (converted from the validated RunConfig by the binding).
struct TrainerConfig {
  uint64_t seed = 1;     ///< every random stream derives from it
  Compute compute = Compute::kCpu;  ///< where the learner computes (the binding resolves 'auto')
  EnvSpec env;
  NetConfig net;         ///< state_dim and n_actions are taken from the environment
  LearnerConfig learner;
  ReplayConfig replay;   ///< state_dim and seed are set by the trainer
  ReplayPlacement replay_placement;  ///< CPU or GPU replay (config replay.device; auto follows the compute backend)
  double gamma = 0.99;
  int n_step = 1;
  ExplorationConfig exploration;
  int64_t learning_starts = 1000;  ///< env steps with random actions before the first gradient step
  int64_t train_every = 1;         ///< env steps (all copies) per gradient step
  Collector collector = Collector::kAuto;  ///< where the training environments step (MakeCollection decides)
  bool simulate_collector_oom = false;     ///< test switch: the device collector's allocation fails as out of memory
};

/// Outcome of one run() call.
struct RunStats {
  int64_t steps = 0;     ///< gradient steps done in this call
  bool stopped = false;  ///< ended early by stop()
  std::vector<double> episode_returns;  ///< training episodes finished in this call, in order
  std::vector<int64_t> episode_env_steps;  ///< env step (all copies counted) at which each one finished
};

/// Outcome of a greedy evaluation.
struct EvalStats {
  bool stopped = false;  ///< request_stop() ended it early: the counts cover the episodes finished by then
  int episodes = 0;
  double mean_return = 0;
  std::vector<double> returns;
  std::map<std::string, double> metrics;
  /// Per-bar series of the last episode (VecEnv::episode_series; trading only, else empty).
  std::map<std::string, std::vector<double>> series;
};

/// Builds the trainer's learner from the shapes and options the trainer derived (state and
/// action sizes from the environment), its seed and the environment's causal features.
using LearnerFactory = std::function<std::shared_ptr<Learner>(const NetConfig&, const LearnerConfig&, uint64_t seed,
                                                              std::vector<FeatureGroup> causal_features)>;

/// The trainer: collection on the host (or on the GPU: device_collection.h), the learner on the
/// compute backend.
class Trainer {
 public:
  /// Builds the environments (MakeEnv with kTrain, kValidation and, for a trading spec with a
  /// test span, kTest), the replay buffer (MakeReplay: CPU, or GPU with its fallback) and the
  /// learner (`make`, or MakeLearner for config.compute). With the CUDA learner the scalar block
  /// is its pinned host block.
  /// @throws std::invalid_argument for an invalid config; CUDA: std::runtime_error when the
  /// learner does not fit or cannot run.
  explicit Trainer(const TrainerConfig& config, const LearnerFactory& make = {});

  /// Runs `steps` gradient steps: first the learning_starts env steps with random actions, then
  /// train_every env steps (epsilon-greedy) per gradient step; each step samples a batch,
  /// learns, and writes the TD errors back as priorities. Returns early after request_stop().
  /// With the CUDA learner the steps are queued; the call ends with the epoch boundary's
  /// synchronization (Learner::finish), so the scalars are then exact.
  /// @throws std::runtime_error "NaN in <tensor> at step S" when a NaN flag is set (the trainer
  ///         then stays halted: later calls throw the same error); DeviceLost ("CUDA context
  ///         lost: ...") when the GPU became unusable.
  RunStats run(int64_t steps);
  /// run()'s parts, for TrainerGroup, which trains its members' learners in one call between
  /// them: begin_run checks the trainer may run (and readies the device collector for `steps`
  /// gradient steps); collect_until_due collects (on the device: queues vector steps) (random actions
  /// for the first learning_starts env steps, then epsilon-greedy) until the next gradient step
  /// is due, false when a stop request came first; after_train takes the step's NaN flags
  /// (throwing as run() does); end_run is the epoch boundary's finish, and fills stats.stopped.
  void begin_run(int64_t steps);
  bool collect_until_due(RunStats& stats);
  void after_train(uint32_t flags, RunStats& stats);
  void end_run(int64_t steps, RunStats& stats);
  Replay& replay() { return *replay_; }

  /// Makes a running run() return after the current step (thread-safe).
  void request_stop() noexcept { stop_.store(true, std::memory_order_relaxed); }
  /// Clears a stop request (the binding calls it when it starts run()).
  void clear_stop() noexcept { stop_.store(false, std::memory_order_relaxed); }

  /// Greedy (epsilon 0) evaluation over `episodes` >= 1 episodes on the evaluation env of `span`
  /// (kValidation: what selection reads; kTest: the held-out span, reported apart), which is
  /// reset first. Episodes are assigned to copies as they start, so short episodes are not
  /// over-represented. request_stop() ends it after the current env step (`stopped`). A trading
  /// run that collects on the device walks the span on the device (DeviceEvaluation: one walk,
  /// read back once, reported by the host env's code; a stop request is seen before the walk,
  /// not inside it); when a walk fails there, it and later ones walk on the host and
  /// collector_reason() says why.
  /// @throws std::invalid_argument for kTrain, or kTest when the env has no test span.
  EvalStats evaluate(int episodes, EnvRole span = EnvRole::kValidation);

  /// Versioned binary state (trainer_state.cpp): network shapes, the heads description
  /// (DescribeHeads, model/heads.h), online and target weights, Adam m, v and step, spectral
  /// normalisation's vectors, exploration RNG, counters (step, env_steps, episodes), the replay's
  /// sample_steps and the last batch's beta.
  /// The replay contents and the environments are not included.
  std::vector<uint8_t> save_state();
  /// Restores save_state() output, of this version or version 1 (the plain Q head).
  /// @throws std::invalid_argument when the blob is malformed, of another version, or its shapes
  ///         or heads differ from this trainer's (the message names each difference).
  void load_state(const uint8_t* data, size_t size);

  /// The live scalar block. Writes go to `redirect_scalars`' target once set.
  ScalarBlock& scalars() { return *scalars_; }
  /// Makes the trainer write its scalars into dst from now on (copying the current values);
  /// dst must outlive the trainer's use of it (for hosts that cannot map native memory).
  void redirect_scalars(ScalarBlock* dst);

  int state_dim() const { return env_->obs_dim(); }
  int n_actions() const { return env_->num_actions(); }
  std::string replay_backend() const { return replay_->backend(); }
  /// Host bytes the replay buffer holds (0 for a GPU buffer); the binding reports them to V8.
  int64_t replay_host_bytes() const { return replay_->host_memory_bytes(); }
  /// Why the replay buffer is on the CPU although the GPU was asked for ("" otherwise): set at
  /// construction (no device, out of memory) or later (a replay kernel failed).
  std::string replay_fallback_reason() const;
  std::vector<std::string> causal_feature_names() const;
  double epsilon() const;  ///< epsilon at the current env step
  Learner& learner() { return *learner_; }
  std::string compute_backend() const { return learner_->backend(); }
  /// Where the training environments step now: "device" or "host".
  std::string collector() const { return device_ ? "device" : "host"; }
  /// Why they step on the host although the config allowed the device: set at construction (no
  /// kernel for this env, CPU backend, rank sampler, out of memory, ...) or later (the replay
  /// moved to the CPU). On the device, where a trading run's evaluation walks step (the GPU too,
  /// or the host and why: TradingDeviceNote); "" otherwise.
  std::string collector_reason() const { return collector_reason_; }

 private:
  void collect(bool random_actions, RunStats& stats);
  /// After a vector step of either collector: env_steps advanced by the copies, and epsilon (1
  /// while the step's actions were random).
  void count_vector_step(bool random_actions);
  /// collect_until_due on the device: queues vector steps until the next gradient step is due;
  /// false when the device stopped collecting (the host takes over).
  bool queue_until_due(int64_t needed, RunStats& stats);
  /// The epoch boundary of device collection: the ended episodes into stats and the scalars.
  void drain_device(RunStats& stats);
  /// evaluate() on the device (device_eval_ set): one walk of `span` stands for `episodes`.
  /// @throws as DeviceEvaluation::walk.
  EvalStats evaluate_on_device(int episodes, EnvRole span);
  [[noreturn]] void halt(uint32_t flags, int64_t step);

  TrainerConfig config_;
  std::unique_ptr<VecEnv> env_, eval_env_, test_env_;  // test_env_: null without a test span
  std::unique_ptr<Replay> replay_;
  std::string replay_fallback_;
  std::function<std::string()> replay_runtime_fallback_;
  std::shared_ptr<Learner> learner_;  // shared with its seed group, if any (MemberOf)
  std::unique_ptr<DeviceCollection> device_;  // null: the host collects
  std::unique_ptr<DeviceEvaluation> device_eval_;  // null: evaluation walks step on the host (trading's on the GPU when set)
  std::string collector_reason_;
  int64_t device_fill_until_ = 0;  // env steps the device collects before a run's first gradient step
  NStepAccumulator n_step_;
  TransitionStaging staging_;
  Rng explore_rng_;
  ScalarBlock own_scalars_;
  ScalarBlock* scalars_ = &own_scalars_;
  std::atomic<bool> stop_{false};
  std::string halted_;
  /// Transitions to collect (with the current policy) before training goes on after a
  /// load_state: the replay contents are not part of a checkpoint, so a resumed run refills
  /// min(learning_starts, capacity) transitions first instead of training on a near-empty buffer.
  int64_t refill_ = 0;

  // Env copies' current observations and step outputs.
  std::vector<float> obs_, next_obs_, final_obs_, rewards_;
  std::vector<int32_t> actions_, greedy_;
  std::vector<uint8_t> terminated_, truncated_;
  std::vector<double> ep_return_;
  std::vector<int64_t> ep_length_;

};

}  // namespace dqn
