// The trading environment: episodes over precomputed normalized features (see trading_env.h).
#include "env/trading_env.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "env/trading_booking.h"
#include "env/trading_features.h"
#include "env/trading_metrics.h"

namespace dqn {
namespace detail {
namespace {

constexpr double kMinPosition = 0.01, kMaxPosition = 10;  // max_position bounds, multiples of equity
constexpr int kMaShort = 20, kMaLong = 60;                 // moving-average crossover baseline, bars

[[noreturn]] void Invalid(const std::string& msg) { throw std::invalid_argument("trading env: " + msg); }

void CheckSpec(const EnvSpec& s) {
  if (s.num_envs < 1) Invalid("num_envs must be >= 1, got " + std::to_string(s.num_envs));
  if (s.episode_length < 1) Invalid("episode_length must be >= 1, got " + std::to_string(s.episode_length));
  if (s.lags < 1) Invalid("lags must be >= 1, got " + std::to_string(s.lags));
  if (s.n_actions < 3 || s.n_actions % 2 == 0)
    Invalid("n_actions must be odd and >= 3 (the middle action is the flat position), got " + std::to_string(s.n_actions));
  if (!(s.max_position >= kMinPosition && s.max_position <= kMaxPosition))
    Invalid("max_position (a multiple of equity) must be in [" + std::to_string(kMinPosition) + ", " + std::to_string(kMaxPosition) +
            "], got " + std::to_string(s.max_position));
  if (!(s.cost_bps >= 0) || !std::isfinite(s.cost_bps)) Invalid("cost_bps must be a finite number >= 0, got " + std::to_string(s.cost_bps));
  if (!(s.validation_fraction > 0 && s.validation_fraction < 1))
    Invalid("validation_fraction must be in (0, 1), got " + std::to_string(s.validation_fraction));
  if (!(s.max_gap_bars >= 1) || !std::isfinite(s.max_gap_bars)) Invalid("max_gap_bars must be a finite number >= 1, got " + std::to_string(s.max_gap_bars));
  if (!s.market) Invalid("market data is required");
}

void CheckMarket(const MarketData& m) {
  const size_t n = m.close.size();
  if (m.timestamps.size() != n || m.open.size() != n || m.high.size() != n || m.low.size() != n || m.volume.size() != n)
    Invalid("timestamps, open, high, low, close and volume must have the same length");
  for (size_t t = 0; t < n; ++t) {
    const std::string at = " at bar " + std::to_string(t);
    if (!std::isfinite(m.timestamps[t])) Invalid("timestamp is not finite" + at);
    if (t > 0 && !(m.timestamps[t] > m.timestamps[t - 1])) Invalid("timestamps must be strictly increasing" + at);
    for (double p : {m.open[t], m.high[t], m.low[t], m.close[t]})
      if (!(p > 0) || !std::isfinite(p)) Invalid("prices must be finite and > 0" + at + ", got " + std::to_string(p));
    if (!(m.volume[t] >= 0) || !std::isfinite(m.volume[t])) Invalid("volume must be finite and >= 0" + at);
  }
}

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class TradingEnv final : public VecEnv {
 public:
  TradingEnv(const EnvSpec& spec, bool eval) : spec_(spec), eval_(eval), market_(spec.market) {
    const int n = static_cast<int>(market_->close.size());
    const int n_val = static_cast<int>(std::llround(n * spec.validation_fraction));
    const int warmup = kFeatureLookback + spec.lags - 1;
    if (n - n_val < warmup + 2 || n_val < 2)
      Invalid("too few bars: " + std::to_string(n) + " bars give " + std::to_string(n - n_val) + " training and " +
              std::to_string(n_val) + " validation bars; need at least " + std::to_string(warmup + 2) +
              " training bars (a lookback of 20 + lags - 1, the bar and the next) and 2 validation bars");
    features_ = ComputeMarketFeatures(*market_, n - n_val, spec.max_gap_bars);
    for (int t = 0; t + 1 < n; ++t) {
      const bool steppable = t - Segment(t) >= warmup && Segment(t + 1) == Segment(t);
      const bool in_span = eval ? t >= features_.train_end : t + 1 < features_.train_end;
      if (steppable && in_span) decision_bars_.push_back(t);
    }
    if (decision_bars_.empty())
      Invalid(std::string("the ") + (eval ? "validation" : "training") + " span (" +
              std::to_string(eval ? n_val : n - n_val) + " bars) has no bar with " + std::to_string(warmup) +
              " earlier bars and a next bar in its segment (20 + lags - 1); give more bars, " +
              (eval ? "a larger" : "a smaller") + " validation_fraction or a larger max_gap_bars");
    if (eval) ComputeBaselines();
    copies_.resize(static_cast<size_t>(spec.num_envs));
    for (size_t i = 0; i < copies_.size(); ++i) copies_[i].rng.seed(SplitMix64(spec.seed * 0x100000001B3ull + i));
  }

  int num_envs() const override { return spec_.num_envs; }
  int obs_dim() const override { return kMarketFeatures * spec_.lags + 2; }
  int num_actions() const override { return spec_.n_actions; }

  std::vector<FeatureGroup> causal_features() const override {
    std::vector<FeatureGroup> groups(kMarketFeatures);
    for (int f = 0; f < kMarketFeatures; ++f) {
      groups[static_cast<size_t>(f)].name = kMarketFeatureNames[f];
      for (int k = 0; k < spec_.lags; ++k) groups[static_cast<size_t>(f)].indices.push_back(k * kMarketFeatures + f);
    }
    return groups;
  }

  void reset(float* obs) override {
    for (size_t i = 0; i < copies_.size(); ++i) {
      Restart(copies_[i]);
      WriteObs(copies_[i], copies_[i].bar, obs + i * obs_dim());
    }
    started_ = true;
  }

  void step(const int32_t* actions, float* next_obs, float* rewards, uint8_t* terminated, uint8_t* truncated,
            float* final_obs) override {
    if (!started_) throw std::logic_error("trading env: step() called before reset()");
    for (int i = 0; i < spec_.num_envs; ++i)
      if (actions[i] < 0 || actions[i] >= spec_.n_actions)
        throw std::out_of_range("trading env: action of copy " + std::to_string(i) + " must be in [0, " +
                                std::to_string(spec_.n_actions) + "), got " + std::to_string(actions[i]));
    const size_t d = static_cast<size_t>(obs_dim());
    for (size_t i = 0; i < copies_.size(); ++i) {
      Copy& c = copies_[i];
      const double position = Position(actions[i]);
      if (eval_ && position != c.position) ++c.changes;
      const size_t before = c.bar_returns.size();
      const StepBooking b = BookWalkStep(c.index, c.position, position, eval_ ? &c.bar_returns : nullptr);
      if (eval_) RecordPositions(c, position, before);
      c.position = b.held;
      c.last_reward = b.reward;
      c.reward_sum += b.reward;
      ++c.steps;
      rewards[i] = static_cast<float>(b.reward * spec_.reward_scale);
      terminated[i] = 0;
      const bool last = c.index + 1 >= decision_bars_.size();
      const int next = last ? c.bar + 1 : decision_bars_[c.index + 1];  // the bar observed after this step
      const bool ended = last || (eval_ ? b.ruined : c.steps >= spec_.episode_length);
      truncated[i] = ended ? 1 : 0;
      float* fo = final_obs + i * d;
      WriteObs(c, next, fo);
      if (ended) {
        if (eval_) Finish(c, b.ruined);
        Restart(c);
        WriteObs(c, c.bar, next_obs + i * d);
      } else {
        ++c.index;
        c.bar = next;
        std::copy(fo, fo + d, next_obs + i * d);
      }
    }
  }

  std::map<std::string, std::vector<double>> episode_series() override { return last_series_; }

  std::map<std::string, double> episode_metrics() override {
    if (finished_ == 0) return {};
    std::map<std::string, double> m;
    for (auto& [k, v] : metric_sums_) m[k] = v / finished_;
    metric_sums_.clear();
    finished_ = 0;
    return m;
  }

 private:
  struct Copy {
    std::mt19937_64 rng;
    int bar = 0;
    size_t index = 0;  // eval: position in decision_bars_
    int steps = 0, changes = 0;     // changes: eval steps that changed the position
    double position = 0, last_reward = 0, reward_sum = 0;  // position held; unscaled rewards
    std::vector<double> bar_returns;  // eval: this episode's per-bar returns on equity
    std::vector<double> bar_positions;  // eval: the position held over each of those bars
  };

  /// Target position of action a, a multiple of equity; the middle action is exactly 0 and
  /// the last exactly +max_position.
  double Position(int a) const {
    const int half = spec_.n_actions - 1;
    return spec_.max_position * (2.0 * a - half) / half;
  }

  /// Books the step from decision_bars_[index] to the next decision bar (or, from the last one,
  /// to the bar after it, closing the position in evaluation), holding `position` after `held`.
  StepBooking BookWalkStep(size_t index, double held, double position, std::vector<double>* bar_returns) const {
    const int t = decision_bars_[index];
    const bool last = index + 1 >= decision_bars_.size();
    const int until = last ? t + 1 : decision_bars_[index + 1];
    int close_at = -1;
    if (last && eval_) close_at = until;
    // A decision bar's next bar is in its segment, so t + 1 is the last bar before a gap.
    if (!last && spec_.gap_policy == GapPolicy::kFlat && Segment(until) != Segment(t)) close_at = t + 1;
    return BookStep(market_->close, t, until, held, position, spec_.cost_bps * 1e-4, close_at, bar_returns);
  }

  /// Appends the position held over each bar that the step just booked (bars before..end of
  /// c.bar_returns): `position`, or 0 after the bar at which the step closed it.
  void RecordPositions(Copy& c, double position, size_t before) const {
    const int t = decision_bars_[c.index];
    const bool last = c.index + 1 >= decision_bars_.size();
    const int until = last ? t + 1 : decision_bars_[c.index + 1];
    int close_at = last ? until : -1;
    if (!last && spec_.gap_policy == GapPolicy::kFlat && Segment(until) != Segment(t)) close_at = t + 1;
    for (size_t j = before; j < c.bar_returns.size(); ++j) {
      const int b = t + 1 + static_cast<int>(j - before);
      c.bar_positions.push_back(close_at >= 0 && b > close_at ? 0.0 : position);
    }
  }

  /// Equity curve E_0 = 1, E_i = E_{i-1} (1 + r_i) of per-bar returns (n + 1 values).
  static std::vector<double> Compound(const std::vector<double>& bar_returns) {
    std::vector<double> e(bar_returns.size() + 1, 1.0);
    for (size_t i = 0; i < bar_returns.size(); ++i) e[i + 1] = bar_returns[i] <= -1 ? 0.0 : e[i] * (1 + bar_returns[i]);
    return e;
  }

  /// Metrics of a baseline rule (decision bar -> position) walked like the agent, under `prefix`.
  template <typename Rule>
  void WalkBaseline(const std::string& prefix, Rule rule) {
    std::vector<double> bars;
    double held = 0, simple = 0;
    for (size_t i = 0; i < decision_bars_.size(); ++i) {
      const StepBooking b = BookWalkStep(i, held, rule(decision_bars_[i]), &bars);
      held = b.held;
      simple += b.reward;
      if (b.ruined) break;
    }
    const ReturnSummary s = SummarizeReturns(bars, features_.bars_per_year);
    if (prefix == "buy_and_hold_") buy_and_hold_equity_ = Compound(bars);
    baselines_[prefix + "return"] = s.total_return;
    baselines_[prefix + "return_simple"] = simple;
    baselines_[prefix + "sharpe"] = s.sharpe;
    baselines_[prefix + "sharpe_se"] = s.sharpe_se;
    baselines_[prefix + "max_drawdown"] = s.max_drawdown;
    baselines_[prefix + "ruined"] = s.ruined ? 1 : 0;
  }

  void ComputeBaselines() {
    const auto& close = market_->close;
    const double full = spec_.max_position;
    WalkBaseline("flat_", [](int) { return 0.0; });
    WalkBaseline("buy_and_hold_", [full](int) { return full; });
    WalkBaseline("ma_crossover_", [&close, full](int t) {
      if (t + 1 < kMaLong) return 0.0;
      // Each mean sums its closes oldest first, so that a tie (flat prices) is decided the same
      // way by any implementation that follows this order.
      double fast = 0, slow = 0;
      for (int j = t - kMaShort + 1; j <= t; ++j) fast += close[static_cast<size_t>(j)];
      for (int j = t - kMaLong + 1; j <= t; ++j) slow += close[static_cast<size_t>(j)];
      return fast / kMaShort > slow / kMaLong ? full : 0.0;
    });
  }

  int Segment(int t) const { return features_.segment_start[static_cast<size_t>(t)]; }

  void Restart(Copy& c) {
    if (eval_) {
      c.index = 0;
    } else {
      std::uniform_int_distribution<size_t> pick(0, decision_bars_.size() - 1);
      c.index = pick(c.rng);
    }
    c.bar = decision_bars_[c.index];
    c.steps = 0;
    c.changes = 0;
    c.position = 0;
    c.last_reward = 0;
    c.reward_sum = 0;
    c.bar_returns.clear();
    c.bar_positions.clear();
  }

  void WriteObs(const Copy& c, int t, float* out) const {
    const float* row = features_.normalized.data();
    for (int k = 0; k < spec_.lags; ++k)
      std::copy_n(row + static_cast<size_t>(t - k) * kMarketFeatures, kMarketFeatures, out + k * kMarketFeatures);
    out[kMarketFeatures * spec_.lags] = static_cast<float>(c.position / spec_.max_position);
    const double scale = spec_.max_position * features_.return_std;
    const double pnl = scale > 0 ? std::clamp(c.last_reward / scale, -kFeatureClip, kFeatureClip) : 0.0;
    out[kMarketFeatures * spec_.lags + 1] = static_cast<float>(pnl);
  }

  void Finish(const Copy& c, bool ruined) {
    const ReturnSummary agent = SummarizeReturns(c.bar_returns, features_.bars_per_year);
    metric_sums_["return"] += agent.total_return;
    metric_sums_["return_simple"] += c.reward_sum;
    metric_sums_["sharpe"] += agent.sharpe;
    metric_sums_["sharpe_se"] += agent.sharpe_se;
    metric_sums_["max_drawdown"] += agent.max_drawdown;
    metric_sums_["ruined"] += ruined ? 1 : 0;
    metric_sums_["trade_fraction"] += static_cast<double>(c.changes) / c.steps;
    metric_sums_["bars"] += agent.bars;
    metric_sums_["bars_per_year"] += features_.bars_per_year;
    for (const auto& [k, v] : baselines_) metric_sums_[k] += v;
    ++finished_;
    last_series_.clear();
    last_series_["equity"] = Compound(c.bar_returns);
    last_series_["position"] = c.bar_positions;
    last_series_["buy_and_hold_equity"] = buy_and_hold_equity_;
  }

  EnvSpec spec_;
  bool eval_;
  std::shared_ptr<const MarketData> market_;
  MarketFeatures features_;
  std::vector<int> decision_bars_;  // the decision bars in time order
  std::vector<Copy> copies_;
  bool started_ = false;
  std::map<std::string, double> baselines_;  // eval: the baselines' metrics (the same every episode)
  std::map<std::string, double> metric_sums_;
  int finished_ = 0;
  std::vector<double> buy_and_hold_equity_;  // eval: buy-and-hold's compounded curve (n + 1 values)
  std::map<std::string, std::vector<double>> last_series_;  // eval: the last finished episode's series
};

}  // namespace
}  // namespace detail

std::unique_ptr<VecEnv> MakeTradingEnv(const EnvSpec& spec, bool eval) {
  detail::CheckSpec(spec);
  detail::CheckMarket(*spec.market);
  return std::make_unique<detail::TradingEnv>(spec, eval);
}

}  // namespace dqn
