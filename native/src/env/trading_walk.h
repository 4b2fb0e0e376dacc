// A walk of the trading environment over one span (DESIGN section 7): which bars each step
// decides at and books (WalkPlan), and what a walk adds up to (WalkLedger): compounded equity,
// per-bar returns and positions, turnover, costs and financing paid.
//
// Steps: the span's decision bars d_0 .. d_{N-1} (trading_spans.h, DecisionBars). A step from
// decision index j decides at bar d_j and holds until d_{j+k} (k = decision_interval: the agent
// acts every k decision bars and holds its units in between, the frame skip of Mnih et al. 2015,
// Methods), or, when j + k > N - 1, until the bar after d_{N-1}, the walk's last bar. An
// evaluation walk starts at j = 0; a training episode at a random j. Inside a step the units are
// sold at the last bar before the first gap it crosses when gap_policy is "flat", and at its last
// bar when the walk sells at its end (evaluation: the final close, with its cost).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "env/make_env.h"
#include "env/trading_booking.h"
#include "env/trading_features.h"
#include "env/trading_metrics.h"
#include "env/trading_step.h"

namespace dqn {

/// The bars of a walk's steps.
class WalkPlan {
 public:
  /// @param decision_bars the span's decision bars (non-empty), in time order.
  /// @param interval decide every `interval` decision bars (>= 1).
  /// @param features the walk's features; the plan reads its segment_start, so it must outlive the plan.
  /// @param sell_at_end sell the units at the walk's last bar (evaluation).
  WalkPlan(std::vector<int> decision_bars, int interval, const MarketFeatures& features, GapPolicy gap, bool sell_at_end);
  WalkPlan(const WalkPlan&) = delete;  // view() points into the plan's own bars
  WalkPlan& operator=(const WalkPlan&) = delete;

  size_t size() const { return bars_.size(); }  ///< N, decision bars in the span
  int bar(size_t j) const { return bars_[j]; }  ///< d_j
  bool last(size_t j) const { return trading::IsLast(view_, j); }  ///< the step from j ends the walk
  size_t next(size_t j) const { return j + view_.interval; }  ///< index of the next decision (valid unless last(j))
  /// The step from decision index j holding `held` and trading to `target` (trading::OrderStep).
  StepOrder Order(size_t j, double held, double target, double cost, double financing) const {
    return trading::OrderStep(view_, j, held, target, cost, financing);
  }
  /// The plan as the shared step reads it (pointers into this plan and its features).
  const trading::Plan& view() const { return view_; }
  /// The decision bars d_0 .. d_{N-1}.
  const std::vector<int>& bars() const { return bars_; }

 private:
  std::vector<int> bars_;
  trading::Plan view_;
};

/// What a walk added up to, from equity 1 at its first decision bar.
struct WalkLedger {
  double equity = 1;       ///< equity at the current decision bar, a fraction of the initial equity
  double reward_sum = 0;   ///< sum of the step returns (each on its own E_t): P&L on a fixed notional
  double turnover = 0;     ///< sum of |change of position| traded, in units of the equity at each trade
  double costs = 0;        ///< transaction costs paid, a fraction of the initial equity
  double financing = 0;    ///< financing paid, a fraction of the initial equity
  int steps = 0;           ///< decisions taken
  int changes = 0;         ///< decisions that changed the decided position
  bool ruined = false;
  std::vector<double> bar_returns;    ///< per-bar returns of the equity curve
  std::vector<double> bar_positions;  ///< the decided position over each of those bars (0 once sold)

  /// Adds a step booked by BookStep (whose bar returns were appended to bar_returns from index
  /// `first_bar`); `position` is the position decided (a multiple of equity, recorded over each
  /// bar until a sale), `changed` whether it differs from the previous decision's (flat at first).
  void Add(const StepBooking& b, const StepOrder& o, size_t first_bar, double position, bool changed);
};

/// Equity curve E_0 = 1, E_i = E_{i-1} (1 + r_i) of per-bar returns (n + 1 values; 0 from a ruin on).
std::vector<double> Compound(const std::vector<double>& bar_returns);

/// Writes the walk figures of a ledger under `prefix` (units in common/trading-eval.ts):
/// return, return_simple, sharpe and sharpe_se (annualized by bars_per_year), max_drawdown,
/// ruined (0 or 1), turnover, costs, financing. Returns the summary of its bar returns.
ReturnSummary PutWalkFigures(const WalkLedger& w, double bars_per_year, const std::string& prefix, std::map<std::string, double>& out);

}  // namespace dqn
