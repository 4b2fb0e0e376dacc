// The trading environment (DESIGN section 7): one instrument over OHLCV bars, discrete target
// positions, reward = position x next-bar simple return - costs on position changes.
//
// Observation (obs_dim = 7 * lags + 2, 51 for lags = 7), for decision bar t:
//   [k * 7 + f]   normalized market feature f (trading_features.h) of bar t - k, k = 0 .. lags-1
//   [7 * lags]    position / max_position, in [-1, 1]
//   [7 * lags+1]  last step's reward / (max_position * return_std), clipped to [-10, 10]
//                 (return_std: std of one-bar simple returns on the training span; 0 after reset)
// Actions: n_actions (odd) target positions, a multiple of current equity:
//   position(a) = max_position * (2a - (n_actions - 1)) / (n_actions - 1), so a = (n-1)/2 is flat.
// Bars: the last round(n * validation_fraction) bars are the validation span, the rest the
// training span. A decision bar t has its whole lookback (20 + lags - 1 bars) inside its segment
// and its next bar t+1 in the same segment; training decision bars also have t+1 in the training
// span (a training reward never reads a validation bar), validation decision bars have t in the
// validation span (their lookback may read earlier bars). Features restart after a gap.
//
// A step goes from decision bar t to the next decision bar of the span, t' (t + 1 inside a
// segment; across a gap, the first bar after it with a full lookback), and is booked on equity
// by BookStep (trading_booking.h): the position is held in units from t to t', marked to market
// at every bar in between. Reward of the step (p the new position, p0 the one held):
//   reward_scale * (p * (close[t'] / close[t] - 1) - cost_bps * 1e-4 * |p - p0|)
// minus cost_bps * 1e-4 * |p| where the position is closed: with gap_policy "flat" at the last
// bar before a gap (the agent then starts flat after it), and in evaluation after the last
// decision bar. With gap_policy "hold" (the default) a position rides the gap and its move.
// reward_scale 1e4 gives basis points (one-bar returns of ~1e-4 would otherwise leave the action
// values' differences far below the network's initial noise); observations and
// episode_metrics() use the unscaled return. The walk ends at the span's last decision bar,
// whose step books only bar t + 1. No state is terminal (terminated is always 0).
//
// Training (eval = false): each copy starts at a uniformly random training decision bar (own
// random stream, seeded from spec.seed and the copy index), flat, and truncates after
// episode_length steps or at the span's last decision bar.
// Evaluation (eval = true): each copy walks every validation decision bar in time order, flat at
// the start, as one episode, on a compounded equity curve (one return per bar from the first
// decision bar to the bar after the last one, gaps and warm-up bars included); equity at or
// below zero ends the episode as ruin. episode_metrics() then gives the means over the episodes
// finished since the last call of (fractions unless named):
//   return (compounded: final / initial equity - 1), return_simple (sum of the step rewards,
//   unscaled: P&L on a fixed notional), sharpe, sharpe_se (Lo 2002), max_drawdown (of the
//   compounded curve), ruined (0 or 1), trade_fraction (steps that changed the position), and
//   the same return, return_simple, sharpe, sharpe_se, max_drawdown, ruined for three baselines
//   on the same walk, gap policy and cost model, prefixed flat_, buy_and_hold_ (+max_position
//   throughout, so always-long reproduces it exactly) and ma_crossover_ (+max_position while
//   the mean of the last 20 closes is above that of the last 60, else flat; flat until 60
//   closes exist; the means read across gaps, each summed oldest first), plus bars (returns in the curve) and
//   bars_per_year (of the training span: the annualization of every Sharpe ratio).
// step() throws std::logic_error before the first reset() and std::out_of_range for an action
// outside [0, n_actions).
#pragma once
#include <memory>

#include "env/make_env.h"
#include "env/vec_env.h"

namespace dqn {

/// Builds the trading environment from spec (spec.kind is not checked).
/// @throws std::invalid_argument naming the field for an invalid spec (num_envs < 1, lags < 1,
///   n_actions < 3 or even, ...), bad bars (lengths differ, timestamps not strictly increasing,
///   non-positive or non-finite prices, negative volume), or too few bars for a decision bar
///   in the training or the validation span.
std::unique_ptr<VecEnv> MakeTradingEnv(const EnvSpec& spec, bool eval);

}  // namespace dqn
