// The vectorized environment interface every environment implements (CartPole, trading).
// Many copies step together; a finished copy resets itself inside step() and reports the true
// final observation separately, so a truncated transition stores the real s' (DESIGN section 3).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dqn {

/// A named set of observation indices (one market feature at every lag).
struct FeatureGroup {
  std::string name;
  std::vector<int> indices;
};

/// A batch of `num_envs()` environment copies stepped in lockstep.
/// Buffers are row-major: observations are [num_envs x obs_dim] f32.
class VecEnv {
 public:
  virtual ~VecEnv() = default;
  virtual int num_envs() const = 0;
  virtual int obs_dim() const = 0;
  virtual int num_actions() const = 0;

  /// Resets every copy; writes [num_envs x obs_dim] observations.
  virtual void reset(float* obs) = 0;

  /// Steps every copy with actions [num_envs] (each in [0, num_actions)).
  /// Writes next_obs [num_envs x obs_dim] (already the reset observation for a copy that ended),
  /// rewards [num_envs], terminated [num_envs] (no bootstrap), truncated [num_envs] (time limit or
  /// end of data: bootstrap from final_obs), and final_obs [num_envs x obs_dim]: the true last
  /// observation of a copy that ended (equal to next_obs for a copy that did not).
  virtual void step(const int32_t* actions, float* next_obs, float* rewards, uint8_t* terminated,
                    uint8_t* truncated, float* final_obs) = 0;

  /// Groups of observation indices that the causal sensitivity probe intervenes on together
  /// (DESIGN section 4): one group per market (exogenous) feature, covering all its lags.
  /// Default: one group per observation index, named "obs[i]".
  virtual std::vector<FeatureGroup> causal_features() const {
    std::vector<FeatureGroup> groups(static_cast<size_t>(obs_dim()));
    for (int i = 0; i < obs_dim(); ++i) groups[static_cast<size_t>(i)] = {"obs[" + std::to_string(i) + "]", {i}};
    return groups;
  }

  /// Display name of observation index i (shown with the causal-sensitivity chart).
  /// Default: "obs[i]".

  /// Environment-specific metrics of the episodes finished since the last call (trading: the
  /// agent's and the baselines' walk figures, see trading_env.h). Default: none.
  virtual std::map<std::string, double> episode_metrics() { return {}; }

  /// Per-bar series of the last evaluation episode that finished (trading: `equity` and
  /// `buy_and_hold_equity`, compounded equity E_0 = 1 then after each bar of the walk, so n + 1
  /// values for n bars; `position`, the position held over each bar as a multiple of equity, n
  /// values, see trading_env.h). Full resolution: the host downsamples. Default: none.
  virtual std::map<std::string, std::vector<double>> episode_series() { return {}; }
};

}  // namespace dqn
