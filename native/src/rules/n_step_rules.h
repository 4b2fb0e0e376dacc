// The n-step rule of one environment copy (Sutton & Barto 2018, sec. 7.1; Hessel et al. 2018,
// "Rainbow", multi-step learning), defined once for the host's NStepAccumulator (train/n_step.*)
// and the GPU collector's kernel (kernels/collect.cu, issue 24): the same pending ring, the same
// emission order and the same float64 operations (rules/exact_ops.h), so both sides emit the
// same transitions bit for bit.
//   - normally the oldest pending step is emitted once n steps are known: k = n, discount gamma^n;
//   - at a terminal every pending step is emitted, oldest first, with its shorter k and discount 0;
//   - at a truncation every pending step is emitted with its k, bootstrapping from the TRUE final
//     observation with discount gamma^k;
//   - nothing is emitted past the newest collected step (the write head).
#pragma once
#include <cstdint>

#include "rules/exact_ops.h"

namespace dqn::rules {

/// One copy's pending steps: a ring of up to n steps starting at `head`, `count` of them.
/// states [n x state_dim] f32, actions [n], rewards [n] (f32, as the environment returned them).
struct NStepRing {
  float* states;
  int32_t* actions;
  float* rewards;
  int32_t& head;
  int32_t& count;
  int n;
  int state_dim;
};

/// Emits pending entry i (0 = oldest) of `ring`: R = sum_j gamma^j r_j over entries i..count-1
/// in float64 (one rounding per operation), bootstrapping from s_next with discount gamma^k, or
/// 0 at a terminal. emit(s [state_dim], a, R as f32, s_next, done, discount as f32).
template <typename Emit>
DQN_HD inline void NStepEmit(const NStepRing& ring, int i, const float* s_next, bool terminated, double gamma, Emit& emit) {
  double ret = 0, discount = 1;
  for (int j = i; j < ring.count; ++j) {
    const int slot = (ring.head + j) % ring.n;
    ret = AddD(ret, MulD(discount, static_cast<double>(ring.rewards[slot])));
    discount = MulD(discount, gamma);
  }
  const int first = (ring.head + i) % ring.n;
  emit(ring.states + static_cast<int64_t>(first) * ring.state_dim, ring.actions[first], static_cast<float>(ret), s_next,
       terminated, terminated ? 0.0f : static_cast<float>(discount));
}

/// Records one step of the copy: observation s [state_dim], action a, reward r, the true next
/// observation s_next (the final observation when the episode ended), and whether the episode
/// terminated or was truncated there; emits, oldest first, the transitions that became complete.
template <typename Emit>
DQN_HD inline void NStepPush(NStepRing ring, const float* s, int32_t a, float r, const float* s_next, bool terminated,
                             bool truncated, double gamma, Emit&& emit) {
  const int slot = (ring.head + ring.count) % ring.n;
  for (int k = 0; k < ring.state_dim; ++k) ring.states[static_cast<int64_t>(slot) * ring.state_dim + k] = s[k];
  ring.actions[slot] = a;
  ring.rewards[slot] = r;
  ++ring.count;
  if (terminated || truncated) {
    // The episode ended: every pending step gets its (shorter) return now.
    for (int i = 0; i < ring.count; ++i) NStepEmit(ring, i, s_next, terminated, gamma, emit);
    ring.head = 0;
    ring.count = 0;
  } else if (ring.count == ring.n) {
    // The oldest step's n-step window is complete.
    NStepEmit(ring, 0, s_next, false, gamma, emit);
    ring.head = (ring.head + 1) % ring.n;
    --ring.count;
  }
}

}  // namespace dqn::rules
