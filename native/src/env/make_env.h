// Builds a vectorized environment from its spec (the `env` section of the run config plus, for
// trading, the bars already loaded and validated by the TypeScript CSV loader).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "env/vec_env.h"

namespace dqn {

/// OHLCV bars, one entry per bar, sorted by time. timestamps are Unix seconds.
struct MarketData {
  std::vector<double> timestamps, open, high, low, close, volume;
};

/// What the trading environment does with a position at a gap (trading_env.h).
enum class GapPolicy {
  kHold,  ///< keep it: marked to market over the gap and the warm-up bars after it (the default)
  kFlat,  ///< close it (with its cost) at the last bar before the gap; the agent reopens after it
};

/// Everything needed to build an environment (see common/config.ts, EnvSchema).
struct EnvSpec {
  std::string kind;              ///< "cartpole" or "trading"
  int num_envs = 1;
  uint64_t seed = 1;
  // cartpole
  int max_episode_steps = 500;
  // trading
  std::shared_ptr<const MarketData> market;
  int episode_length = 1024;
  int lags = 7;
  int n_actions = 45;
  double max_position = 1.0;  ///< largest |position|, a multiple of current equity
  double cost_bps = 0.5;
  GapPolicy gap_policy = GapPolicy::kHold;
  double reward_scale = 1.0;  ///< training reward multiplier (1e4: basis points); metrics stay in return units
  double validation_fraction = 0.2;
  double max_gap_bars = 5;
};

/// Builds the training (eval = false) or evaluation (eval = true) environment.
/// Trading: training envs start at random bars of the training span; the evaluation env walks
/// the validation span once from its start, as one episode per copy.
/// @throws std::invalid_argument for an unknown kind or inconsistent spec.
std::unique_ptr<VecEnv> MakeEnv(const EnvSpec& spec, bool eval);

}  // namespace dqn
