// The report of a finished trading evaluation walk (see trading_report.h).
#include "env/trading_report.h"

namespace dqn {

WalkReport ReportWalk(const WalkLedger& w, const TradingSetup& setup, const BaselineWalks& baselines) {
  const Span& span = setup.span;
  const MarketData& market = *setup.market;
  WalkReport r;
  std::map<std::string, double>& m = r.metrics;
  const ReturnSummary s = PutWalkFigures(w, setup.bars_per_year, "", m);
  m["bar_return_mean"] = s.mean;
  m["bar_return_sd"] = s.sd;
  m["trade_fraction"] = static_cast<double>(w.changes) / w.steps;
  m["bars"] = static_cast<double>(w.bar_returns.size());
  m["bars_per_year"] = setup.bars_per_year;
  m["span_begin_bar"] = span.begin;
  m["span_end_bar"] = span.end;
  m["span_first_time"] = market.timestamps[static_cast<size_t>(span.begin)];
  m["span_last_time"] = market.timestamps[static_cast<size_t>(span.end - 1)];
  for (const auto& [k, v] : baselines.metrics) m[k] = v;
  r.series["equity"] = Compound(w.bar_returns);
  r.series["position"] = w.bar_positions;
  r.series["buy_and_hold_equity"] = baselines.buy_and_hold_equity;
  return r;
}

BaselineWalks SetupBaselines(const TradingSetup& setup) {
  const trading::Params& p = setup.params;
  return WalkBaselines(*setup.plan, *setup.market, p.max_position, p.cost, p.financing_rate, setup.bars_per_year);
}

}  // namespace dqn
