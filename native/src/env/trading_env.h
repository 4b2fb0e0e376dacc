// The trading environment (DESIGN section 7): one instrument over OHLCV bars, discrete target
// positions, reward = position x next-bar simple return - costs on position changes.
//
// Observation (obs_dim = 7 * lags + 2, 51 for lags = 7), for decision bar t:
//   [k * 7 + f]   normalized market feature f (trading_features.h) of bar t - k, k = 0 .. lags-1
//   [7 * lags]    position / max_position, in [-1, 1]
//   [7 * lags+1]  last step's reward / (max_position * return_std), clipped to [-10, 10]
//                 (return_std: std of one-bar simple returns on the training span; 0 after reset)
// Actions: a in [0, n_actions) targets position -max_position + a * 2 max_position / (n_actions-1).
// Reward of the step from bar t to t+1 taking position p (previous position p0):
//   reward_scale * (p * (close[t+1] / close[t] - 1) - cost_bps * 1e-4 * |p - p0|)
// (reward_scale 1e4 gives basis points: one-bar returns of ~1e-4 would otherwise leave the
// action values' differences far below the network's initial noise). The position feature and
// episode_metrics() use the unscaled return.
// No state is terminal (terminated is always 0); every episode end is a truncation.
//
// Bars: the last round(n * validation_fraction) bars are the validation span, the rest the
// training span. A decision bar t has its whole lookback (20 + lags - 1 bars) inside its segment
// and its next bar t+1 in the same segment (a gap is never stepped across); training decision
// bars also have t+1 in the training span (a training reward never reads a validation bar),
// validation decision bars have t in the validation span (their lookback may read earlier bars).
//
// Training (eval = false): each copy starts at a uniformly random training decision bar (own
// random stream, seeded from spec.seed and the copy index), flat, and truncates after
// episode_length steps or when its next bar is not a decision bar (segment end or span end).
// Evaluation (eval = true): each copy walks every validation decision bar in time order, flat at
// the start, as one episode; at a segment end it jumps to the next segment's first decision bar
// keeping its position, with no reward for the gap. The episode truncates after the last one.
// episode_metrics() then gives the means over the episodes finished since the last call of
// return, sharpe, max_drawdown (trading_metrics.h) and of buy_and_hold_return,
// buy_and_hold_sharpe: holding +max_position over the same steps, paying the entry cost once.
// Sharpe ratios are annualized with the bars per year of the training span.
// step() throws std::logic_error before the first reset() and std::out_of_range for an action
// outside [0, n_actions).
#pragma once
#include <memory>

#include "env/make_env.h"
#include "env/vec_env.h"

namespace dqn {

/// Builds the trading environment from spec (spec.kind is not checked).
/// @throws std::invalid_argument naming the field for an invalid spec (num_envs < 1, lags < 1,
///   n_actions < 2, ...), bad bars (lengths differ, timestamps not strictly increasing,
///   non-positive or non-finite prices, negative volume), or too few bars for a decision bar
///   in the training or the validation span.
std::unique_ptr<VecEnv> MakeTradingEnv(const EnvSpec& spec, bool eval);

}  // namespace dqn
