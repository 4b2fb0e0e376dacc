// The steps and the ledger of a trading walk (see trading_walk.h).
#include "env/trading_walk.h"

#include <utility>

namespace dqn {

WalkPlan::WalkPlan(std::vector<int> decision_bars, int interval, const MarketFeatures& features, GapPolicy gap, bool sell_at_end)
    : bars_(std::move(decision_bars)), interval_(static_cast<size_t>(interval)), features_(&features), gap_(gap), sell_at_end_(sell_at_end) {}

StepOrder WalkPlan::Order(size_t j, double held, double target, double cost, double financing) const {
  StepOrder o;
  o.t = bars_[j];
  o.until = last(j) ? bars_.back() + 1 : bars_[next(j)];
  o.held = held;
  o.target = target;
  o.cost = cost;
  o.financing = financing;
  const auto& seg = features_->segment_start;
  if (gap_ == GapPolicy::kFlat)
    for (int b = o.t + 1; b < o.until; ++b)
      if (seg[static_cast<size_t>(b + 1)] != seg[static_cast<size_t>(b)]) {
        o.close_at = b;  // the last bar before the gap
        return o;
      }
  if (sell_at_end_ && last(j)) o.close_at = o.until;
  return o;
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
