// n-step transition accumulators (see n_step.h).
#include "train/n_step.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace dqn {

void TransitionStaging::clear() {
  states_.clear();
  actions_.clear();
  rewards_.clear();
  next_states_.clear();
  dones_.clear();
  discounts_.clear();
}

void TransitionStaging::append(const float* s, int32_t a, float r, const float* s_next, bool done, float discount) {
  states_.insert(states_.end(), s, s + state_dim_);
  actions_.push_back(a);
  rewards_.push_back(r);
  next_states_.insert(next_states_.end(), s_next, s_next + state_dim_);
  dones_.push_back(done ? 1 : 0);
  discounts_.push_back(discount);
}

TransitionBatch TransitionStaging::batch() const {
  return {states_.data(), actions_.data(), rewards_.data(), next_states_.data(), dones_.data(), discounts_.data(),
          count()};
}

NStepAccumulator::NStepAccumulator(int num_envs, int state_dim, int n, double gamma)
    : n_(n), state_dim_(state_dim), gamma_(gamma) {
  if (num_envs < 1 || state_dim < 1 || n < 1 || !(gamma >= 0 && gamma <= 1))
    throw std::invalid_argument("n-step accumulator needs num_envs >= 1, state_dim >= 1, n >= 1, gamma in [0, 1]; got " +
                                std::to_string(num_envs) + ", " + std::to_string(state_dim) + ", " + std::to_string(n) +
                                ", " + std::to_string(gamma));
  const auto e = static_cast<size_t>(num_envs), slots = e * static_cast<size_t>(n);
  states_.resize(slots * static_cast<size_t>(state_dim));
  actions_.resize(slots);
  rewards_.resize(slots);
  heads_.assign(e, 0);
  counts_.assign(e, 0);
}

void NStepAccumulator::clear() {
  std::fill(heads_.begin(), heads_.end(), 0);
  std::fill(counts_.begin(), counts_.end(), 0);
}

void NStepAccumulator::emit(int env, int i, const float* s_next, bool terminated, TransitionStaging& out) const {
  const size_t e = static_cast<size_t>(env);
  const int count = counts_[e];
  double ret = 0, discount = 1;
  for (int j = i; j < count; ++j) {
    const size_t slot = e * static_cast<size_t>(n_) + static_cast<size_t>((heads_[e] + j) % n_);
    ret += discount * rewards_[slot];
    discount *= gamma_;
  }
  // discount is now gamma^k with k = count - i steps; a terminal has nothing to bootstrap from.
  const size_t first = e * static_cast<size_t>(n_) + static_cast<size_t>((heads_[e] + i) % n_);
  out.append(&states_[first * static_cast<size_t>(state_dim_)], actions_[first], static_cast<float>(ret), s_next,
             terminated, terminated ? 0.0f : static_cast<float>(discount));
}

void NStepAccumulator::push(int env, const float* s, int32_t a, float r, const float* s_next, bool terminated,
                            bool truncated, TransitionStaging& out) {
  const size_t e = static_cast<size_t>(env);
  const size_t slot = e * static_cast<size_t>(n_) + static_cast<size_t>((heads_[e] + counts_[e]) % n_);
  std::copy(s, s + state_dim_, &states_[slot * static_cast<size_t>(state_dim_)]);
  actions_[slot] = a;
  rewards_[slot] = r;
  ++counts_[e];
  if (terminated || truncated) {
    // The episode ended: every pending step gets its (shorter) return now.
    for (int i = 0; i < counts_[e]; ++i) emit(env, i, s_next, terminated, out);
    heads_[e] = 0;
    counts_[e] = 0;
  } else if (counts_[e] == n_) {
    // The oldest step's n-step window is complete.
    emit(env, 0, s_next, false, out);
    heads_[e] = (heads_[e] + 1) % n_;
    --counts_[e];
  }
}

}  // namespace dqn
