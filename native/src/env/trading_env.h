// The trading environment (DESIGN section 7): one instrument over OHLCV bars, discrete actions on
// positions, reward = the step's return on equity after costs (and financing).
//
// Observation (obs_dim = 7 * lags + 2, 51 for lags = 7), for decision bar t:
//   [k * 7 + f]   normalized market feature f (trading_features.h) of bar t - k, k = 0 .. lags-1
//   [7 * lags]    decided position / max_position, in [-1, 1]
//   [7 * lags+1]  last step's reward / (max_position * return_std), clipped to [-10, 10]
//                 (return_std: std of one-bar simple returns on the training span; 0 after reset)
// Positions: a grid of n_actions (odd) levels, level L at
//   position(L) = max_position * (2L - (n_actions - 1)) / (n_actions - 1), a multiple of equity,
// so L = (n_actions - 1) / 2 is flat. Actions (env.action_space):
//   "target" (default): n_actions actions; action L trades to position(L) (Moody & Saffell 2001).
//   "step": 4 actions around the current level, the buy / hold / sell increments of FinRL's stock
//     env (Liu et al. 2020) and TensorTrade's action schemes: 0 hold (trade nothing: the units
//     are kept and their weight drifts), 1 one level up, 2 one level down (clamped to the grid,
//     trading to that level), 3 flat.
// Spans (trading_spans.h): training, validation and test bars by time with an embargo between
// them, for one walk-forward fold; a decision bar's feature window and next bar lie inside its
// span, so no observation or reward of one span reads a bar of another. Features restart after
// a gap. The training env uses the training span; the kValidation and kTest envs walk theirs.
//
// A step (trading_walk.h) decides at a decision bar and holds until the decision_interval-th
// next one, booked on equity by BookStep (trading_booking.h): costs on the value traded,
// rebalancing included, financing on leverage and shorts. Reward of a step:
//   reward_scale * (e_until - 1 - change_penalty_bps * 1e-4 * turnover)   (training)
//   reward_scale * (e_until - 1)                                           (evaluation)
// where the turnover penalty, a cost term of the reward as in Zhang, Zohren & Roberts 2020 (their
// reward charges bp x |change of position|), charged in training on top of the real cost, teaches
// the agent to trade less without changing what a trade costs in evaluation. reward_scale 1e4 gives basis points (one-bar
// returns of ~1e-4 would otherwise leave the action values' differences far below the network's
// initial noise); observations and episode_metrics() use unscaled returns. With gap_policy
// "flat" the units are sold at the last bar before a gap (the agent starts flat after it); with
// "hold" (the default) a position rides the gap. The walk ends at the bar after the span's last
// decision bar. No state is terminal (terminated is always 0).
//
// Training: each copy starts at a uniformly random training decision bar (copy i's own stream,
// Rng(spec.seed, 1000 + i), one below(N) draw a start: the stream the device env draws from too),
// flat, and truncates after episode_length steps or at the end of the span. The step itself is
// env/trading_step.h, shared with the device env (kernels/env_trading.cu).
// Evaluation (kValidation, kTest): each copy walks every decision of its span in time order, flat
// at the start, as one episode, on a compounded equity curve (one return per bar from the first
// decision bar to the last bar, gaps and warm-up bars included), and sells at the last bar with
// its cost; equity at or below zero ends the episode as ruin. episode_metrics() then gives the
// means over the episodes finished since the last call of (fractions unless named):
//   return (compounded: final / initial equity - 1), return_simple (sum of the step returns:
//   P&L on a fixed notional), sharpe, sharpe_se (Lo 2002), max_drawdown, ruined (0 or 1),
//   turnover (sum of |change of position| in units of the equity at each trade, the final sale
//   included), costs and financing (paid, fractions of initial equity), trade_fraction
//   (decisions that changed the decided position), the same walk figures (return .. financing)
//   for the baselines of trading_baselines.h prefixed flat_, buy_and_hold_ and ma_crossover_,
//   bars (returns in the curve), bar_return_mean and bar_return_sd (the agent's per-bar returns:
//   what pools folds of a walk-forward), bars_per_year (of the evaluated span, calendar: the
//   annualization of every Sharpe ratio), and the span: span_begin_bar, span_end_bar (bars
//   [begin, end)), span_first_time and span_last_time (Unix seconds of its first and last bar).
// step() throws std::logic_error before the first reset() and std::out_of_range for an action
// outside [0, num_actions()).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "env/make_env.h"
#include "env/trading_features.h"
#include "env/trading_spans.h"
#include "env/trading_step.h"
#include "env/trading_walk.h"
#include "env/vec_env.h"

namespace dqn {

/// What a trading environment of one role walks, computed once on the host: the training span's
/// features, the role's span and its walk plan, and the step's fixed numbers. The CPU env
/// (MakeTradingEnv) and the device env (cuda/device_trading_env.h) are both built from it, so
/// both read the same tables. Move-only: the plan points into `features`.
struct TradingSetup {
  std::shared_ptr<const MarketData> market;
  MarketFeatures features;        ///< normalized with the training span's statistics
  Span span;                      ///< the role's bars
  std::unique_ptr<WalkPlan> plan; ///< the span's decision bars, decision_interval, gap policy, sale at the end (evaluation)
  trading::Params params;         ///< the step's fixed numbers (return_std included)
  double bars_per_year = 0;       ///< of span, calendar

  /// The arrays the shared step reads (pointers into this setup; valid while it lives).
  trading::Walk walk() const {
    return {plan->view(), market->timestamps.data(), market->close.data(), features.normalized.data()};
  }
};

/// Checks spec and the bars and computes the setup of `role`.
/// @throws std::invalid_argument as MakeTradingEnv does.
TradingSetup PrepareTrading(const EnvSpec& spec, EnvRole role);

/// Builds the trading environment of `role` from spec (spec.kind is not checked).
/// @throws std::invalid_argument naming the field for an invalid spec (num_envs < 1, lags < 1,
///   n_actions < 3 or even, decision_interval < 1, ...), bad bars (lengths differ, timestamps not
///   strictly increasing, non-positive or non-finite prices, negative volume), a span too small
///   for a decision bar, or kTest without a test span.
std::unique_ptr<VecEnv> MakeTradingEnv(const EnvSpec& spec, EnvRole role);

/// One copy of a trading env as the shared step sees it, and its reset stream's state.
struct TradingCopySnapshot {
  trading::CopyState state;
  std::array<uint64_t, 4> rng{};
};

/// The copies of a trading env made by MakeTradingEnv, in copy order (for checks of the device
/// env against it). @throws std::invalid_argument when env is not one.
std::vector<TradingCopySnapshot> TradingCopies(const VecEnv& env);

}  // namespace dqn
