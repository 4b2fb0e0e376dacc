// The learner's options: one struct for both backends (DESIGN section 4). Plain data with no
// host-only members, so the CUDA learner passes it by value into its kernels unchanged (inside
// kernels/learner_launch.cuh's LearnerParams) and the kernels read the same fields the CPU
// learner reads. Defaults and ranges: common/config.ts, sections optim, schedule and network.
#pragma once
#include <cstdint>

namespace dqn {

/// Adam hyper-parameters (Kingma and Ba 2015).
struct AdamConfig {
  double lr = 2.5e-4;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
};

enum class TargetUpdate : int { kHard = 0, kPolyak = 1 };

/// Arithmetic of the matrix products (config network.precision), FP32 accumulation always: FP32
/// (the reference; SIMT on the GPU), TF32 or BF16 tensor cores. The CPU learner computes in FP32
/// whatever is asked.
enum class Precision : int { kFP32 = 0, kTF32 = 1, kBF16 = 2 };

/// Learner options (see common/config.ts, optim and schedule sections, for defaults and ranges).
struct LearnerConfig {
  AdamConfig adam;
  double lr_end = 0;            ///< learning rate reached after lr_decay_steps (linear schedule)
  int64_t lr_decay_steps = 0;   ///< 0 = constant adam.lr
  double grad_clip = 10;  ///< global grad-norm clip, 0 = off
  int64_t batch_size = 256;
  bool double_dqn = true;
  double huber_delta = 1;
  TargetUpdate target_update = TargetUpdate::kHard;
  int64_t target_interval = 1000;  ///< hard: copy every C steps
  double tau = 0.005;              ///< Polyak: target += tau (online - target) every step
  int64_t q_stats_interval = 100;
  int64_t causal_interval = 1000;
  int64_t act_rows = 64;  ///< rows per forward of greedy() (larger calls are chunked)
  Precision precision = Precision::kTF32;
  /// CUDA: training steps between asynchronous refreshes of the host's acting weights.
  int64_t actor_sync_interval = 50;
  /// CUDA: a run is reproducible bit for bit from its seed on the same GPU and build: the acting
  /// weights change at fixed training steps (the refresh queued at every actor_sync_interval-th
  /// step is waited for by the next action instead of being taken whenever its copy has landed).
  /// Costs one host wait per actor_sync_interval steps. The CPU learner is deterministic always.
  bool deterministic = false;
  /// CUDA: training steps per graph launch (K steps unrolled in one CUDA graph; 1 in the trainer
  /// loop, which collects between steps; larger in benchmarks).
  int steps_per_launch = 1;
};

}  // namespace dqn
