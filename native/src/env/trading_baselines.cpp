// The baselines of a trading evaluation (see trading_baselines.h).
#include "env/trading_baselines.h"

#include <functional>

namespace dqn {
namespace {

constexpr int kMaShort = 20, kMaLong = 60;  // moving-average crossover, bars

WalkLedger Walk(const WalkPlan& plan, const MarketData& m, double cost, double financing, const std::function<double(int)>& rule) {
  WalkLedger w;
  double held = 0, decided = 0;
  for (size_t j = 0;; j = plan.next(j)) {
    const double target = rule(plan.bar(j));
    const StepOrder o = plan.Order(j, held, target, cost, financing);
    const size_t first = w.bar_returns.size();
    const StepBooking b = BookStep(m.timestamps, m.close, o, &w.bar_returns);
    w.Add(b, o, first, target, target != decided);
    held = b.weight;
    decided = target;
    if (b.ruined || plan.last(j)) break;
  }
  return w;
}

}  // namespace

double MaCrossoverPosition(const std::vector<double>& close, int t, double full) {
  if (t + 1 < kMaLong) return 0.0;
  double fast = 0, slow = 0;
  for (int j = t - kMaShort + 1; j <= t; ++j) fast += close[static_cast<size_t>(j)];
  for (int j = t - kMaLong + 1; j <= t; ++j) slow += close[static_cast<size_t>(j)];
  fast /= kMaShort;
  slow /= kMaLong;
  return fast - slow > kMaTieBand * slow ? full : 0.0;
}

BaselineWalks WalkBaselines(const WalkPlan& plan, const MarketData& m, double max_position, double cost, double financing,
                            double bars_per_year) {
  BaselineWalks out;
  PutWalkFigures(Walk(plan, m, cost, financing, [](int) { return 0.0; }), bars_per_year, "flat_", out.metrics);
  const WalkLedger hold = Walk(plan, m, cost, financing, [max_position](int) { return max_position; });
  PutWalkFigures(hold, bars_per_year, "buy_and_hold_", out.metrics);
  out.buy_and_hold_equity = Compound(hold.bar_returns);
  const auto& close = m.close;
  PutWalkFigures(Walk(plan, m, cost, financing, [&close, max_position](int t) { return MaCrossoverPosition(close, t, max_position); }),
                 bars_per_year, "ma_crossover_", out.metrics);
  return out;
}

}  // namespace dqn
