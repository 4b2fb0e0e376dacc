// n-step returns for vectorized environments (Sutton & Barto 2018, sec. 7.1; Hessel et al.
// 2018, "Rainbow", multi-step learning; the per-copy rule in rules/n_step_rules.h, which the
// GPU collector shares): one accumulator per env copy turns single env steps
// into transitions (s_t, a_t, R_t^(k), s_{t+k}, discount) with R^(k) = sum_{j<k} gamma^j r_{t+j}:
//   - normally k = n and discount = gamma^n, emitted once n steps are known;
//   - at a terminal every pending step is emitted with its shorter k and discount 0 (done);
//   - at a truncation (time limit, end of data) every pending step is emitted with its k < n
//     (or = n), bootstrapping from the TRUE final observation with discount gamma^k;
//   - steps whose n-step window is not complete yet stay pending: nothing is emitted past the
//     newest collected step (the write head); they are emitted when later steps arrive.
// With n = 1 this is the plain one-step transition with discount gamma (0 at a terminal).
#pragma once
#include <cstdint>
#include <vector>

#include "replay/replay.h"

namespace dqn {

/// Transitions staged in host memory before one replay insert (structure of arrays).
class TransitionStaging {
 public:
  explicit TransitionStaging(int state_dim) : state_dim_(state_dim) {}
  void clear();
  void append(const float* s, int32_t a, float r, const float* s_next, bool done, float discount);
  int64_t count() const { return static_cast<int64_t>(actions_.size()); }
  int state_dim() const { return state_dim_; }
  /// A view for Replay::insert (valid until the next append/clear).
  TransitionBatch batch() const;
  const std::vector<float>& states() const { return states_; }
  const std::vector<int32_t>& actions() const { return actions_; }
  const std::vector<float>& rewards() const { return rewards_; }
  const std::vector<float>& next_states() const { return next_states_; }
  const std::vector<uint8_t>& dones() const { return dones_; }
  const std::vector<float>& discounts() const { return discounts_; }

 private:
  int state_dim_;
  std::vector<float> states_, rewards_, next_states_, discounts_;
  std::vector<int32_t> actions_;
  std::vector<uint8_t> dones_;
};

/// Per-copy n-step accumulators of a vectorized environment.
class NStepAccumulator {
 public:
  /// @throws std::invalid_argument unless num_envs >= 1, state_dim >= 1, n >= 1, gamma in [0, 1].
  NStepAccumulator(int num_envs, int state_dim, int n, double gamma);

  /// Records one step of copy `env`: observation s [D], action a, reward r, the true next
  /// observation s_next [D] (the final observation when the episode ended), and whether the
  /// episode terminated or was truncated there. Appends the transitions that became complete.
  void push(int env, const float* s, int32_t a, float r, const float* s_next, bool terminated, bool truncated,
            TransitionStaging& out);

  /// Steps of copy `env` still waiting for their n-step window.
  int pending(int env) const { return counts_[static_cast<size_t>(env)]; }

  /// Forgets every pending step (after the environments are reset).
  void clear();

 private:
  int n_, state_dim_;
  double gamma_;
  // Per copy, a ring of up to n pending steps starting at heads_[env].
  std::vector<float> states_;     // [num_envs x n x D]
  std::vector<int32_t> actions_;  // [num_envs x n]
  std::vector<float> rewards_;    // [num_envs x n]
  std::vector<int32_t> heads_, counts_;  // rules::NStepRing's head and count of each copy
};

}  // namespace dqn
