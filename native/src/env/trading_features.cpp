// Market features of the trading environment: segments, raw features, training-span statistics.
#include "env/trading_features.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace dqn {
namespace detail {
namespace {

constexpr double kDay = 86400.0;
constexpr int kWindow = 20;  // vol_20 and vlm_z window, bars

/// Population mean and standard deviation of x[0..n); a spread below 1e-12 of the scale is 0.
void MeanStd(const double* x, int n, double* mean, double* sd) {
  double m = 0;
  for (int i = 0; i < n; ++i) m += x[i];
  m /= n;
  double ss = 0;
  for (int i = 0; i < n; ++i) ss += (x[i] - m) * (x[i] - m);
  double s = std::sqrt(ss / n);
  *mean = m;
  *sd = s <= 1e-12 * std::max(1.0, std::abs(m)) ? 0.0 : s;
}

double TimeOfDay(double ts) {
  double r = std::fmod(ts, kDay);
  return r < 0 ? r + kDay : r;
}

double MedianSpacing(const MarketData& m, int train_begin, int train_end) {
  std::vector<double> d(static_cast<size_t>(train_end - train_begin - 1));
  for (int i = train_begin + 1; i < train_end; ++i) d[static_cast<size_t>(i - train_begin - 1)] = m.timestamps[i] - m.timestamps[i - 1];
  auto mid = d.begin() + static_cast<std::ptrdiff_t>((d.size() - 1) / 2);  // lower median
  std::nth_element(d.begin(), mid, d.end());
  return *mid;
}

/// Most common time of day (whole seconds) of a segment start in [train_begin, train_end); ties: earliest.
double SessionAnchor(const MarketData& m, const std::vector<int>& seg, int train_begin, int train_end) {
  std::map<long long, int> count;
  for (int t = train_begin; t < train_end; ++t)
    if (seg[static_cast<size_t>(t)] == t) ++count[std::llround(TimeOfDay(m.timestamps[t])) % 86400];
  long long best = 0;
  int best_n = 0;
  for (const auto& [tod, n] : count)
    if (n > best_n) best = tod, best_n = n;
  return static_cast<double>(best);
}

/// Raw features of bar t (feature_valid(t) must hold).
std::array<double, kMarketFeatures> RawFeatures(const MarketData& m, const MarketFeatures& f, int t) {
  const auto& c = m.close;
  std::array<double, kMarketFeatures> x{};
  x[0] = std::log(c[t] / c[t - 1]);
  x[1] = std::log(c[t] / c[t - 5]);
  x[2] = std::log(c[t] / c[t - 15]);
  double buf[kWindow], mean, sd;
  for (int j = 0; j < kWindow; ++j) buf[j] = std::log(c[t - j] / c[t - j - 1]);
  MeanStd(buf, kWindow, &mean, &sd);
  x[3] = sd;
  x[4] = (m.high[t] - m.low[t]) / c[t];
  for (int j = 0; j < kWindow; ++j) buf[j] = std::log1p(m.volume[t - j]);
  MeanStd(buf, kWindow, &mean, &sd);
  x[5] = sd > 0 ? (buf[0] - mean) / sd : 0.0;
  x[6] = f.intraday ? TimeOfDay(m.timestamps[t] - f.tod_anchor_s) / kDay : 0.0;
  return x;
}

}  // namespace
}  // namespace detail

MarketFeatures ComputeMarketFeatures(const MarketData& m, int train_begin, int train_end, double max_gap_bars) {
  using detail::kDay;
  MarketFeatures f;
  const int n = static_cast<int>(m.close.size());
  f.num_bars = n;
  f.train_begin = train_begin;
  f.train_end = train_end;
  f.nominal_bar_s = detail::MedianSpacing(m, train_begin, train_end);
  f.intraday = f.nominal_bar_s < kDay;

  f.segment_start.resize(static_cast<size_t>(n));
  const double gap = max_gap_bars * f.nominal_bar_s;
  for (int t = 0; t < n; ++t)
    f.segment_start[static_cast<size_t>(t)] =
        t == 0 || m.timestamps[t] - m.timestamps[t - 1] > gap ? t : f.segment_start[static_cast<size_t>(t - 1)];
  if (f.intraday) f.tod_anchor_s = detail::SessionAnchor(m, f.segment_start, train_begin, train_end);

  std::vector<double> raw(static_cast<size_t>(n) * kMarketFeatures, 0.0);
  for (int t = 0; t < n; ++t)
    if (f.feature_valid(t)) {
      auto x = detail::RawFeatures(m, f, t);
      std::copy(x.begin(), x.end(), raw.begin() + static_cast<std::ptrdiff_t>(t) * kMarketFeatures);
    }

  // Training-span statistics: training bars whose lookback lies inside the training span.
  std::vector<int> train;
  for (int t = train_begin + kFeatureLookback; t < train_end; ++t)
    if (f.feature_valid(t)) train.push_back(t);
  if (train.empty())
    throw std::invalid_argument("trading env: no training bar has a full lookback of " + std::to_string(kFeatureLookback) +
                                " bars inside its segment (training span: " + std::to_string(train_end - train_begin) +
                                " bars); give more bars, smaller validation_fraction or test_fraction, or a larger max_gap_bars");
  std::vector<double> col(train.size());
  for (int k = 0; k < kMarketFeatures; ++k) {
    for (size_t i = 0; i < train.size(); ++i) col[i] = raw[static_cast<size_t>(train[i]) * kMarketFeatures + k];
    detail::MeanStd(col.data(), static_cast<int>(col.size()), &f.mean[k], &f.stddev[k]);
  }
  for (size_t i = 0; i < train.size(); ++i) col[i] = m.close[train[i]] / m.close[train[i] - 1] - 1.0;
  double unused;
  detail::MeanStd(col.data(), static_cast<int>(col.size()), &unused, &f.return_std);

  f.normalized.assign(static_cast<size_t>(n) * kMarketFeatures, 0.0f);
  for (int t = 0; t < n; ++t) {
    if (!f.feature_valid(t)) continue;
    for (int k = 0; k < kMarketFeatures; ++k) {
      const size_t i = static_cast<size_t>(t) * kMarketFeatures + k;
      const double z = f.stddev[k] > 0 ? (raw[i] - f.mean[k]) / f.stddev[k] : 0.0;
      f.normalized[i] = static_cast<float>(std::clamp(z, -kFeatureClip, kFeatureClip));
    }
  }
  return f;
}

}  // namespace dqn
