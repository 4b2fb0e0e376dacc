// Epsilon-greedy acting (Mnih et al. 2015) as the GPU collector does it (issue 24), defined once
// for its kernel (kernels/collect.cu) and for the host code that checks it
// (native/test/cuda/collect_cuda_tool.cpp): the epsilon schedule in float64 with one rounding per
// operation, the exploration draws from a counter-based stream (Philox4x32-10 keyed by the run
// seed, counter = (vector step, copy)), so that a copy's draw at a step does not depend on any
// other copy or on the order of work, and the greedy action of the dueling combine with the
// first maximum winning a tie (std::max_element's rule).
#pragma once
#include <cstdint>

#include "replay/philox.h"
#include "rules/exact_ops.h"
#include "rules/step_rules.h"

namespace dqn::rules {

/// Epsilon after `env_steps` env steps (all copies counted): 1 before learning_starts (random
/// actions), then eps_start + (eps_end - eps_start) min(1, env_steps / decay_steps).
DQN_HD inline double EpsilonAt(double eps_start, double eps_end, int64_t decay_steps, int64_t learning_starts, int64_t env_steps) {
  if (env_steps < learning_starts) return 1.0;
  const double progress = DivD(static_cast<double>(env_steps), static_cast<double>(decay_steps));
  return AddD(eps_start, MulD(SubD(eps_end, eps_start), progress < 1.0 ? progress : 1.0));
}

/// One copy's exploration draw at one vector step: u uniform in [0, 1) (53 bits) decides
/// exploring (u < epsilon); `random_action` is uniform in [0, n_actions) (Lemire's
/// multiply-shift on 32 bits).
struct ExploreDraw {
  double u;
  int32_t random_action;
};

/// Word 3 of the exploration counter, which keeps its stream apart from other Philox streams
/// of the same seed ("EXPL").
inline constexpr uint32_t kExploreStream = 0x4558504cu;

DQN_HD inline ExploreDraw DrawExploration(uint64_t seed, int64_t vector_step, int copy, int n_actions) {
  const PhiloxCounter c = Philox4x32_10(
      {static_cast<uint32_t>(vector_step), static_cast<uint32_t>(static_cast<uint64_t>(vector_step) >> 32),
       static_cast<uint32_t>(copy), kExploreStream},
      PhiloxKeyFromSeed(seed));
  return {UniformFromBits(c[0], c[1]),
          static_cast<int32_t>((static_cast<uint64_t>(c[2]) * static_cast<uint64_t>(n_actions)) >> 32)};
}

/// mean_a A(s, a) of one row [n_actions] in f32, summed in order, then divided: the dueling
/// combine's baseline as the collector computes it.
DQN_HD inline float AdvantageMean(const float* adv, int n_actions) {
  float sum = 0;
  for (int k = 0; k < n_actions; ++k) sum = AddF(sum, adv[k]);
  return DivF(sum, static_cast<float>(n_actions));
}

/// argmax_a Q(s, a) of one row, the first maximum on a tie: Q = V + A - mean(A) (DuelingQ with
/// AdvantageMean) when v is given, Q = A otherwise. adv [n_actions].
DQN_HD inline int32_t GreedyAction(const float* adv, const float* v, int n_actions) {
  const float mean = v ? AdvantageMean(adv, n_actions) : 0.0f;
  int32_t best = 0;
  float best_q = v ? DuelingQ(*v, adv[0], mean) : adv[0];
  for (int k = 1; k < n_actions; ++k) {
    const float q = v ? DuelingQ(*v, adv[k], mean) : adv[k];
    if (q > best_q) best = k, best_q = q;
  }
  return best;
}

}  // namespace dqn::rules
