// The trading environment: episodes over precomputed normalized features (see trading_env.h).
#include "env/trading_env.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "env/trading_features.h"
#include "env/trading_metrics.h"

namespace dqn {
namespace detail {
namespace {

[[noreturn]] void Invalid(const std::string& msg) { throw std::invalid_argument("trading env: " + msg); }

void CheckSpec(const EnvSpec& s) {
  if (s.num_envs < 1) Invalid("num_envs must be >= 1, got " + std::to_string(s.num_envs));
  if (s.episode_length < 1) Invalid("episode_length must be >= 1, got " + std::to_string(s.episode_length));
  if (s.lags < 1) Invalid("lags must be >= 1, got " + std::to_string(s.lags));
  if (s.n_actions < 2) Invalid("n_actions must be >= 2, got " + std::to_string(s.n_actions));
  if (!(s.max_position > 0) || !std::isfinite(s.max_position))
    Invalid("max_position must be a finite number > 0, got " + std::to_string(s.max_position));
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
    decision_.assign(static_cast<size_t>(n), 0);
    for (int t = 0; t + 1 < n; ++t) {
      const bool steppable = t - Segment(t) >= warmup && Segment(t + 1) == Segment(t);
      const bool in_span = eval ? t >= features_.train_end : t + 1 < features_.train_end;
      if (steppable && in_span) {
        decision_[static_cast<size_t>(t)] = 1;
        decision_bars_.push_back(t);
      }
    }
    if (decision_bars_.empty())
      Invalid(std::string("the ") + (eval ? "validation" : "training") + " span (" +
              std::to_string(eval ? n_val : n - n_val) + " bars) has no bar with " + std::to_string(warmup) +
              " earlier bars and a next bar in its segment (20 + lags - 1); give more bars, " +
              (eval ? "a larger" : "a smaller") + " validation_fraction or a larger max_gap_bars");
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
    const auto& close = market_->close;
    const double cost = spec_.cost_bps * 1e-4;
    for (size_t i = 0; i < copies_.size(); ++i) {
      Copy& c = copies_[i];
      const int t = c.bar;
      const double position = -spec_.max_position + actions[i] * 2.0 * spec_.max_position / (spec_.n_actions - 1);
      const double ret = close[t + 1] / close[t] - 1.0;
      const double r = position * ret - cost * std::abs(position - c.position);
      c.position = position;
      c.last_reward = r;
      ++c.steps;
      rewards[i] = static_cast<float>(r * spec_.reward_scale);
      terminated[i] = 0;
      int next = t + 1;  // the bar the agent observes after this step
      bool ended;
      if (eval_) {
        c.rewards.push_back(r);
        c.hold_rewards.push_back(spec_.max_position * ret - (c.steps == 1 ? cost * spec_.max_position : 0.0));
        ended = ++c.index >= decision_bars_.size();
        if (!ended) next = decision_bars_[c.index];  // t + 1, or the first decision bar after a gap
      } else {
        ended = !decision_[static_cast<size_t>(next)] || c.steps >= spec_.episode_length;
      }
      truncated[i] = ended ? 1 : 0;
      float* fo = final_obs + i * d;
      WriteObs(c, next, fo);
      if (ended) {
        if (eval_) Finish(c);
        Restart(c);
        WriteObs(c, c.bar, next_obs + i * d);
      } else {
        c.bar = next;
        std::copy(fo, fo + d, next_obs + i * d);
      }
    }
  }

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
    int steps = 0;
    double position = 0, last_reward = 0;
    std::vector<double> rewards, hold_rewards;  // eval: this episode's per-step rewards
  };

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
    c.position = 0;
    c.last_reward = 0;
    c.rewards.clear();
    c.hold_rewards.clear();
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

  void Finish(const Copy& c) {
    const ReturnSummary agent = SummarizeReturns(c.rewards, features_.bars_per_year);
    const ReturnSummary hold = SummarizeReturns(c.hold_rewards, features_.bars_per_year);
    metric_sums_["return"] += agent.total_return;
    metric_sums_["sharpe"] += agent.sharpe;
    metric_sums_["max_drawdown"] += agent.max_drawdown;
    metric_sums_["buy_and_hold_return"] += hold.total_return;
    metric_sums_["buy_and_hold_sharpe"] += hold.sharpe;
    ++finished_;
  }

  EnvSpec spec_;
  bool eval_;
  std::shared_ptr<const MarketData> market_;
  MarketFeatures features_;
  std::vector<uint8_t> decision_;  // per bar: a decision bar of this env's span
  std::vector<int> decision_bars_;  // the decision bars in time order
  std::vector<Copy> copies_;
  bool started_ = false;
  std::map<std::string, double> metric_sums_;
  int finished_ = 0;
};

}  // namespace
}  // namespace detail

std::unique_ptr<VecEnv> MakeTradingEnv(const EnvSpec& spec, bool eval) {
  detail::CheckSpec(spec);
  detail::CheckMarket(*spec.market);
  return std::make_unique<detail::TradingEnv>(spec, eval);
}

}  // namespace dqn
