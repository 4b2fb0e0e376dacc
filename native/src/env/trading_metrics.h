// Performance summary of one trading evaluation (DESIGN section 7): compounded return, Sharpe
// ratio with its standard error, and max drawdown of an equity curve given by its per-bar returns.
#pragma once
#include <vector>

namespace dqn {

/// Summary of per-bar returns r_1..r_n of an equity curve E_i = E_{i-1} (1 + r_i), E_0 = 1.
/// A return r_i <= -1 is ruin: equity reached zero at bar i, and bars after it are ignored.
struct ReturnSummary {
  int bars = 0;             ///< returns used: n, or the ruin bar's index (1-based)
  double total_return = 0;  ///< E_n / E_0 - 1, a fraction (compounded); -1 on ruin
  /// mean(r) / std(r) * sqrt(bars_per_year), std with n - 1 in the denominator; 0 when n < 2 or
  /// std = 0 (Sharpe 1966, annualized by the square-root-of-time rule).
  double sharpe = 0;
  /// Standard error of `sharpe` for IID returns (Lo 2002, eq. 9):
  /// sqrt((1 + s^2 / 2) / n) * sqrt(bars_per_year), s the per-bar Sharpe ratio; 0 when sharpe is.
  double sharpe_se = 0;
  /// max over i of (peak_i - E_i) / peak_i, peak_i = max(E_0 .. E_i); a fraction in [0, 1]
  /// (1 on ruin), 0 for a curve that never falls.
  double max_drawdown = 0;
  bool ruined = false;  ///< some r_i <= -1
  double mean = 0;      ///< mean of the n returns used; 0 when n < 2
  double sd = 0;        ///< their standard deviation, n - 1 in the denominator; 0 when n < 2
};

/// Summarizes per-bar returns (fractions of equity); bars_per_year annualizes the Sharpe ratio.
ReturnSummary SummarizeReturns(const std::vector<double>& bar_returns, double bars_per_year);

}  // namespace dqn
