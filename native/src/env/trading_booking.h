// How the trading environment books one step of P&L on compounded equity (DESIGN section 7):
// at decision bar t the account trades from the weight it holds to the target position (both
// multiples of the equity E_t), holds those units until bar `until`, marked to market at every
// bar in between (a gap and the warm-up bars after it included), and optionally sells them at
// bar close_at. Costs are charged on the value actually traded, rebalancing included; financing
// accrues on the part of the position above 1x equity (borrowed cash) and on a short (borrowed
// stock), by calendar time.
//
// Equity relative to E_t (E_t = 1), holding weight w0 (units x close[t] / E_t) and trading to
// target p, cost c per unit of value traded, financing rate f per year, F = max(p - 1, 0) +
// max(-p, 0) the financed fraction, y_b = (ts[b] - ts[t]) / 365.25 days:
//   e_b = 1 - c |p - w0| + p (close[b] / close[t] - 1) - f F y_b            for t < b <= close_at (or until)
//   e_close_at -= c |p| close[close_at] / close[t];  e_b = e_close_at        for b > close_at (sold)
// Bar b's return is e_b / e_{b-1} - 1 (e_t = 1); the step's reward is e_until - 1. The weight held
// after the step is w = p (close[until] / close[t]) / e_until (0 once sold): the position drifts
// with the price and the costs, and trading back to the same target next step is a rebalancing
// that pays its cost. With p = w0 nothing is traded and the units are simply held.
// Turnover counts |p - w0| (units of E_t) plus, when sold, the sold weight p close[b] / close[t] /
// e_b (units of the equity at the sale, before its cost). Equity at or below zero is ruin:
// booking stops at that bar.
//
// Example: close = {100, 110, 99}, t = 0, until = 2, w0 = 0, p = 1, c = 0.001, f = 0, no sale:
// e_1 = 1.099, e_2 = 0.989, bar returns {0.099, -0.100091}, reward -0.011, weight 0.99 / 0.989,
// turnover 1, costs 0.001.
#pragma once
#include <vector>

#include "env/trading_step.h"

namespace dqn {

// StepOrder and StepBooking are defined with the step's shared rules (env/trading_step.h, whose
// trading::BookBars is this booking, for the host and the device alike).

/// Books one step (see the header comment): trading::BookBars, keeping the bar returns.
/// @param timestamps, close every bar's Unix time (s) and closing price (> 0).
/// @param bar_returns if not null, the returns of bars t+1 .. until (up to ruin) are appended.
StepBooking BookStep(const std::vector<double>& timestamps, const std::vector<double>& close, const StepOrder& order,
                     std::vector<double>* bar_returns);

}  // namespace dqn
