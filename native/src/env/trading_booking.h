// How the trading environment books one step of P&L on compounded equity (DESIGN section 7):
// the position is a multiple of equity set at a decision bar and held in units until the next
// decision bar, marked to market at every bar in between (a gap and the warm-up bars after it
// included), optionally closed with its cost at a given bar.
//
// Equity relative to the decision bar t (E_t = 1), holding position p after p0, cost c per unit:
//   e_b = 1 - c |p - p0| + p (close[b] / close[t] - 1)     for t < b <= close_at (or until)
//   e_close_at -= c |p|;  e_b = e_close_at                  for b > close_at (position closed)
// Bar b's return is e_b / e_{b-1} - 1 (e_t = 1); the step's reward is e_until - 1. With
// p = 1 and no cost the bar returns are the instrument's own, so always-long at a full position
// of 1 is buy-and-hold. Equity at or below zero is ruin: booking stops at that bar.
//
// Example: close = {100, 110, 99}, t = 0, until = 2, p0 = 0, p = 1,
// c = 0.001, no close: e_1 = 1.099, e_2 = 0.989, bar returns {0.099, -0.100091}, reward -0.011.
#pragma once
#include <vector>

namespace dqn {

/// What a step booked.
struct StepBooking {
  double reward = 0;  ///< e_until - 1, the step's return on the equity at t; -1 on ruin
  double held = 0;    ///< position held after the step (0 when it was closed)
  bool ruined = false;  ///< equity reached zero at some bar of the step
};

/// Books the step from decision bar t to bar until (> t) holding `position` after `previous`.
/// @param close closing prices of every bar (> 0).
/// @param cost cost per unit of position change, a fraction (cost_bps * 1e-4).
/// @param close_at bar in (t, until] at which the position is closed with its cost, or -1.
/// @param bar_returns if not null, the returns of bars t+1 .. until (up to ruin) are appended.
StepBooking BookStep(const std::vector<double>& close, int t, int until, double previous, double position, double cost,
                     int close_at, std::vector<double>* bar_returns);

}  // namespace dqn
