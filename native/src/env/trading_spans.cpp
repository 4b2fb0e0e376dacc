// The spans of the trading environment and their decision bars (see trading_spans.h).
#include "env/trading_spans.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dqn {
namespace {

[[noreturn]] void Invalid(const std::string& msg) { throw std::invalid_argument("trading env: " + msg); }

}  // namespace

std::string DescribeSpan(const char* name, Span span) {
  return std::string(name) + " [" + std::to_string(span.begin) + ", " + std::to_string(span.end) + ") (" +
         std::to_string(std::max(0, span.size())) + " bars)";
}

Spans SplitSpans(int n, const EnvSpec& s, int warmup) {
  if (!(s.validation_fraction > 0 && s.validation_fraction < 1))
    Invalid("validation_fraction must be in (0, 1), got " + std::to_string(s.validation_fraction));
  if (!(s.test_fraction >= 0 && s.test_fraction < 1))
    Invalid("test_fraction must be in [0, 1), got " + std::to_string(s.test_fraction));
  if (s.validation_fraction + s.test_fraction >= 1)
    Invalid("validation_fraction + test_fraction must be below 1 (the rest is training), got " +
            std::to_string(s.validation_fraction + s.test_fraction));
  if (s.embargo_bars < 0) Invalid("embargo_bars must be >= 0, got " + std::to_string(s.embargo_bars));
  if (s.folds < 1) Invalid("folds must be >= 1, got " + std::to_string(s.folds));
  if (s.fold < 0 || s.fold >= s.folds)
    Invalid("fold must be in [0, folds) = [0, " + std::to_string(s.folds) + "), got " + std::to_string(s.fold));
  if (s.folds > 1 && s.test_fraction == 0)
    Invalid("walk-forward (folds > 1) needs a test span: set test_fraction > 0 (each fold steps forward by its test span)");
  const double k = s.folds - 1;
  const int test = static_cast<int>(std::llround(s.folds == 1 ? n * s.test_fraction : n * s.test_fraction / (1 + k * s.test_fraction)));
  const int window = n - (s.folds - 1) * test;
  const int val = static_cast<int>(std::llround(window * s.validation_fraction));
  const int begin = s.fold * test, end = begin + window;
  const int gap_test = test > 0 ? s.embargo_bars : 0;
  Spans out;
  out.test = {end - test, end};
  out.validation = {end - test - gap_test - val, end - test - gap_test};
  out.train = {begin, out.validation.begin - s.embargo_bars};
  const int need = warmup + 2;
  const auto check = [&](const char* name, Span span) {
    if (span.size() < need)
      Invalid("too few bars: " + std::to_string(n) + " bars give " + DescribeSpan(name, span) + " in fold " + std::to_string(s.fold) +
              "; a span needs at least " + std::to_string(need) +
              " bars (a lookback of 20 + lags - 1 inside it, the bar and the next): give more bars or change "
              "validation_fraction, test_fraction, embargo_bars or folds");
  };
  check("training", out.train);
  check("validation", out.validation);
  if (s.test_fraction > 0) check("test", out.test);
  return out;
}

double SpanBarsPerYear(const MarketData& m, Span span) {
  if (span.size() < 2) return 0;
  const double years = (m.timestamps[static_cast<size_t>(span.end - 1)] - m.timestamps[static_cast<size_t>(span.begin)]) / kSecondsPerYear;
  return (span.size() - 1) / years;
}

std::vector<int> DecisionBars(const MarketFeatures& f, Span span, int warmup) {
  std::vector<int> bars;
  for (int t = span.begin; t + 1 < span.end; ++t) {
    const int seg = f.segment_start[static_cast<size_t>(t)];
    if (t - std::max(span.begin, seg) >= warmup && f.segment_start[static_cast<size_t>(t + 1)] == seg) bars.push_back(t);
  }
  return bars;
}

}  // namespace dqn
