// Market features of the trading environment (DESIGN section 7): the bars are cut into segments
// at gaps, seven causal features are computed per bar inside its segment, and each feature is
// normalized with the mean and standard deviation of the TRAINING span only.
#pragma once
#include <array>
#include <vector>

#include "env/make_env.h"
#include "env/trading_step.h"

namespace dqn {

/// Market features per bar, in this order (index f of an observation's lag block):
///   0 ret_1   log(close[t] / close[t-1])
///   1 ret_5   log(close[t] / close[t-5])
///   2 ret_15  log(close[t] / close[t-15])
///   3 vol_20  population standard deviation of the 20 one-bar log returns ending at t
///   4 range   (high[t] - low[t]) / close[t]
///   5 vlm_z   z-score of log(1 + volume[t]) within the 20 bars ending at t (0 if they are all equal)
///   6 tod     intraday data: phase of the session clock, ((t_utc - anchor) mod 1 day) / 1 day in
///             [0, 1), where anchor is the most common UTC time of day of a segment start in the
///             training span (the usual session open, so the wrap falls in the closed hours);
///             daily or coarser data (nominal bar >= 1 day): 0.
inline constexpr int kMarketFeatures = trading::kFeatures;
/// Names of the market features, in index order.
inline constexpr const char* kMarketFeatureNames[kMarketFeatures] = {"ret_1", "ret_5", "ret_15", "vol_20",
                                                                     "range", "vlm_z", "tod"};
/// A feature at bar t reads bars t-20 .. t (vol_20 needs 20 returns, i.e. 21 closes).
inline constexpr int kFeatureLookback = 20;
/// Normalized features are clipped to [-kFeatureClip, kFeatureClip].
inline constexpr double kFeatureClip = trading::kClip;
/// Seconds of a year used to annualize (365.25 days).
inline constexpr double kSecondsPerYear = trading::kYear;

/// Normalized market features of every bar and the facts about the series they rest on.
struct MarketFeatures {
  int num_bars = 0;
  int train_begin = 0, train_end = 0;  ///< bars [train_begin, train_end) are the training span
  double nominal_bar_s = 0;        ///< median spacing of consecutive training bars, seconds
  double tod_anchor_s = 0;         ///< session-clock anchor, seconds after 00:00 UTC (intraday)
  bool intraday = false;           ///< nominal_bar_s < 1 day
  std::vector<int> segment_start;  ///< per bar: index of the first bar of its segment
  /// [num_bars x kMarketFeatures], row-major; rows of bars without a full lookback are 0.
  std::vector<float> normalized;
  std::array<double, kMarketFeatures> mean{}, stddev{};  ///< training-span statistics
  double return_std = 0;  ///< population std of simple one-bar returns on the training span

  /// True when bar t has its whole feature lookback (t-20 .. t) inside its segment.
  bool feature_valid(int t) const { return t - segment_start[static_cast<size_t>(t)] >= kFeatureLookback; }
};

/// Computes segments, raw features and their training-span normalization.
/// A step between consecutive bars longer than max_gap_bars * nominal_bar_s is a gap: the bar
/// after it starts a new segment, and no feature of a bar reads a bar of an earlier segment.
/// Statistics use only training bars whose whole lookback lies in the training span and in their
/// segment (train_begin <= t - 20, feature_valid(t)); a feature whose training standard deviation
/// is 0 normalizes to 0.
/// @param market validated bars (strictly increasing timestamps, positive prices).
/// @param train_begin, train_end the training span [train_begin, train_end), at least 2 bars.
/// @throws std::invalid_argument if no training bar has a full lookback.
MarketFeatures ComputeMarketFeatures(const MarketData& market, int train_begin, int train_end, double max_gap_bars);

}  // namespace dqn
