// The report of one finished trading evaluation walk (DESIGN section 7): the figures and per-bar
// series computed from its ledger, the span and the baselines. One code for the host's
// evaluation env (trading_env.cpp, at the end of each walk) and the device's evaluation walk
// (cuda/device_eval_walk.h, which rebuilds the ledger from the steps it recorded), so a walk
// taking the same actions reports the same figures bit for bit on either side.
//
// Usage:
//   WalkLedger w;  ...  w.Add(booking, order, first_bar, position, changed);   // per step
//   const WalkReport r = ReportWalk(w, setup, baselines);
#pragma once
#include <map>
#include <string>
#include <vector>

#include "env/trading_baselines.h"
#include "env/trading_env.h"
#include "env/trading_walk.h"

namespace dqn {

/// What one evaluation walk reports.
struct WalkReport {
  /// Fractions unless named (trading_env.h lists them): PutWalkFigures' return .. financing,
  /// bar_return_mean, bar_return_sd, trade_fraction, bars, bars_per_year, the span (span_begin_bar,
  /// span_end_bar, span_first_time, span_last_time: bars and Unix seconds) and the baselines'
  /// figures (flat_, buy_and_hold_, ma_crossover_).
  std::map<std::string, double> metrics;
  /// Per-bar series: equity (compounded, bars + 1 values from 1), position (a multiple of
  /// equity, one per bar), buy_and_hold_equity (the baseline's curve).
  std::map<std::string, std::vector<double>> series;
};

/// The report of the walk `w` (at least one step) over setup's span, with the baselines of that
/// walk (WalkBaselines over setup's plan).
WalkReport ReportWalk(const WalkLedger& w, const TradingSetup& setup, const BaselineWalks& baselines);

/// The baselines of setup's evaluation walk (WalkBaselines with the setup's plan, costs,
/// financing and bars per year).
BaselineWalks SetupBaselines(const TradingSetup& setup);

}  // namespace dqn
