// The learner options the CUDA tools (learner_cuda_tool, collect_cuda_tool) start from.
#pragma once
#include <cstdint>

#include "train/learner_config.h"

/// Batch `batch` at `precision`: the config's default lr (2.5e-4), clipping at 10, Polyak
/// target updates (tau 0.01), Q-stats every step, the causal probe effectively off.
inline dqn::LearnerConfig MakeConfig(int64_t batch, dqn::Precision precision) {
  dqn::LearnerConfig c;
  c.batch_size = batch;
  c.adam.lr = 2.5e-4;  // the config's default
  c.grad_clip = 10;
  c.target_update = dqn::TargetUpdate::kPolyak;
  c.tau = 0.01;
  c.q_stats_interval = 1;
  c.causal_interval = 1000000;
  c.precision = precision;
  return c;
}
