// The spans of the trading environment (DESIGN section 7): training, validation and test bars by
// time, separated by an embargo of bars that belong to no span, for one fold of an optional
// walk-forward split; and the decision bars of a span, whose feature window lies inside it.
//
// Split of n bars (f_val = validation_fraction, f_test = test_fraction, g = embargo_bars,
// K = folds, k = fold):
//   T = round(n f_test)                              test bars, K = 1
//   T = round(n f_test / (1 + (K - 1) f_test))       test bars per fold, K > 1
//   W = n - (K - 1) T                                bars of a fold's window
//   window of fold k = [k T, k T + W)                (fold K - 1 ends at bar n; the test spans of
//                                                     consecutive folds are adjacent, disjoint)
//   V = round(W f_val)                               validation bars
// and inside a window [b, e):
//   test       = [e - T, e)                          (empty when T = 0)
//   validation = [e - T - g' - V, e - T - g')        g' = g if T > 0 else 0
//   train      = [b, validation.begin - g)
// Example: n = 1000, f_val = 0.2, f_test = 0.2, g = 10, K = 1: T = V = 200, test [800, 1000),
// validation [590, 790), train [0, 580); with f_test = 0 and g = 0 it is today's split:
// validation [800, 1000), train [0, 800).
#pragma once
#include <string>
#include <vector>

#include "env/make_env.h"
#include "env/trading_features.h"

namespace dqn {

/// Bars [begin, end) of one span.
struct Span {
  int begin = 0, end = 0;
  int size() const { return end - begin; }
  bool empty() const { return end <= begin; }
};

/// The three spans of one fold; `test` is empty when test_fraction is 0.
struct Spans {
  Span train, validation, test;
};

/// Splits n bars as the header comment says.
/// @param warmup bars a decision bar needs before it inside its span (20 + lags - 1).
/// @throws std::invalid_argument naming the fields to change when a fraction, the embargo or the
///   fold is out of range, folds > 1 without a test span, or a span has fewer than warmup + 2
///   bars (its lookback, the decision bar and the next one).
Spans SplitSpans(int n, const EnvSpec& spec, int warmup);

/// Bars per calendar year (365.25 days) of a span: (size - 1) / (its first to last timestamp in
/// years); 0 for a span of fewer than 2 bars. The annualization of the Sharpe ratios of a walk
/// over that span.
double SpanBarsPerYear(const MarketData& m, Span span);

/// The decision bars of `span` in time order: bars t whose feature window lies inside the span
/// and inside t's segment (t - max(span.begin, segment_start[t]) >= warmup) and whose next bar is
/// in the same segment and span (t + 1 < span.end). A bar whose window would cross a span
/// boundary or a gap is skipped, so no observation reads a bar of another span.
std::vector<int> DecisionBars(const MarketFeatures& f, Span span, int warmup);

/// "validation [590, 790)" style description, for error messages.
std::string DescribeSpan(const char* name, Span span);

}  // namespace dqn
