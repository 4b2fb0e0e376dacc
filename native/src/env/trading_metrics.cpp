// Performance summary of one trading episode.
#include "env/trading_metrics.h"

#include <algorithm>
#include <cmath>

namespace dqn {

ReturnSummary SummarizeReturns(const std::vector<double>& rewards, double bars_per_year) {
  ReturnSummary s;
  const size_t n = rewards.size();
  double equity = 1.0, peak = 1.0;
  for (double r : rewards) {
    s.total_return += r;
    equity += r;
    peak = std::max(peak, equity);
    s.max_drawdown = std::max(s.max_drawdown, (peak - equity) / peak);
  }
  if (n < 2) return s;
  const double mean = s.total_return / static_cast<double>(n);
  double ss = 0;
  for (double r : rewards) ss += (r - mean) * (r - mean);
  const double sd = std::sqrt(ss / static_cast<double>(n - 1));
  if (sd > 0) s.sharpe = mean / sd * std::sqrt(bars_per_year);
  return s;
}

}  // namespace dqn
