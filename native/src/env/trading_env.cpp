// The trading environment: episodes over precomputed normalized features (see trading_env.h).
#include "env/trading_env.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "env/trading_baselines.h"
#include "env/trading_booking.h"
#include "env/trading_features.h"
#include "env/trading_report.h"
#include "env/trading_spans.h"
#include "env/trading_walk.h"

namespace dqn {
namespace detail {
namespace {

constexpr double kMinPosition = 0.01, kMaxPosition = 10;  // max_position bounds, multiples of equity

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

const char* SpanName(EnvRole role) {
  return role == EnvRole::kTrain ? "training" : role == EnvRole::kValidation ? "validation" : "test";
}

Span RoleSpan(const Spans& spans, EnvRole role) {
  return role == EnvRole::kTrain ? spans.train : role == EnvRole::kValidation ? spans.validation : spans.test;
}

class TradingEnv final : public VecEnv {
 public:
  TradingEnv(const EnvSpec& spec, EnvRole role) : spec_(spec), setup_(PrepareTrading(spec, role)), walk_(setup_.walk()) {
    if (setup_.params.eval) baselines_ = SetupBaselines(setup_);
    copies_.resize(static_cast<size_t>(spec.num_envs));
    for (size_t i = 0; i < copies_.size(); ++i) copies_[i].rng = trading::CopyRng(spec.seed, i);
  }

  int num_envs() const override { return spec_.num_envs; }
  int obs_dim() const override { return trading::ObsDim(setup_.params); }
  int num_actions() const override { return trading::NumActions(setup_.params); }

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
      Copy& c = copies_[i];
      trading::Restart(walk_, setup_.params, c.state, c.rng);
      c.ledger = WalkLedger();
      trading::WriteObs(walk_, setup_.params, c.state, trading::Bar(walk_, c.state), obs + i * obs_dim());
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
    const trading::Params& p = setup_.params;
    const size_t d = static_cast<size_t>(obs_dim());
    for (size_t i = 0; i < copies_.size(); ++i) {  // the step the device env runs too (trading::StepCopy)
      Copy& c = copies_[i];
      const int level = c.state.level;
      const size_t first = c.ledger.bar_returns.size();
      const trading::StepRecord r =
          p.eval ? trading::BookCopy(walk_, p, c.state, actions[i], [&c](double x) { c.ledger.bar_returns.push_back(x); })
                 : trading::BookCopy(walk_, p, c.state, actions[i], trading::NoBars{});
      if (p.eval) c.ledger.Add(r.booking, r.order, first, trading::Position(p, r.to.level), r.to.level != level);
      const bool ended = trading::FinishStep(walk_, p, c.state, c.rng, r, next_obs + i * d, rewards[i], terminated[i],
                                             truncated[i], final_obs + i * d);
      if (ended) {
        if (p.eval) Finish(c.ledger);
        c.ledger = WalkLedger();
      }
    }
  }

  std::map<std::string, std::vector<double>> episode_series() override { return last_series_; }

  std::vector<TradingCopySnapshot> snapshot() const {
    std::vector<TradingCopySnapshot> out;
    for (const Copy& c : copies_) out.push_back({c.state, c.rng.state()});
    return out;
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
    trading::CopyState state;  // what the shared step reads and writes
    Rng rng;                   // reset stream: trading::CopyRng(seed, i)
    WalkLedger ledger;         // eval: this episode's walk
  };

  void Finish(const WalkLedger& w) {
    WalkReport r = ReportWalk(w, setup_, baselines_);
    for (const auto& [k, v] : r.metrics) metric_sums_[k] += v;
    ++finished_;
    last_series_ = std::move(r.series);
  }

  EnvSpec spec_;
  TradingSetup setup_;
  trading::Walk walk_;  // pointers into setup_
  std::vector<Copy> copies_;
  bool started_ = false;
  BaselineWalks baselines_;  // eval: the same every episode
  std::map<std::string, double> metric_sums_;
  int finished_ = 0;
  std::map<std::string, std::vector<double>> last_series_;  // eval: the last finished episode's series
};

}  // namespace
}  // namespace detail

TradingSetup PrepareTrading(const EnvSpec& spec, EnvRole role) {
  using detail::Invalid;
  detail::CheckSpec(spec);
  detail::CheckMarket(*spec.market);
  TradingSetup out;
  out.market = spec.market;
  const int warmup = kFeatureLookback + spec.lags - 1;  // bars a decision bar needs before it in its span and segment
  const int n = static_cast<int>(out.market->close.size());
  const Spans spans = SplitSpans(n, spec, warmup);
  if (role == EnvRole::kTest && spans.test.empty()) Invalid("this config has no test span: set env.test_fraction > 0 to hold one out");
  out.features = ComputeMarketFeatures(*out.market, spans.train.begin, spans.train.end, spec.max_gap_bars);
  out.span = detail::RoleSpan(spans, role);
  std::vector<int> bars = DecisionBars(out.features, out.span, warmup);
  if (bars.empty())
    Invalid("the " + DescribeSpan(detail::SpanName(role), out.span) + " has no bar with " + std::to_string(warmup) +
            " earlier bars of its span and segment and a next bar in both (20 + lags - 1); give more bars, change "
            "validation_fraction, test_fraction or embargo_bars, or a larger max_gap_bars");
  const bool eval = role != EnvRole::kTrain;
  out.plan = std::make_unique<WalkPlan>(std::move(bars), spec.decision_interval, out.features, spec.gap_policy, eval);
  out.bars_per_year = SpanBarsPerYear(*out.market, out.span);
  trading::Params& p = out.params;
  p.n_actions = spec.n_actions;
  p.action_space = spec.action_space;
  p.lags = spec.lags;
  p.episode_length = spec.episode_length;
  p.eval = eval;
  p.max_position = spec.max_position;
  p.cost = spec.cost_bps * 1e-4;
  p.financing_rate = spec.financing_rate;
  p.change_penalty_bps = spec.change_penalty_bps;
  p.reward_scale = spec.reward_scale;
  p.return_std = out.features.return_std;
  return out;
}

std::unique_ptr<VecEnv> MakeTradingEnv(const EnvSpec& spec, EnvRole role) { return std::make_unique<detail::TradingEnv>(spec, role); }

std::vector<TradingCopySnapshot> TradingCopies(const VecEnv& env) {
  const auto* trading = dynamic_cast<const detail::TradingEnv*>(&env);
  if (!trading) throw std::invalid_argument("TradingCopies: not a trading environment");
  return trading->snapshot();
}

}  // namespace dqn
