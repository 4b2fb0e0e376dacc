// CartPole-v1 as a vectorized environment, with Gymnasium's constants and rules exactly
// (gymnasium/envs/classic_control/cartpole.py, Barto, Sutton & Anderson 1983): Euler
// integration with tau = 0.02 s, force +-10 N, termination when |x| > 2.4 or |theta| > 12 deg,
// reward 1 on every step including the terminating one, reset uniform in [-0.05, 0.05]^4, and
// the TimeLimit wrapper's max_episode_steps (500) as a truncation, not a terminal.
// Observation: [x, x_dot, theta, theta_dot] as f32 (the state itself is kept in f64, as
// Gymnasium does). Actions: 0 push left, 1 push right.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cpu/rng.h"
#include "env/cartpole_dynamics.h"
#include "env/vec_env.h"

namespace dqn {

/// Gymnasium CartPole-v1 constants (defined with the step in env/cartpole_dynamics.h).
using CartPoleConstants = cartpole::Constants;

/// `num_envs` CartPole copies; copy i draws its resets from Rng(seed, 1000 + i).
class CartPoleVecEnv final : public VecEnv {
 public:
  /// @throws std::invalid_argument unless num_envs >= 1 and max_episode_steps >= 1.
  CartPoleVecEnv(int num_envs, uint64_t seed, int max_episode_steps);
  int num_envs() const override { return static_cast<int>(states_.size()); }
  int obs_dim() const override { return 4; }
  int num_actions() const override { return 2; }
  void reset(float* obs) override;
  /// @throws std::out_of_range for an action other than 0 (push left) or 1 (push right); no copy moves then.
  void step(const int32_t* actions, float* next_obs, float* rewards, uint8_t* terminated, uint8_t* truncated,
            float* final_obs) override;
  /// One group per state variable: x, x_dot, theta, theta_dot.
  std::vector<FeatureGroup> causal_features() const override;

  /// Sets copy `env`'s state [x, x_dot, theta, theta_dot] and its elapsed steps (for tests).
  void set_state(int env, const std::array<double, 4>& state, int elapsed_steps);
  /// Copy `env`'s f64 state.
  const std::array<double, 4>& state(int env) const { return states_[static_cast<size_t>(env)]; }

 private:
  void reset_one(size_t env);
  int max_episode_steps_;
  std::vector<std::array<double, 4>> states_;
  std::vector<int32_t> elapsed_;
  std::vector<Rng> rngs_;
};

}  // namespace dqn
