// The trading environment: episodes over precomputed normalized features (see trading_env.h).
#include "env/trading_env.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "env/trading_baselines.h"
#include "env/trading_booking.h"
#include "env/trading_features.h"
#include "env/trading_spans.h"
#include "env/trading_walk.h"

namespace dqn {
namespace detail {
namespace {

constexpr double kMinPosition = 0.01, kMaxPosition = 10;  // max_position bounds, multiples of equity
constexpr int kStepActions = 4;                            // action_space "step": hold, up, down, flat
enum StepAction { kHold = 0, kUp = 1, kDown = 2, kFlatten = 3 };

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
  if (!(s.max_gap_bars >= 1) || !std::isfinite(s.max_gap_bars)) Invalid("max_gap_bars must be a finite number >= 1, got " + std::to_string(s.max_gap_bars));
  if (s.decision_interval < 1) Invalid("decision_interval must be >= 1, got " + std::to_string(s.decision_interval));
  if (!(s.change_penalty_bps >= 0) || !std::isfinite(s.change_penalty_bps))
    Invalid("change_penalty_bps must be a finite number >= 0, got " + std::to_string(s.change_penalty_bps));
  if (!(s.financing_rate >= 0) || !std::isfinite(s.financing_rate))
    Invalid("financing_rate must be a finite number >= 0 (a fraction per year), got " + std::to_string(s.financing_rate));
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

const char* SpanName(EnvRole role) {
  return role == EnvRole::kTrain ? "training" : role == EnvRole::kValidation ? "validation" : "test";
}

Span RoleSpan(const Spans& spans, EnvRole role) {
  return role == EnvRole::kTrain ? spans.train : role == EnvRole::kValidation ? spans.validation : spans.test;
}

class TradingEnv final : public VecEnv {
 public:
  TradingEnv(const EnvSpec& spec, EnvRole role)
      : spec_(spec), eval_(role != EnvRole::kTrain), market_(spec.market), warmup_(kFeatureLookback + spec.lags - 1) {
    const int n = static_cast<int>(market_->close.size());
    const Spans spans = SplitSpans(n, spec, warmup_);
    if (role == EnvRole::kTest && spans.test.empty())
      Invalid("this config has no test span: set env.test_fraction > 0 to hold one out");
    features_ = ComputeMarketFeatures(*market_, spans.train.begin, spans.train.end, spec.max_gap_bars);
    span_ = RoleSpan(spans, role);
    std::vector<int> bars = DecisionBars(features_, span_, warmup_);
    if (bars.empty())
      Invalid("the " + DescribeSpan(SpanName(role), span_) + " has no bar with " + std::to_string(warmup_) +
              " earlier bars of its span and segment and a next bar in both (20 + lags - 1); give more bars, change "
              "validation_fraction, test_fraction or embargo_bars, or a larger max_gap_bars");
    plan_ = std::make_unique<WalkPlan>(std::move(bars), spec.decision_interval, features_, spec.gap_policy, eval_);
    bars_per_year_ = SpanBarsPerYear(*market_, span_);
    if (eval_) baselines_ = WalkBaselines(*plan_, *market_, spec.max_position, Cost(), spec.financing_rate, bars_per_year_);
    copies_.resize(static_cast<size_t>(spec.num_envs));
    for (size_t i = 0; i < copies_.size(); ++i) copies_[i].rng.seed(SplitMix64(spec.seed * 0x100000001B3ull + i));
  }

  int num_envs() const override { return spec_.num_envs; }
  int obs_dim() const override { return kMarketFeatures * spec_.lags + 2; }
  int num_actions() const override { return spec_.action_space == ActionSpace::kStep ? kStepActions : spec_.n_actions; }

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
      WriteObs(copies_[i], plan_->bar(copies_[i].index), obs + i * obs_dim());
    }
    started_ = true;
  }

  void step(const int32_t* actions, float* next_obs, float* rewards, uint8_t* terminated, uint8_t* truncated,
            float* final_obs) override {
    if (!started_) throw std::logic_error("trading env: step() called before reset()");
    for (int i = 0; i < spec_.num_envs; ++i)
      if (actions[i] < 0 || actions[i] >= num_actions())
        throw std::out_of_range("trading env: action of copy " + std::to_string(i) + " must be in [0, " +
                                std::to_string(num_actions()) + "), got " + std::to_string(actions[i]));
    const size_t d = static_cast<size_t>(obs_dim());
    for (size_t i = 0; i < copies_.size(); ++i) {
      Copy& c = copies_[i];
      const Decision to = Decide(c, actions[i]);
      const StepOrder o = plan_->Order(c.index, c.weight, to.target, Cost(), spec_.financing_rate);
      const size_t first = c.ledger.bar_returns.size();
      const StepBooking b = BookStep(market_->timestamps, market_->close, o, eval_ ? &c.ledger.bar_returns : nullptr);
      if (eval_) c.ledger.Add(b, o, first, Position(to.level), to.level != c.level);
      c.level = o.close_at >= 0 ? Flat() : to.level;
      c.weight = b.weight;
      c.last_reward = b.reward;
      ++c.steps;
      const double penalty = eval_ ? 0.0 : spec_.change_penalty_bps * 1e-4 * b.turnover;
      rewards[i] = static_cast<float>((b.reward - penalty) * spec_.reward_scale);
      terminated[i] = 0;
      const bool last = plan_->last(c.index);
      const int next = last ? o.until : plan_->bar(plan_->next(c.index));  // the bar observed after this step
      const bool ended = last || (eval_ ? b.ruined : c.steps >= spec_.episode_length);
      truncated[i] = ended ? 1 : 0;
      float* fo = final_obs + i * d;
      WriteObs(c, next, fo);
      if (ended) {
        if (eval_) Finish(c);
        Restart(c);
        WriteObs(c, plan_->bar(c.index), next_obs + i * d);
      } else {
        c.index = plan_->next(c.index);
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
    size_t index = 0;   // the current decision's index in the plan
    int steps = 0;
    int level = 0;      // the decided position's level on the grid
    double weight = 0;  // the weight held (units x close / equity), drifted since the last trade
    double last_reward = 0;  // unscaled, for the observation
    WalkLedger ledger;       // eval: this episode's walk
  };

  /// What an action decides: the level shown to the agent and the position traded to.
  struct Decision {
    int level;
    double target;
  };

  double Cost() const { return spec_.cost_bps * 1e-4; }
  int Flat() const { return (spec_.n_actions - 1) / 2; }

  /// Position of grid level L, a multiple of equity; the middle level is exactly 0 and the last
  /// exactly +max_position.
  double Position(int level) const {
    const int half = spec_.n_actions - 1;
    return spec_.max_position * (2.0 * level - half) / half;
  }

  Decision Decide(const Copy& c, int action) const {
    if (spec_.action_space == ActionSpace::kTarget) return {action, Position(action)};
    switch (action) {
      case kHold: return {c.level, c.weight};  // trade nothing
      case kUp: return {std::min(c.level + 1, spec_.n_actions - 1), Position(std::min(c.level + 1, spec_.n_actions - 1))};
      case kDown: return {std::max(c.level - 1, 0), Position(std::max(c.level - 1, 0))};
      case kFlatten:
      default: return {Flat(), 0.0};  // step() has checked the action's range
    }
  }

  void Restart(Copy& c) {
    if (eval_) {
      c.index = 0;
    } else {
      std::uniform_int_distribution<size_t> pick(0, plan_->size() - 1);
      c.index = pick(c.rng);
    }
    c.steps = 0;
    c.level = Flat();
    c.weight = 0;
    c.last_reward = 0;
    c.ledger = WalkLedger();
  }

  void WriteObs(const Copy& c, int t, float* out) const {
    const float* row = features_.normalized.data();
    for (int k = 0; k < spec_.lags; ++k)
      std::copy_n(row + static_cast<size_t>(t - k) * kMarketFeatures, kMarketFeatures, out + k * kMarketFeatures);
    out[kMarketFeatures * spec_.lags] = static_cast<float>(Position(c.level) / spec_.max_position);
    const double scale = spec_.max_position * features_.return_std;
    const double pnl = scale > 0 ? std::clamp(c.last_reward / scale, -kFeatureClip, kFeatureClip) : 0.0;
    out[kMarketFeatures * spec_.lags + 1] = static_cast<float>(pnl);
  }

  void Finish(const Copy& c) {
    std::map<std::string, double> m;
    const ReturnSummary s = PutWalkFigures(c.ledger, bars_per_year_, "", m);
    m["bar_return_mean"] = s.mean;
    m["bar_return_sd"] = s.sd;
    m["trade_fraction"] = static_cast<double>(c.ledger.changes) / c.ledger.steps;
    m["bars"] = static_cast<double>(c.ledger.bar_returns.size());
    m["bars_per_year"] = bars_per_year_;
    m["span_begin_bar"] = span_.begin;
    m["span_end_bar"] = span_.end;
    m["span_first_time"] = market_->timestamps[static_cast<size_t>(span_.begin)];
    m["span_last_time"] = market_->timestamps[static_cast<size_t>(span_.end - 1)];
    for (const auto& [k, v] : baselines_.metrics) m[k] = v;
    for (const auto& [k, v] : m) metric_sums_[k] += v;
    ++finished_;
    last_series_.clear();
    last_series_["equity"] = Compound(c.ledger.bar_returns);
    last_series_["position"] = c.ledger.bar_positions;
    last_series_["buy_and_hold_equity"] = baselines_.buy_and_hold_equity;
  }

  EnvSpec spec_;
  bool eval_;
  std::shared_ptr<const MarketData> market_;
  int warmup_;  // bars a decision bar needs before it in its span and segment
  MarketFeatures features_;
  Span span_;
  std::unique_ptr<WalkPlan> plan_;
  double bars_per_year_ = 0;  // of span_, calendar
  std::vector<Copy> copies_;
  bool started_ = false;
  BaselineWalks baselines_;  // eval: the same every episode
  std::map<std::string, double> metric_sums_;
  int finished_ = 0;
  std::map<std::string, std::vector<double>> last_series_;  // eval: the last finished episode's series
};

}  // namespace
}  // namespace detail

std::unique_ptr<VecEnv> MakeTradingEnv(const EnvSpec& spec, EnvRole role) {
  detail::CheckSpec(spec);
  detail::CheckMarket(*spec.market);
  return std::make_unique<detail::TradingEnv>(spec, role);
}

}  // namespace dqn
