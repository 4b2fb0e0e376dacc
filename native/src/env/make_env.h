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

/// The trading agent's actions (trading_env.h).
enum class ActionSpace {
  kTarget,  ///< n_actions target positions, evenly spaced in [-max_position, max_position] (the default)
  kStep,    ///< four moves on that grid of positions: hold (trade nothing), one step up, one step down, flat
};

/// Which environment MakeEnv builds: training episodes, or the evaluation walk of a span.
enum class EnvRole {
  kTrain,       ///< training episodes (trading: random starts in the training span)
  kValidation,  ///< greedy evaluation; trading: the walk of the validation span (what selection reads)
  kTest,        ///< trading only: the walk of the test span (reported apart, never selects)
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
  double validation_fraction = 0.2;  ///< fraction of a fold's bars in its validation span (trading_spans.h)
  double test_fraction = 0;    ///< fraction of a fold's bars in its test span; 0: no test span
  int embargo_bars = 0;        ///< bars between consecutive spans that belong to none
  int folds = 1;               ///< walk-forward folds (1: one split of all bars)
  int fold = 0;                ///< the fold this environment uses, in [0, folds)
  double max_gap_bars = 5;
  int decision_interval = 1;   ///< act every k decision bars, holding the units in between
  double change_penalty_bps = 0;  ///< training reward only: basis points per unit of equity traded, on top of the cost
  ActionSpace action_space = ActionSpace::kTarget;
  double financing_rate = 0;   ///< fraction per year of the value above 1x equity (long) or shorted
};

/// Builds the training or an evaluation environment. Trading: training envs start at random
/// bars of the training span; an evaluation env walks its span (validation or test) once from
/// its start, as one episode per copy. CartPole: kValidation and kTest are the same greedy
/// episodes on their own reset stream.
/// @throws std::invalid_argument for an unknown kind or inconsistent spec (trading kTest without
///   a test span included).
std::unique_ptr<VecEnv> MakeEnv(const EnvSpec& spec, EnvRole role);

}  // namespace dqn
