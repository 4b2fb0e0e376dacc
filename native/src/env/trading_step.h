// The trading environment's step, defined once for the host environment (trading_env.cpp) and for
// device code (kernels/env_trading.cu, issue 24): the position an action decides, the bars the
// step books (decision interval, gap policy, the sale at the end of an evaluation walk), the
// booking on equity (costs on the value traded, financing, ruin: trading_booking.h's rules), the
// reward, the truncation, the observation and the reset. The market features are not computed
// here: the host computes them once (trading_features.h) and both sides read the same table.
//
// Every float64 operation goes through rules/exact_ops.h (AddD, MulD, ...: one IEEE rounding
// each, never fused into an FMA on the device; the host build has -ffp-contract=off), and the
// step has no transcendental function, so a device copy follows its host copy bit for bit:
// rewards, observations, weights and equity alike. native/test/cuda/env_cuda_tool.cpp checks it.
//
// Usage (one copy, host or device):
//   trading::Walk w = ...;  trading::Params p = ...;  trading::CopyState c;  Rng rng = trading::CopyRng(seed, i);
//   trading::Restart(w, p, c, rng);  trading::WriteObs(w, p, c, trading::Bar(w, c), obs);
//   trading::StepCopy(w, p, c, rng, action, next_obs, reward, terminated, truncated, final_obs);
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "cpu/rng.h"
#include "env/make_env.h"
#include "rules/exact_ops.h"

namespace dqn {

/// One step to book (trading_booking.h): bars, weights and rates.
struct StepOrder {
  int t = 0;              ///< the decision bar
  int until = 0;          ///< the last bar of the step (> t)
  double held = 0;        ///< weight held at t (units x close[t] / E_t), a multiple of equity
  double target = 0;      ///< position traded to at t, a multiple of equity
  double cost = 0;        ///< cost per unit of value traded, a fraction (cost_bps * 1e-4)
  double financing = 0;   ///< financing rate, a fraction of the financed value per year
  int close_at = -1;      ///< bar in (t, until] at which the units are sold with their cost, or -1
};

/// What a step booked; every amount is a fraction of E_t unless said otherwise.
struct StepBooking {
  double reward = 0;     ///< e_until - 1, the step's return on E_t; -1 on ruin
  double weight = 0;     ///< weight held after the step (0 when sold or ruined)
  double turnover = 0;   ///< |target - held| plus the weight sold, each in units of the equity at its trade
  double costs = 0;      ///< transaction costs paid
  double financing = 0;  ///< financing paid up to the last bar booked
  bool ruined = false;   ///< equity reached zero at some bar of the step
};

namespace trading {

using rules::AddD;
using rules::DivD;
using rules::MulD;
using rules::SubD;

// Constants shared with trading_features.h (which re-exports them under its own names).
inline constexpr int kFeatures = 7;             ///< market features per bar (kMarketFeatures)
inline constexpr double kClip = 10.0;           ///< observation clip (kFeatureClip)
inline constexpr double kYear = 365.25 * 86400.0;  ///< seconds of a year (kSecondsPerYear)
inline constexpr int kStepActions = 4;          ///< action_space "step": hold, up, down, flat
/// The moves of action_space "step".
enum StepAction { kHold = 0, kUp = 1, kDown = 2, kFlatten = 3 };

/// std::max's rule (a < b ? b : a), the same on both sides.
DQN_HD inline double MaxD(double a, double b) { return a < b ? b : a; }
/// std::clamp's rule.
DQN_HD inline double ClampD(double v, double lo, double hi) { return v < lo ? lo : hi < v ? hi : v; }

/// The bars of a walk's steps (trading_walk.h's WalkPlan, as plain pointers): decision bars
/// d_0 .. d_{size-1}, acting every `interval` of them.
struct Plan {
  const int* bars = nullptr;           ///< [size] decision bars, increasing
  size_t size = 0;                     ///< N >= 1
  size_t interval = 1;                 ///< decision_interval >= 1
  const int* segment_start = nullptr;  ///< [num_bars] first bar of each bar's segment (gap_policy "flat" reads it)
  GapPolicy gap = GapPolicy::kHold;
  bool sell_at_end = false;            ///< sell the units at the walk's last bar (evaluation)
};

/// True when the step from decision index j ends the walk.
DQN_HD inline bool IsLast(const Plan& p, size_t j) { return j + p.interval > p.size - 1; }

/// The step from decision index j holding `held` and trading to `target` (trading_walk.h): it
/// holds until d_{j+interval}, or the bar after d_{N-1} on the walk's last step; with gap policy
/// "flat" the units are sold at the last bar before the first gap inside it, and at its last bar
/// when the walk sells at its end.
DQN_HD inline StepOrder OrderStep(const Plan& p, size_t j, double held, double target, double cost, double financing) {
  StepOrder o;
  o.t = p.bars[j];
  o.until = IsLast(p, j) ? p.bars[p.size - 1] + 1 : p.bars[j + p.interval];
  o.held = held;
  o.target = target;
  o.cost = cost;
  o.financing = financing;
  if (p.gap == GapPolicy::kFlat)
    for (int b = o.t + 1; b < o.until; ++b)
      if (p.segment_start[b + 1] != p.segment_start[b]) {
        o.close_at = b;  // the last bar before the gap
        return o;
      }
  if (p.sell_at_end && IsLast(p, j)) o.close_at = o.until;
  return o;
}

/// A bar-return sink that keeps nothing (the device, and the training env).
struct NoBars {
  DQN_HD void operator()(double) const {}
};

/// Books one step on equity (trading_booking.h's rules and example), calling bar(r) with the
/// return of each bar t+1 .. until (up to ruin, whose bar return is -1).
/// @param timestamps, close [num_bars] Unix seconds and closing prices (> 0).
template <class BarSink>
DQN_HD inline StepBooking BookBars(const double* timestamps, const double* close, const StepOrder& o, BarSink&& bar) {
  StepBooking out;
  const double p = o.target;
  const double traded = std::fabs(SubD(p, o.held));
  const double entry = SubD(1.0, MulD(o.cost, traded));
  const double financed = AddD(MaxD(SubD(p, 1.0), 0.0), MaxD(-p, 0.0));
  const double c0 = close[o.t], ts0 = timestamps[o.t];
  out.turnover = traded;
  out.costs = MulD(o.cost, traded);
  double e_prev = 1.0, e = 1.0;
  bool sold = false;
  for (int b = o.t + 1; b <= o.until; ++b) {
    if (!sold) {
      const double ratio = DivD(close[b], c0);
      out.financing = DivD(MulD(MulD(o.financing, financed), SubD(timestamps[b], ts0)), kYear);
      e = SubD(AddD(entry, MulD(p, SubD(ratio, 1.0))), out.financing);
      if (b == o.close_at) {
        const double value = MulD(std::fabs(p), ratio);  // value sold, in units of E_t
        if (e > 0) out.turnover = AddD(out.turnover, DivD(value, e));
        out.costs = AddD(out.costs, MulD(o.cost, value));
        e = SubD(e, MulD(o.cost, value));
        sold = true;
      }
    }
    if (e <= 0) {
      out.ruined = true;
      bar(-1.0);
      out.reward = -1.0;
      out.weight = 0;
      return out;
    }
    bar(SubD(DivD(e, e_prev), 1.0));
    e_prev = e;
  }
  out.reward = SubD(e, 1.0);
  out.weight = sold ? 0.0 : DivD(MulD(p, DivD(close[o.until], c0)), e);
  return out;
}

/// The fixed numbers of one trading environment: its EnvSpec's fields and the training span's
/// return_std (MakeTradingParams in trading_env.h fills it).
struct Params {
  int n_actions = 45;               ///< grid levels, odd and >= 3; level (n_actions - 1) / 2 is flat
  ActionSpace action_space = ActionSpace::kTarget;
  int lags = 7;                     ///< observation: features of bars t .. t - lags + 1
  int episode_length = 1024;        ///< training: steps before the truncation
  bool eval = false;                ///< an evaluation walk: from the first decision, ends on ruin, no change penalty
  double max_position = 1.0;        ///< largest |position|, a multiple of equity
  double cost = 0;                  ///< cost_bps * 1e-4, a fraction of the value traded
  double financing_rate = 0;        ///< a fraction per year
  double change_penalty_bps = 0;    ///< training reward only
  double reward_scale = 1;
  double return_std = 0;            ///< std of one-bar simple returns on the training span (MarketFeatures)
};

/// Everything a copy's step reads besides its own state (host vectors' data or device arrays).
struct Walk {
  Plan plan;
  const double* timestamps = nullptr;  ///< [num_bars] Unix seconds
  const double* close = nullptr;       ///< [num_bars]
  const float* features = nullptr;     ///< [num_bars x kFeatures] normalized market features (MarketFeatures::normalized)
};

/// One copy's state between steps.
struct CopyState {
  uint64_t index = 0;       ///< the current decision's index in the plan
  int32_t steps = 0;        ///< steps since the copy's reset
  int32_t level = 0;        ///< the decided position's level on the grid
  double weight = 0;        ///< the weight held (units x close / equity), drifted since the last trade
  double last_reward = 0;   ///< the last step's return, unscaled (for the observation)
};

/// What an action decides: the level shown to the agent and the position traded to.
struct Decision {
  int level;
  double target;
};

/// Copy i's reset stream of a run seeded `seed` (the host env's and the device env's).
DQN_HD inline Rng CopyRng(uint64_t seed, uint64_t copy) { return Rng(seed, 1000 + copy); }

/// The flat level, (n_actions - 1) / 2.
DQN_HD inline int Flat(const Params& p) { return (p.n_actions - 1) / 2; }

/// Position of grid level L, max_position (2L - (n - 1)) / (n - 1), a multiple of equity; the
/// middle level is exactly 0 and the last exactly +max_position.
DQN_HD inline double Position(const Params& p, int level) {
  const int half = p.n_actions - 1;
  return DivD(MulD(p.max_position, SubD(MulD(2.0, level), half)), half);
}

/// Actions of the environment: n_actions ("target") or kStepActions ("step").
DQN_HD inline int NumActions(const Params& p) { return p.action_space == ActionSpace::kStep ? kStepActions : p.n_actions; }

/// Observation floats: kFeatures * lags + 2.
DQN_HD inline int ObsDim(const Params& p) { return kFeatures * p.lags + 2; }

/// What `action` (in [0, NumActions(p)), checked by the caller) decides from state c.
DQN_HD inline Decision Decide(const Params& p, const CopyState& c, int action) {
  if (p.action_space == ActionSpace::kTarget) return {action, Position(p, action)};
  const int up = c.level + 1 < p.n_actions - 1 ? c.level + 1 : p.n_actions - 1;
  const int down = c.level - 1 > 0 ? c.level - 1 : 0;
  switch (action) {
    case kHold: return {c.level, c.weight};  // trade nothing: the units are kept and their weight drifts
    case kUp: return {up, Position(p, up)};
    case kDown: return {down, Position(p, down)};
    case kFlatten:
    default: return {Flat(p), 0.0};
  }
}

/// The bar copy c observes: its current decision bar.
DQN_HD inline int Bar(const Walk& w, const CopyState& c) { return w.plan.bars[c.index]; }

/// Starts a new episode: training at a uniformly random decision (rng.below(N)), evaluation at the
/// first; flat, no steps, no last reward.
DQN_HD inline void Restart(const Walk& w, const Params& p, CopyState& c, Rng& rng) {
  c.index = p.eval ? 0 : static_cast<uint64_t>(rng.below(static_cast<int64_t>(w.plan.size)));
  c.steps = 0;
  c.level = Flat(p);
  c.weight = 0;
  c.last_reward = 0;
}

/// The agent's two observation features: the decided position / max_position in [-1, 1], and
/// the last reward / (max_position * return_std) clipped to [-10, 10] (0 when that scale is 0).
DQN_HD inline void AgentFeatures(const Params& p, const CopyState& c, float& position, float& pnl) {
  position = static_cast<float>(DivD(Position(p, c.level), p.max_position));
  const double scale = MulD(p.max_position, p.return_std);
  pnl = static_cast<float>(scale > 0 ? ClampD(DivD(c.last_reward, scale), -kClip, kClip) : 0.0);
}

/// Writes copy c's observation at bar t (ObsDim(p) floats): market features of bars t .. t-lags+1
/// (lag k at [k * kFeatures .. +kFeatures)), then AgentFeatures.
DQN_HD inline void WriteObs(const Walk& w, const Params& p, const CopyState& c, int t, float* out) {
  for (int k = 0; k < p.lags; ++k) {
    const float* row = w.features + static_cast<int64_t>(t - k) * kFeatures;
    for (int f = 0; f < kFeatures; ++f) out[k * kFeatures + f] = row[f];
  }
  AgentFeatures(p, c, out[kFeatures * p.lags], out[kFeatures * p.lags + 1]);
}

/// What one step of a copy decided and booked (for the host's evaluation ledger).
struct StepRecord {
  Decision to;
  StepOrder order;
  StepBooking booking;
};

/// The first half of a step: decides, books the bars (bar(r) per bar return) and moves the copy
/// to its state after the step (level flat once sold, the drifted weight, the step's return, one
/// more step). The decision index moves in FinishStep.
template <class BarSink>
DQN_HD inline StepRecord BookCopy(const Walk& w, const Params& p, CopyState& c, int action, BarSink&& bar) {
  StepRecord r;
  r.to = Decide(p, c, action);
  r.order = OrderStep(w.plan, c.index, c.weight, r.to.target, p.cost, p.financing_rate);
  r.booking = BookBars(w.timestamps, w.close, r.order, bar);
  c.level = r.order.close_at >= 0 ? Flat(p) : r.to.level;
  c.weight = r.booking.weight;
  c.last_reward = r.booking.reward;
  ++c.steps;
  return r;
}

/// The second half of a step: the reward, reward_scale (booked return - change penalty) as f32
/// (no penalty in evaluation); terminated 0 (no state is terminal); truncated when the walk ends,
/// at episode_length steps (training) or on ruin (evaluation); final_obs at the bar after the step
/// (the walk's last bar when it ended there); then either the next decision (next_obs = final_obs)
/// or, when the episode ended, a Restart whose first observation is next_obs.
/// @returns whether the episode ended.
DQN_HD inline bool FinishStep(const Walk& w, const Params& p, CopyState& c, Rng& rng, const StepRecord& r, float* next_obs,
                              float& reward, uint8_t& terminated, uint8_t& truncated, float* final_obs) {
  const StepBooking& b = r.booking;
  const double penalty = p.eval ? 0.0 : MulD(MulD(p.change_penalty_bps, 1e-4), b.turnover);
  reward = static_cast<float>(MulD(SubD(b.reward, penalty), p.reward_scale));
  terminated = 0;
  const bool last = IsLast(w.plan, c.index);
  const int next = last ? r.order.until : w.plan.bars[c.index + w.plan.interval];  // the bar observed after this step
  const bool ended = last || (p.eval ? b.ruined : c.steps >= p.episode_length);
  truncated = ended ? 1 : 0;
  WriteObs(w, p, c, next, final_obs);
  const int d = ObsDim(p);
  if (ended) {
    Restart(w, p, c, rng);
    WriteObs(w, p, c, Bar(w, c), next_obs);
  } else {
    c.index += w.plan.interval;
    for (int k = 0; k < d; ++k) next_obs[k] = final_obs[k];
  }
  return ended;
}

/// One environment step of a copy (the device's; the host env runs BookCopy and FinishStep with
/// its evaluation ledger in between): BookCopy, then FinishStep. action in [0, NumActions(p)),
/// checked by the caller. @returns whether the episode ended.
DQN_HD inline bool StepCopy(const Walk& w, const Params& p, CopyState& c, Rng& rng, int action, float* next_obs, float& reward,
                            uint8_t& terminated, uint8_t& truncated, float* final_obs) {
  const StepRecord r = BookCopy(w, p, c, action, NoBars{});
  return FinishStep(w, p, c, rng, r, next_obs, reward, terminated, truncated, final_obs);
}

}  // namespace trading
}  // namespace dqn
