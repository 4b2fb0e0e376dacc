// Performance summary of one trading evaluation (see trading_metrics.h).
#include "env/trading_metrics.h"

#include <algorithm>
#include <cmath>

namespace dqn {

ReturnSummary SummarizeReturns(const std::vector<double>& bar_returns, double bars_per_year) {
  ReturnSummary s;
  double equity = 1.0, peak = 1.0, sum = 0;
  for (double r : bar_returns) {
    ++s.bars;
    sum += r;
    if (r <= -1.0) {
      s.ruined = true;
      equity = 0;
      s.max_drawdown = 1;
      break;
    }
    equity *= 1.0 + r;
    peak = std::max(peak, equity);
    s.max_drawdown = std::max(s.max_drawdown, (peak - equity) / peak);
  }
  s.total_return = equity - 1.0;
  const int n = s.bars;
  if (n < 2) return s;
  const double mean = sum / n;
  double ss = 0;
  for (int i = 0; i < n; ++i) ss += (bar_returns[static_cast<size_t>(i)] - mean) * (bar_returns[static_cast<size_t>(i)] - mean);
  const double sd = std::sqrt(ss / (n - 1));
  s.mean = mean;
  s.sd = sd;
  if (!(sd > 0)) return s;
  const double per_bar = mean / sd;
  s.sharpe = per_bar * std::sqrt(bars_per_year);
  s.sharpe_se = std::sqrt((1.0 + 0.5 * per_bar * per_bar) / n) * std::sqrt(bars_per_year);
  return s;
}

}  // namespace dqn
