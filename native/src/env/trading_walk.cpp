// The steps and the ledger of a trading walk (see trading_walk.h).
#include "env/trading_walk.h"

#include <utility>

namespace dqn {

WalkPlan::WalkPlan(std::vector<int> decision_bars, int interval, const MarketFeatures& features, GapPolicy gap, bool sell_at_end)
    : bars_(std::move(decision_bars)) {
  view_.bars = bars_.data();
  view_.size = bars_.size();
  view_.interval = static_cast<size_t>(interval);
  view_.segment_start = features.segment_start.data();
  view_.gap = gap;
  view_.sell_at_end = sell_at_end;
}

void WalkLedger::Add(const StepBooking& b, const StepOrder& o, size_t first_bar, double position, bool changed) {
  if (changed) ++changes;
  ++steps;
  turnover += b.turnover;
  costs += b.costs * equity;
  financing += b.financing * equity;
  reward_sum += b.reward;
  equity = b.ruined ? 0.0 : equity * (1.0 + b.reward);
  ruined = ruined || b.ruined;
  for (size_t i = first_bar; i < bar_returns.size(); ++i) {
    const int bar = o.t + 1 + static_cast<int>(i - first_bar);
    bar_positions.push_back(o.close_at >= 0 && bar > o.close_at ? 0.0 : position);
  }
}

std::vector<double> Compound(const std::vector<double>& bar_returns) {
  std::vector<double> e(bar_returns.size() + 1, 1.0);
  for (size_t i = 0; i < bar_returns.size(); ++i) e[i + 1] = bar_returns[i] <= -1 ? 0.0 : e[i] * (1 + bar_returns[i]);
  return e;
}

ReturnSummary PutWalkFigures(const WalkLedger& w, double bars_per_year, const std::string& prefix, std::map<std::string, double>& out) {
  const ReturnSummary s = SummarizeReturns(w.bar_returns, bars_per_year);
  out[prefix + "return"] = s.total_return;
  out[prefix + "return_simple"] = w.reward_sum;
  out[prefix + "sharpe"] = s.sharpe;
  out[prefix + "sharpe_se"] = s.sharpe_se;
  out[prefix + "max_drawdown"] = s.max_drawdown;
  out[prefix + "ruined"] = s.ruined ? 1 : 0;
  out[prefix + "turnover"] = w.turnover;
  out[prefix + "costs"] = w.costs;
  out[prefix + "financing"] = w.financing;
  return s;
}

}  // namespace dqn
