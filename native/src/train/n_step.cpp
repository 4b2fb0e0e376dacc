// n-step transition accumulators (see n_step.h).
#include "train/n_step.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "rules/n_step_rules.h"

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

void NStepAccumulator::push(int env, const float* s, int32_t a, float r, const float* s_next, bool terminated,
                            bool truncated, TransitionStaging& out) {
  const size_t e = static_cast<size_t>(env), first = e * static_cast<size_t>(n_);
  const rules::NStepRing ring{&states_[first * static_cast<size_t>(state_dim_)], &actions_[first], &rewards_[first], heads_[e],
                              counts_[e], n_, state_dim_};
  rules::NStepPush(ring, s, a, r, s_next, terminated, truncated, gamma_,
                   [&](const float* s0, int32_t a0, float ret, const float* s1, bool done, float discount) {
                     out.append(s0, a0, ret, s1, done, discount);
                   });
}

}  // namespace dqn
