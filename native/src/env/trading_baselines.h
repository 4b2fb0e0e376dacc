// The baselines of a trading evaluation (DESIGN section 7), walked over the agent's own plan
// (same decision bars, decision interval, gap policy, costs, financing and final sale):
//   flat_          position 0 throughout;
//   buy_and_hold_  target +max_position at every decision (its drift is rebalanced with its cost,
//                  so an always-long agent reproduces it exactly);
//   ma_crossover_  +max_position while the mean of the last 20 closes is above the mean of the
//                  last 60 by more than the tie band, else flat; flat until bar 59 (60 closes).
// The MA tie rule: each mean sums its closes oldest first and divides by its length; the fast
// mean counts as above only when fast - slow > 1e-9 x slow. A difference within that band (equal
// closes, or rounding noise of the sums, ~1e-16 x 60 of the price) is a tie, and a tie is flat.
// The band is far below any real move: one tick of 6E (0.00005 at 1.1) over 60 bars moves a mean
// by ~8e-7 of the price.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "env/make_env.h"
#include "env/trading_walk.h"

namespace dqn {

/// The moving-average rule's tie band, a fraction of the slow mean.
inline constexpr double kMaTieBand = 1e-9;

/// The baselines' walk figures (PutWalkFigures under each prefix) and buy-and-hold's equity curve.
struct BaselineWalks {
  std::map<std::string, double> metrics;
  std::vector<double> buy_and_hold_equity;  ///< compounded, n + 1 values (trading_walk.h, Compound)
};

/// Position of the 20/60 crossover at bar t: `full` or 0 (the rule above).
double MaCrossoverPosition(const std::vector<double>& close, int t, double full);

/// Walks the three baselines over `plan`.
/// @param cost, financing as in StepOrder; bars_per_year annualizes their Sharpe ratios.
BaselineWalks WalkBaselines(const WalkPlan& plan, const MarketData& market, double max_position, double cost, double financing,
                            double bars_per_year);

}  // namespace dqn
