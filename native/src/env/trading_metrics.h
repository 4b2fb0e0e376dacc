// Performance summary of one trading episode (DESIGN section 7: return, Sharpe, max drawdown,
// the same for buy-and-hold), computed from its per-step rewards.
#pragma once
#include <vector>

namespace dqn {

/// Summary of a reward series r_1..r_n (each a P&L as a fraction of a fixed capital of 1).
struct ReturnSummary {
  double total_return = 0;  ///< sum of r_i (fixed notional: P&L is not compounded)
  /// mean(r) / std(r) * sqrt(bars_per_year), std with n - 1 in the denominator; 0 when n < 2 or
  /// std = 0 (Sharpe 1966, annualized by the square-root-of-time rule).
  double sharpe = 0;
  /// max over i of (peak_i - E_i) / peak_i, where E_0 = 1, E_i = 1 + r_1 + ... + r_i and
  /// peak_i = max(E_0 .. E_i); a fraction in [0, inf), 0 for a series that never falls.
  double max_drawdown = 0;
};

/// Summarizes per-step rewards; bars_per_year annualizes the Sharpe ratio.
ReturnSummary SummarizeReturns(const std::vector<double>& rewards, double bars_per_year);

}  // namespace dqn
