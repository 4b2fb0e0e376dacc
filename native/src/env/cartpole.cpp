// CartPole-v1 dynamics (see cartpole.h).
#include "env/cartpole.h"

#include <stdexcept>
#include <string>

namespace dqn {

CartPoleVecEnv::CartPoleVecEnv(int num_envs, uint64_t seed, int max_episode_steps)
    : max_episode_steps_(max_episode_steps) {
  if (num_envs < 1) throw std::invalid_argument("cartpole num_envs must be >= 1, got " + std::to_string(num_envs));
  if (max_episode_steps < 1)
    throw std::invalid_argument("cartpole max_episode_steps must be >= 1, got " + std::to_string(max_episode_steps));
  states_.resize(static_cast<size_t>(num_envs));
  elapsed_.assign(static_cast<size_t>(num_envs), 0);
  for (int i = 0; i < num_envs; ++i) rngs_.emplace_back(seed, 1000 + static_cast<uint64_t>(i));
}

void CartPoleVecEnv::reset_one(size_t env) { cartpole::ResetCopy(states_[env].data(), elapsed_[env], rngs_[env]); }

void CartPoleVecEnv::reset(float* obs) {
  for (size_t e = 0; e < states_.size(); ++e) {
    reset_one(e);
    for (int k = 0; k < 4; ++k) obs[e * 4 + k] = static_cast<float>(states_[e][k]);
  }
}

void CartPoleVecEnv::step(const int32_t* actions, float* next_obs, float* rewards, uint8_t* terminated,
                          uint8_t* truncated, float* final_obs) {
  for (size_t e = 0; e < states_.size(); ++e)
    if (actions[e] != 0 && actions[e] != 1)
      throw std::out_of_range("cartpole env: action of copy " + std::to_string(e) + " must be in [0, 2), got " +
                              std::to_string(actions[e]));
  for (size_t e = 0; e < states_.size(); ++e)  // the step the device collector runs too
    cartpole::StepCopy(states_[e].data(), elapsed_[e], rngs_[e], actions[e], max_episode_steps_, next_obs + e * 4, rewards[e],
                       terminated[e], truncated[e], final_obs + e * 4);
}

std::vector<FeatureGroup> CartPoleVecEnv::causal_features() const {
  return {{"x", {0}}, {"x_dot", {1}}, {"theta", {2}}, {"theta_dot", {3}}};
}

void CartPoleVecEnv::set_state(int env, const std::array<double, 4>& state, int elapsed_steps) {
  states_.at(static_cast<size_t>(env)) = state;
  elapsed_.at(static_cast<size_t>(env)) = elapsed_steps;
}

}  // namespace dqn
