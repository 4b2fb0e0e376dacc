// Standalone checker and benchmark of the GPU collector (cuda/device_collector.*, issue 24),
// built by `make collect_cuda_tool` (CMake target, not built by default) and run on a GPU machine:
//   collect_cuda_tool check   the collector against the host's collection, vector step by vector
//                             step, on the same seeds: the acting forward's Q-values against the
//                             CPU network's (FP32, within 1e-4 relative), every action against
//                             the epsilon-greedy rule applied to the device's own Q-values (exact),
//                             the next observations against the host env (CartPoleVecEnv, or the
//                             training TradingEnv on the 6E file's bars) stepped with those
//                             actions, the emitted transitions against NStepAccumulator's (count,
//                             order and bits), the episode statistics, and at the end the GPU
//                             replay's slots (after wrapping), cursor, size and leaf priorities
//                             (against a CPU replay fed the host's transitions).
//                             One configuration trains between vector steps, so acting follows
//                             the weights as they change on the device. Copy counts 1 to 1,024
//                             run the single-block vector step (256, 257 and 1,024 at its
//                             edges), 1,025 and 4,096 the device-wide one; all but 1 and 4,096
//                             launch each vector step as a CUDA graph (as training does). Then
//                             trading at 1, 64 (lags 16, step actions, gaps sold, trained between
//                             vector steps), 300 and 1,025 copies (the device-wide path). The
//                             CSV: $DQN_TRADING_CSV or resources/data/6EH4_cme_1m_2024-01.csv.
//                             DQN_COLLECT_CASE=k runs case k alone. Exit status 1 on any difference.
//   collect_cuda_tool bench   env steps per second of the collector (acting forward + step +
//                             n-step + counted replay insert, 100 vector steps per CUDA graph) at
//                             16, 256, 4,096 and 65,536 environments; one vector step as training
//                             launches it (DeviceCollector::launch: one graph a vector step) and
//                             eagerly, with its eager parts timed alone (the acting forward; the
//                             advance: step, row layout and insert); and the host path
//                             (the CPU env, CPU acting forward, n-step, replay insert from host
//                             memory) at the same sizes; CartPole, then trading (51 -> 256 x 256
//                             -> 45, the trading-6e preset's network).
//   collect_cuda_tool epoch   GPU idle fraction inside an epoch of training with the device
//                             collector at 1, 16 and 256 environments (the cartpole preset's shape).
//   collect_cuda_tool check-eval
//                             the GPU evaluation walk (cuda/device_eval_walk.h) against the host's
//                             evaluation env: on the 6E file's bars (validation and test spans,
//                             gaps held and sold, target and step actions, lags 7 and 16,
//                             decision interval 3),
//                             resources/data/spy_1d_1999-2020.csv (when found from the working
//                             directory) and synthetic wild bars at 10x (ruined walks, which end
//                             early), the device's greedy walk from fresh weights; the host env
//                             walking the span with the device's actions gives the same rewards,
//                             return, figures and series bit for bit, and the host's greedy
//                             (GreedyActions on a host copy of the weights) on the same observations
//                             picks the device's action except at near-ties (Q within 1e-4).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <memory>
#include <vector>

#include "cuda/cuda_learner.h"
#include "cuda/cuda_replay.h"
#include "cuda/device_collector.h"
#include "cuda/device_eval_walk.h"
#include "env/cartpole.h"
#include "env/trading_env.h"
#include "model/q_network.h"
#include "replay/replay.h"
#include "native/test/cuda/ohlcv_csv.h"
#include "native/test/cuda/tool.h"
#include "native/test/cuda/tool_learner.h"
#include "native/test/cuda/wild_bars.h"
#include "rules/act_rules.h"
#include "train/n_step.h"
#include "train/scalar_block.h"

namespace {

using dqn::cuda::CudaLearner;
using dqn::cuda::CudaReplay;
using dqn::cuda::DeviceCollector;

template <typename T>
std::vector<T> Download(const T* ptr, int64_t n, cudaStream_t s) {
  std::vector<T> v(static_cast<size_t>(n));
  if (n > 0) CudaOk(cudaMemcpyAsync(v.data(), ptr, static_cast<size_t>(n) * sizeof(T), cudaMemcpyDeviceToHost, s), "download");
  CudaOk(cudaStreamSynchronize(s), "sync");
  return v;
}

template <typename T>
bool SameBits(const T* a, const T* b, int64_t n) {
  return n == 0 || std::memcmp(a, b, static_cast<size_t>(n) * sizeof(T)) == 0;
}

/// MakeConfig with a faster lr (1e-3: the weights move between the check's vector steps) and no
/// Q-stats.
dqn::LearnerConfig LearnerOptions(int64_t batch, dqn::Precision precision) {
  dqn::LearnerConfig c = MakeConfig(batch, precision);
  c.adam.lr = 1e-3;
  c.q_stats_interval = 1000000;
  return c;
}

/// TradingKind::kWide's fields on s: lags 16 (114 floats), step actions, gaps sold, decision
/// interval 3, change penalty, financing, 2x, 1 bp.
void MakeWide(dqn::EnvSpec& s) {
  s.lags = 16;
  s.action_space = dqn::ActionSpace::kStep;
  s.gap_policy = dqn::GapPolicy::kFlat;
  s.decision_interval = 3;
  s.change_penalty_bps = 1;
  s.financing_rate = 0.05;
  s.max_position = 2;
  s.cost_bps = 1;
}

/// The trading cases' environment (the CSV's bars; num_envs, seed and episode_length set per case).
enum class TradingKind {
  kNone,     ///< CartPole
  kDefault,  ///< the default trading config: target actions, gaps held, lags 7 (51 floats, 45 actions)
  kWide,     ///< step actions, gaps sold, decision interval 3, change penalty, financing, lags 16 (114 floats, 4 actions)
};

struct CheckCase {
  int envs, n_step, limit, steps;  ///< limit: CartPole's max_episode_steps, trading's episode_length
  int64_t learning_starts, capacity;
  int train_every;  ///< vector steps per training step (0: no training)
  uint64_t seed;
  bool graph;       ///< vector steps as training launches them (DeviceCollector::launch), else act() then advance()
  TradingKind trading = TradingKind::kNone;
};

/// The trading spec of a case (its num_envs and seed are the collector's).
dqn::EnvSpec TradingSpec(const CheckCase& c) {
  dqn::EnvSpec s;
  s.kind = "trading";
  s.num_envs = c.envs;
  s.seed = c.seed;
  s.market = tool::TradingBars(nullptr);
  s.reward_scale = 1e4;  // the presets' basis points
  s.episode_length = c.limit;
  if (c.trading == TradingKind::kWide) MakeWide(s);
  return s;
}

/// The host's environment of a case: CartPoleVecEnv, or the training TradingEnv of the same spec.
std::unique_ptr<dqn::VecEnv> HostEnv(const CheckCase& c) {
  if (c.trading == TradingKind::kNone) return std::make_unique<dqn::CartPoleVecEnv>(c.envs, c.seed, c.limit);
  return dqn::MakeTradingEnv(TradingSpec(c), dqn::EnvRole::kTrain);
}

/// The collector and the host side by side over c.steps vector steps; returns the failures counted.
int CompareCollector(const CheckCase& c) {
  const int before = g_failures;
  const char* env_name = c.trading == TradingKind::kNone ? "cartpole" : c.trading == TradingKind::kDefault ? "trading" : "trading-wide";
  std::printf("collector %s envs=%d n=%d limit=%d: %d vector steps, training every %d, %s\n", env_name, c.envs, c.n_step, c.limit,
              c.steps, c.train_every, c.graph ? "one graph a vector step" : "eager");
  const std::unique_ptr<dqn::VecEnv> host = HostEnv(c);
  const int d = host->obs_dim(), a = host->num_actions();
  const dqn::NetConfig net{d, a, {64, 64}, true, {}};
  dqn::ReplayConfig rc;
  rc.capacity = c.capacity;
  rc.state_dim = d;
  rc.seed = c.seed;
  CudaReplay replay(rc, dqn::cuda::CudaReplayOptions{});  // before the learner: a learner that trained on it syncs its stream when destroyed
  CudaLearner learner(net, LearnerOptions(32, dqn::Precision::kFP32), c.seed, {});
  const std::unique_ptr<dqn::Replay> cpu_replay = dqn::MakeCpuReplay(rc);  // the reference of the leaf priorities
  dqn::cuda::DeviceCollectorConfig dc;
  dc.num_envs = c.envs;
  dc.seed = c.seed;
  dc.max_episode_steps = c.limit;
  dc.n_step = c.n_step;
  dc.gamma = 0.99;
  dc.eps_start = 1.0;
  dc.eps_end = 0.05;
  dc.eps_decay_steps = std::max<int64_t>(1, static_cast<int64_t>(c.envs) * c.steps / 2);
  dc.learning_starts = c.learning_starts;
  if (c.trading != TradingKind::kNone) dc.trading = TradingSpec(c);
  DeviceCollector col(dc, net);
  const cudaStream_t s = replay.stream();
  const dqn::cuda::detail::CollectView& v = col.view();

  const int e = c.envs;
  const size_t ed = static_cast<size_t>(d) * static_cast<size_t>(e), ud = static_cast<size_t>(d);
  dqn::NStepAccumulator acc(e, d, c.n_step, 0.99);
  dqn::TransitionStaging staging(d), all(d);
  std::vector<float> obs(ed), next_obs(ed), final_obs(ed), rewards(static_cast<size_t>(e));
  std::vector<uint8_t> term(static_cast<size_t>(e)), trunc(static_cast<size_t>(e));
  std::vector<int64_t> episodes(static_cast<size_t>(e), 0);
  std::vector<double> ep_return(static_cast<size_t>(e), 0), return_sum(static_cast<size_t>(e), 0);
  host->reset(obs.data());
  EXPECT(SameBits(obs.data(), Download(v.obs, static_cast<int64_t>(ed), s).data(), static_cast<int64_t>(ed)),
         "envs=%d: first observations differ", e);
  dqn::Workspace ws(learner.layout(), e);
  dqn::ScalarBlock scalars;
  double q_worst = 0;
  int64_t env_steps = 0, greedy = 0, trained = 0;
  for (int t = 0; t < c.steps && g_failures == before; ++t) {
    // The acting forward against the CPU network with the same weights (V and A stay in their
    // buffers until the next vector step).
    if (c.graph)
      col.launch(learner, replay);
    else
      col.act(learner, replay);
    const std::vector<float> dv = Download(v.v, e, s), da = Download(v.a, static_cast<int64_t>(a) * e, s);
    dqn::LearnerTensors tensors;
    learner.save_params(tensors);
    dqn::Forward(learner.layout(), dqn::ParamView(learner.layout(), tensors.online.data()), obs.data(), e, ws);
    for (int i = 0; i < e; ++i) {
      const float* ai = &da[static_cast<size_t>(a) * static_cast<size_t>(i)];
      const float mean = dqn::rules::AdvantageMean(ai, a);
      for (int k = 0; k < a; ++k) {
        const double q = dqn::rules::DuelingQ(dv[static_cast<size_t>(i)], ai[k], mean), ref = ws.q()[a * i + k];
        q_worst = std::max(q_worst, std::fabs(q - ref) / (1.0 + std::fabs(ref)));
      }
    }
    // The step: actions by the rule on the device's Q-values, then the host's env and n-step.
    if (!c.graph) col.advance(replay);
    const std::vector<int32_t> actions = Download(v.actions, e, s);
    const double eps = dqn::rules::EpsilonAt(dc.eps_start, dc.eps_end, dc.eps_decay_steps, dc.learning_starts, env_steps);
    for (int i = 0; i < e && g_failures == before; ++i) {
      const dqn::rules::ExploreDraw draw = dqn::rules::DrawExploration(c.seed, t, i, a);
      const bool explore = draw.u < eps;
      greedy += explore ? 0 : 1;
      const int32_t want =
          explore ? draw.random_action
                  : dqn::rules::GreedyAction(&da[static_cast<size_t>(a) * static_cast<size_t>(i)], &dv[static_cast<size_t>(i)], a);
      EXPECT(actions[static_cast<size_t>(i)] == want, "envs=%d: copy %d at vector step %d took action %d, the rule says %d (%s)", e, i, t,
             actions[static_cast<size_t>(i)], want, explore ? "explore" : "greedy");
    }
    host->step(actions.data(), next_obs.data(), rewards.data(), term.data(), trunc.data(), final_obs.data());
    staging.clear();
    for (int i = 0; i < e; ++i) {
      const size_t u = static_cast<size_t>(i);
      acc.push(i, &obs[ud * u], actions[u], rewards[u], &final_obs[ud * u], term[u] != 0, trunc[u] != 0, staging);
      ep_return[u] += rewards[u];
      if (term[u] || trunc[u]) ++episodes[u], return_sum[u] += ep_return[u], ep_return[u] = 0;
    }
    EXPECT(SameBits(next_obs.data(), Download(v.obs, static_cast<int64_t>(ed), s).data(), static_cast<int64_t>(ed)),
           "envs=%d: next observations differ at vector step %d", e, t);
    const int64_t rows = Download(v.row_count, 1, s)[0], want_rows = staging.count();
    EXPECT(rows == want_rows, "envs=%d: %lld transitions emitted at vector step %d, the host's n-step rule emits %lld", e,
           static_cast<long long>(rows), t, static_cast<long long>(want_rows));
    if (rows == want_rows) {
      const bool same = SameBits(staging.states().data(), Download(v.rows.states, d * rows, s).data(), d * rows) &&
                        SameBits(staging.next_states().data(), Download(v.rows.next_states, d * rows, s).data(), d * rows) &&
                        SameBits(staging.actions().data(), Download(v.rows.actions, rows, s).data(), rows) &&
                        SameBits(staging.rewards().data(), Download(v.rows.rewards, rows, s).data(), rows) &&
                        SameBits(staging.dones().data(), Download(v.rows.dones, rows, s).data(), rows) &&
                        SameBits(staging.discounts().data(), Download(v.rows.discounts, rows, s).data(), rows);
      EXPECT(same, "envs=%d: the transitions of vector step %d differ from the host's", e, t);
    }
    if (staging.count() > 0) cpu_replay->insert(staging.batch());
    for (int64_t r = 0; r < staging.count(); ++r) {
      const size_t u = static_cast<size_t>(r);
      all.append(&staging.states()[ud * u], staging.actions()[u], staging.rewards()[u], &staging.next_states()[ud * u],
                 staging.dones()[u] != 0, staging.discounts()[u]);
    }
    obs.swap(next_obs);
    env_steps += e;
    if (c.train_every > 0 && (t + 1) % c.train_every == 0 && all.count() >= 64) {
      replay.sync_size();
      EXPECT(learner.train(replay, scalars) == 0, "envs=%d: the training step after vector step %d raised a NaN flag", e, t);
      ++trained;
    }
  }
  EXPECT(q_worst <= 1e-4, "envs=%d: the acting forward's Q-values are %.3g (relative) from the CPU network's", e, q_worst);
  // The episode statistics, and the replay's contents after the last vector step.
  const DeviceCollector::Statistics st = col.statistics(replay);
  EXPECT(st.vector_steps == c.steps && st.env_steps == env_steps, "envs=%d: counters %lld / %lld, want %d / %lld", e,
         static_cast<long long>(st.vector_steps), static_cast<long long>(st.env_steps), c.steps, static_cast<long long>(env_steps));
  EXPECT(st.episodes_per_copy == episodes, "envs=%d: episode counts differ from the host's", e);
  EXPECT(SameBits(st.return_sum_per_copy.data(), return_sum.data(), e), "envs=%d: episode return sums differ from the host's", e);
  // The episode log: every ended episode once, by env step, each copy's in its own order (its
  // counts and return sums rebuilt from the log equal the host's bit for bit).
  int64_t dropped = -1;
  const std::vector<dqn::cuda::detail::EpisodeLogEntry> log = col.drain_log(replay.stream(), &dropped);
  std::vector<int64_t> log_episodes(static_cast<size_t>(e), 0);
  std::vector<double> log_returns(static_cast<size_t>(e), 0.0);
  bool ordered = true;
  for (size_t k = 0; k < log.size(); ++k) {
    const auto& x = log[k];
    ordered = ordered && (k == 0 || x.env_step > log[k - 1].env_step) && x.env_step % e == (x.copy + 1) % e;
    ++log_episodes[static_cast<size_t>(x.copy)];
    log_returns[static_cast<size_t>(x.copy)] += x.ret;
  }
  EXPECT(dropped == 0 && ordered, "envs=%d: the episode log dropped %lld episodes or is out of env-step order", e, static_cast<long long>(dropped));
  EXPECT(log_episodes == episodes && SameBits(log_returns.data(), return_sum.data(), e),
         "envs=%d: the episode log's counts or returns differ from the host's", e);
  learner.finish(scalars);
  replay.sync_size();
  CudaReplay::Contents got;
  replay.download(got);
  const int64_t total = all.count(), cap = c.capacity, size = std::min(total, cap);
  EXPECT(got.size == size && got.cursor == total % cap, "envs=%d: replay size %lld cursor %lld, want %lld and %lld", e,
         static_cast<long long>(got.size), static_cast<long long>(got.cursor), static_cast<long long>(size),
         static_cast<long long>(total % cap));
  long slot_diffs = 0;
  for (int64_t j = 0; j < size && got.size == size; ++j) {
    const int64_t r = total - 1 - ((total - 1 - j) % cap + cap) % cap;  // the last row written to slot j
    const size_t u = static_cast<size_t>(r), w = static_cast<size_t>(j);
    const bool same = SameBits(&all.states()[ud * u], &got.states[ud * w], d) && SameBits(&all.next_states()[ud * u], &got.next_states[ud * w], d) &&
                      all.actions()[u] == got.actions[w] && SameBits(&all.rewards()[u], &got.rewards[w], 1) &&
                      all.dones()[u] == got.dones[w] && SameBits(&all.discounts()[u], &got.discounts[w], 1);
    slot_diffs += same ? 0 : 1;
  }
  EXPECT(slot_diffs == 0, "envs=%d: %ld replay slots differ from the host's transitions", e, slot_diffs);
  if (c.train_every == 0 && got.size == size) {
    // No priority update ran: every leaf is the max priority's, as the CPU replay gives it.
    std::vector<double> want(static_cast<size_t>(size));
    cpu_replay->leaf_priorities(want.data());
    EXPECT(SameBits(want.data(), got.leaves.data(), size), "envs=%d: the new transitions' leaf priorities differ from the CPU replay's", e);
  }
  std::printf("collector %s envs=%-5d n=%d limit=%-3d %d vector steps, %lld greedy actions, %lld episodes, %lld transitions (replay %lld, "
              "wrapped %s), %lld training steps, Q within %.2g: %s\n",
              env_name, e, c.n_step, c.limit, c.steps, static_cast<long long>(greedy), static_cast<long long>(st.episodes),
              static_cast<long long>(total), static_cast<long long>(cap), total > cap ? "yes" : "no", static_cast<long long>(trained),
              q_worst, g_failures == before ? "bit for bit" : "DIFFERENT");
  return g_failures - before;
}

int Check() {
  const CheckCase cases[] = {
      {1, 1, 500, 3000, 200, 100000, 0, 3, false},    {7, 3, 9, 1000, 0, 2000, 0, 11, true},
      {300, 3, 500, 600, 30000, 50000, 0, 17, true},  {4096, 5, 40, 200, 409600, 100000, 0, 23, false},
      {64, 3, 500, 1500, 2000, 20000, 4, 29, true},
      // The single-block kernel's edges: 256 and 257 copies (its two block sizes), 1,024 (its
      // largest) and 1,025 (the device-wide path).
      {256, 2, 30, 300, 0, 20000, 0, 31, true},       {257, 2, 30, 300, 0, 20000, 0, 37, true},
      {1024, 3, 60, 200, 0, 100000, 0, 41, true},     {1025, 3, 60, 200, 0, 100000, 0, 43, true},
      // Trading on the 6E file's bars: one copy eagerly, 64 wide copies (lags 16, step actions,
      // gaps sold) trained between vector steps with the replay wrapping, 300 copies (the
      // 1,024-thread single-block kernel) and 1,025 wide ones (the device-wide path).
      {1, 3, 50, 600, 100, 100000, 0, 47, false, TradingKind::kDefault},
      {64, 3, 40, 400, 2000, 20000, 4, 53, true, TradingKind::kWide},
      {300, 2, 30, 200, 0, 100000, 0, 59, true, TradingKind::kDefault},
      {1025, 3, 30, 120, 0, 100000, 0, 61, true, TradingKind::kWide},
  };
  // DQN_COLLECT_CASE=k runs case k alone (one process a case: a crash names its case).
  const char* only = std::getenv("DQN_COLLECT_CASE");
  for (size_t k = 0; k < std::size(cases); ++k)
    if (!only || std::atoi(only) == static_cast<int>(k)) CompareCollector(cases[k]);
  std::printf("%s\n", g_failures == 0 ? "CHECK PASSED" : "CHECK FAILED");
  return g_failures == 0 ? 0 : 1;
}

// ---- check-eval: the GPU evaluation walk (cuda/device_eval_walk.h) ----

/// One evaluation walk case: a trading spec (seed and market set here), its span, its bars.
struct EvalCase {
  const char* name;
  dqn::EnvSpec spec;
  dqn::EnvRole role;
  std::shared_ptr<const dqn::MarketData> bars;
};

/// Bit-for-bit equality of two doubles (NaN payloads included).
bool SameDouble(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// The device walk against the host's: (1) the host's evaluation TradingEnv walking the span with
/// the device's actions gives the same rewards, step count, figures and series bit for bit; (2)
/// on each observation of that walk the host's greedy (GreedyActions from the same weights on
/// the host) picks the device's action except at near-ties (the Q values of device and host
/// differ by ~1e-6), counted and bounded. Returns whether the walk was ruined.
bool CompareEvalWalk(const EvalCase& k, uint64_t seed) {
  const int before = g_failures;
  dqn::EnvSpec spec = k.spec;
  spec.num_envs = 1;
  spec.seed = seed;
  spec.market = k.bars;
  const std::unique_ptr<dqn::VecEnv> host = dqn::MakeTradingEnv(spec, k.role);
  const int d = host->obs_dim(), a = host->num_actions();
  const dqn::NetConfig net{d, a, {64, 64}, true, {}};
  dqn::ReplayConfig rc;
  rc.capacity = 1024;
  rc.state_dim = d;
  rc.seed = seed;
  CudaReplay replay(rc, dqn::cuda::CudaReplayOptions{});
  CudaLearner learner(net, LearnerOptions(32, dqn::Precision::kTF32), seed, {});
  dqn::cuda::DeviceEvalWalk walk(spec, k.role, net);
  const dqn::cuda::DeviceEvalWalk::Result r = walk.run(learner, replay.stream());
  // (1) The host env fed the device's actions.
  std::vector<float> obs(static_cast<size_t>(d)), next(obs.size()), final_obs(obs.size());
  float reward = 0;
  uint8_t term = 0, trunc = 0;
  host->reset(obs.data());
  dqn::LearnerTensors tensors;
  learner.save_params(tensors);
  const dqn::ParamView weights(learner.layout(), tensors.online.data());
  dqn::Workspace ws(learner.layout(), 1);
  int64_t steps = 0, disagreements = 0;
  double widest = 0;  // the largest |Q(host's pick) - Q(device's pick)| / (1 + |Q|) where they differ
  double ret = 0;
  for (size_t j = 0; j < r.actions.size() && g_failures == before; ++j) {
    int32_t mine = 0;
    dqn::GreedyActions(learner.layout(), weights, obs.data(), 1, ws, &mine);
    if (mine != r.actions[j]) {
      ++disagreements;
      const float qa = ws.q()[mine], qb = ws.q()[r.actions[j]];
      widest = std::max(widest, std::fabs(static_cast<double>(qa) - qb) / (1.0 + std::fabs(qa)));
    }
    host->step(&r.actions[j], next.data(), &reward, &term, &trunc, final_obs.data());
    ++steps;
    ret += reward;
    EXPECT(std::memcmp(&reward, &r.rewards[j], sizeof reward) == 0, "%s: step %zu's reward: host %.9g, device %.9g", k.name, j,
           static_cast<double>(reward), static_cast<double>(r.rewards[j]));
    EXPECT((trunc != 0) == (j + 1 == r.actions.size()), "%s: the host's walk %s at step %zu of the device's %zu", k.name,
           trunc ? "ended" : "goes on", j, r.actions.size());
    obs.swap(next);
  }
  EXPECT(SameDouble(ret, r.ret), "%s: return %.17g on the host, %.17g on the device", k.name, ret, r.ret);
  const std::map<std::string, double> figures = host->episode_metrics();
  EXPECT(figures.size() == r.report.metrics.size(), "%s: %zu figures on the host, %zu on the device", k.name, figures.size(),
         r.report.metrics.size());
  for (const auto& [name, value] : figures) {
    const auto it = r.report.metrics.find(name);
    EXPECT(it != r.report.metrics.end() && SameDouble(it->second, value), "%s: figure %s: host %.17g, device %.17g", k.name,
           name.c_str(), value, it == r.report.metrics.end() ? NAN : it->second);
  }
  const std::map<std::string, std::vector<double>> series = host->episode_series();
  for (const auto& [name, values] : series) {
    const auto it = r.report.series.find(name);
    EXPECT(it != r.report.series.end() && it->second.size() == values.size() &&
               SameBits(values.data(), it->second.data(), static_cast<int64_t>(values.size())),
           "%s: series %s differs (%zu values on the host)", k.name, name.c_str(), values.size());
  }
  // (2) Near-ties only: a disagreement's Q values within TF32-level rounding of each other.
  EXPECT(widest <= 1e-4, "%s: the host's greedy differs from the device's by %.3g in Q (not a near-tie)", k.name, widest);
  const bool ruined = r.ledger.ruined;
  std::printf("eval walk %-48s seed=%llu: %lld of %d steps%s, %zu bars, return %.6g, turnover %.4g; host greedy differs at %lld "
              "(widest Q gap %.2g): %s\n",
              k.name, static_cast<unsigned long long>(seed), static_cast<long long>(steps), walk.max_steps(),
              ruined ? " (ruined)" : "", r.ledger.bar_returns.size(), r.report.metrics.count("return") ? r.report.metrics.at("return") : NAN,
              r.ledger.turnover, static_cast<long long>(disagreements), widest, g_failures == before ? "figures bit for bit" : "DIFFERENT");
  return ruined;
}

int CheckEval() {
  using dqn::EnvRole;
  dqn::EnvSpec s;
  s.kind = "trading";
  s.reward_scale = 1e4;
  s.test_fraction = 0.15;
  dqn::EnvSpec g = s;  // the wide collector cases' env: gaps sold, step actions, decision interval 3, costs and financing
  MakeWide(g);
  dqn::EnvSpec w = s;  // 10x on wild bars: ruin
  w.max_position = 10;
  w.n_actions = 5;
  w.financing_rate = 0.1;
  const auto csv = tool::TradingBars(nullptr);
  std::shared_ptr<const dqn::MarketData> spy;
  try {
    spy = tool::LoadOhlcv("resources/data/spy_1d_1999-2020.csv");
  } catch (const std::exception& e) {
    std::printf("spy cases skipped: %s\n", e.what());
  }
  std::vector<EvalCase> cases = {
      {"6E validation, defaults (gaps held)", s, EnvRole::kValidation, csv},
      {"6E test, defaults (gaps held)", s, EnvRole::kTest, csv},
      {"6E validation, wide (lags 16, gaps sold, step actions, interval 3)", g, EnvRole::kValidation, csv},
      {"6E test, wide (lags 16, gaps sold, step actions, interval 3)", g, EnvRole::kTest, csv},
  };
  if (spy) {
    cases.push_back({"spy validation, defaults", s, EnvRole::kValidation, spy});
    cases.push_back({"spy test, wide (lags 16, gaps sold, step actions, interval 3)", g, EnvRole::kTest, spy});
  }
  for (const EvalCase& k : cases)
    for (const uint64_t seed : {3, 4}) CompareEvalWalk(k, seed);
  // Wild bars at 10x: some seed's greedy policy holds a position and is ruined within a few steps.
  int ruined = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) ruined += CompareEvalWalk({"wild bars validation, 10x, 5 actions", w, EnvRole::kValidation, tool::WildBars()}, seed) ? 1 : 0;
  EXPECT(ruined > 0, "no wild-bar walk was ruined in 8 seeds: the early end of a ruined walk went unchecked");
  std::printf("%s\n", g_failures == 0 ? "CHECK PASSED" : "CHECK FAILED");
  return g_failures == 0 ? 0 : 1;
}

/// Microseconds per call of queue() over `reps` calls on s (CUDA events).
template <typename F>
double TimeUs(cudaStream_t s, int reps, F queue) {
  cudaEvent_t t0, t1;
  CudaOk(cudaEventCreate(&t0), "event");
  CudaOk(cudaEventCreate(&t1), "event");
  CudaOk(cudaEventRecord(t0, s), "record");
  for (int r = 0; r < reps; ++r) queue();
  CudaOk(cudaEventRecord(t1, s), "record");
  CudaOk(cudaEventSynchronize(t1), "sync");
  float ms = 0;
  CudaOk(cudaEventElapsedTime(&ms, t0, t1), "elapsed");
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  return 1e3 * ms / reps;
}

/// The timed collectors' config: `envs` copies, n = 3, a fixed epsilon of 0.05.
dqn::cuda::DeviceCollectorConfig TimedCollector(int envs) {
  dqn::cuda::DeviceCollectorConfig dc;
  dc.num_envs = envs;
  dc.n_step = 3;
  dc.eps_start = 0.05, dc.eps_end = 0.05, dc.eps_decay_steps = 1;
  return dc;
}

/// Bench's rows: CartPole (4 -> 128 x 128 -> 2, the cartpole preset's network), then trading on
/// the 6E file (the default trading config at the trading-6e preset's episode length, 51 -> 256 x
/// 256 -> 45, its network), each at 16 to 65,536 copies, device and host.
int Bench() {
  std::printf("%-8s %-6s %-8s %12s %12s %12s %12s %12s %14s\n", "env", "envs", "path", "us/vstep", "launch()", "eager", "forward",
              "advance", "env steps/s");
  for (const TradingKind kind : {TradingKind::kNone, TradingKind::kDefault})
  for (const int e : {16, 256, 4096, 65536}) {
    const char* env_name = kind == TradingKind::kNone ? "cartpole" : "trading";
    const CheckCase shape{e, 3, kind == TradingKind::kNone ? 500 : 480, 0, 0, 0, 0, 1, true, kind};
    const std::unique_ptr<dqn::VecEnv> host = HostEnv(shape);
    const int d = host->obs_dim(), width = kind == TradingKind::kNone ? 128 : 256;
    const dqn::NetConfig net{d, host->num_actions(), {width, width}, true, {}};
    dqn::cuda::DeviceCollectorConfig dc = TimedCollector(e);
    if (kind != TradingKind::kNone) dc.trading = TradingSpec(shape);
    CudaLearner learner(net, LearnerOptions(256, dqn::Precision::kTF32), 1, {});
    dqn::ReplayConfig rc;
    rc.capacity = 1000000;
    rc.state_dim = d;
    CudaReplay replay(rc, dqn::cuda::CudaReplayOptions{});
    DeviceCollector col(dc, net);
    const cudaStream_t s = replay.stream();
    for (int w = 0; w < 20; ++w) col.launch(learner, replay);
    const int reps = 200;
    const double forward = TimeUs(s, reps, [&] { col.act(learner, replay); });
    const double advance = TimeUs(s, reps, [&] { col.advance(replay); });
    const double whole_eager = TimeUs(s, reps, [&] { col.step(learner, replay); });
    const double one_graph = TimeUs(s, reps, [&] { col.launch(learner, replay); });  // what training launches
    // 100 vector steps in one graph, replayed.
    const int per_graph = 100;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CudaOk(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
    for (int k = 0; k < per_graph; ++k) col.step(learner, replay);
    CudaOk(cudaStreamEndCapture(s, &graph), "end capture");
    CudaOk(cudaGraphInstantiate(&exec, graph, 0), "instantiate");
    CudaOk(cudaGraphLaunch(exec, s), "warm-up launch");
    const double graph_us = TimeUs(s, 5, [&] { CudaOk(cudaGraphLaunch(exec, s), "launch"); }) / per_graph;
    std::printf("%-8s %-6d %-8s %12.2f %12.2f %12.2f %12.2f %12.2f %14.4g\n", env_name, e, "device", graph_us, one_graph, whole_eager,
                forward, advance, 1e6 * e / graph_us);
    std::printf("JSON {\"bench\":\"collect\",\"env\":\"%s\",\"path\":\"device\",\"envs\":%d,\"us_per_vector_step\":%.3f,\"launch_us\":%.3f,"
                "\"eager_us\":%.3f,\"forward_us\":%.3f,\"advance_us\":%.3f,\"env_steps_per_s\":%.6g}\n",
                env_name, e, graph_us, one_graph, whole_eager, forward, advance, 1e6 * e / graph_us);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);

    // The host path: CPU environments, the CPU acting forward on a host copy of the weights,
    // the n-step rule, and the replay's insert from host memory.
    dqn::NStepAccumulator acc(e, d, 3, 0.99);
    dqn::TransitionStaging staging(d);
    dqn::LearnerTensors tensors;
    learner.save_params(tensors);
    const dqn::ParamView view(learner.layout(), tensors.online.data());
    dqn::Workspace ws(learner.layout(), std::min(e, 4096));
    const size_t ed = static_cast<size_t>(d) * static_cast<size_t>(e), ud = static_cast<size_t>(d);
    std::vector<float> obs(ed), next_obs(ed), final_obs(ed), rewards(static_cast<size_t>(e));
    std::vector<uint8_t> term(static_cast<size_t>(e)), trunc(static_cast<size_t>(e));
    std::vector<int32_t> actions(static_cast<size_t>(e));
    host->reset(obs.data());
    const int host_steps = e >= 65536 ? 5 : e >= 4096 ? 20 : 200;
    double forward_s = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < host_steps; ++t) {
      const auto f0 = std::chrono::steady_clock::now();
      dqn::GreedyActions(learner.layout(), view, obs.data(), e, ws, actions.data());
      forward_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - f0).count();
      host->step(actions.data(), next_obs.data(), rewards.data(), term.data(), trunc.data(), final_obs.data());
      staging.clear();
      for (int i = 0; i < e; ++i) {
        const size_t u = static_cast<size_t>(i);
        acc.push(i, &obs[ud * u], actions[u], rewards[u], &final_obs[ud * u], term[u] != 0, trunc[u] != 0, staging);
      }
      replay.insert(staging.batch());
      obs.swap(next_obs);
    }
    replay.synchronize();
    const double host_us = 1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / host_steps;
    std::printf("%-8s %-6d %-8s %12.2f %12s %12s %12.2f %12s %14.4g\n", env_name, e, "host", host_us, "", "", 1e6 * forward_s / host_steps,
                "", 1e6 * e / host_us);
    std::printf("JSON {\"bench\":\"collect\",\"env\":\"%s\",\"path\":\"host\",\"envs\":%d,\"us_per_vector_step\":%.3f,\"forward_us\":%.3f,"
                "\"env_steps_per_s\":%.6g}\n",
                env_name, e, host_us, 1e6 * forward_s / host_steps, 1e6 * e / host_us);
  }
  return 0;
}

/// GPU idle time inside an epoch of training with the device collector (issue 24 item 7), the
/// cartpole preset's shape (4 -> 128 x 128 -> 2 dueling, B = 128, TF32, n = 3, train_every 4):
/// before each training step the vector steps that are due (as Trainer::queue_until_due), each
/// one graph launch (DeviceCollector::launch), then train() (one graph). The host waits for
/// nothing. CUDA events on the stream bracket every launch; the idle fraction is 1 - (bracketed
/// GPU time) / (first bracket's start to the last one's end): the gaps between launches.
int Epoch() {
  const dqn::NetConfig net{4, 2, {128, 128}, true, {}};
  const int train_every = 4, steps = 2000, warm = 200;
  for (const int envs : {1, 16, 256}) {
    dqn::ReplayConfig rc;
    rc.capacity = 100000;
    rc.state_dim = 4;
    CudaReplay replay(rc, dqn::cuda::CudaReplayOptions{});
    CudaLearner learner(net, LearnerOptions(128, dqn::Precision::kTF32), 1, {});
    DeviceCollector col(TimedCollector(envs), net);
    const cudaStream_t s = replay.stream();
    int64_t env_steps = 0;
    while (env_steps < 1000) col.launch(learner, replay), env_steps += envs;  // learning_starts
    replay.sync_size();
    std::vector<std::pair<cudaEvent_t, cudaEvent_t>> brackets;
    const auto bracket = [&](bool timed, const auto& queue) {
      if (!timed) return queue();
      cudaEvent_t a, b;
      CudaOk(cudaEventCreate(&a), "event");
      CudaOk(cudaEventCreate(&b), "event");
      CudaOk(cudaEventRecord(a, s), "record");
      queue();
      CudaOk(cudaEventRecord(b, s), "record");
      brackets.emplace_back(a, b);
    };
    dqn::ScalarBlock out;
    int64_t vector_steps = 0;
    double wall = 0;
    for (int i = 0; i < warm + steps; ++i) {
      const bool timed = i >= warm;
      if (i == warm) learner.finish(out), vector_steps = 0;
      const auto t0 = std::chrono::steady_clock::now();
      const int64_t needed = 1000 + static_cast<int64_t>(i + 1) * train_every;
      while (env_steps < needed) bracket(timed, [&] { col.launch(learner, replay); }), env_steps += envs, ++vector_steps;
      bracket(timed, [&] { learner.train(replay, out); });
      if (timed) wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    const auto f0 = std::chrono::steady_clock::now();
    learner.finish(out);
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - f0).count();
    double busy_ms = 0;
    float ms = 0;
    for (const auto& [a, b] : brackets) CudaOk(cudaEventElapsedTime(&ms, a, b), "elapsed"), busy_ms += ms;
    CudaOk(cudaEventElapsedTime(&ms, brackets.front().first, brackets.back().second), "elapsed");
    const double span_ms = ms;
    for (const auto& [a, b] : brackets) cudaEventDestroy(a), cudaEventDestroy(b);
    std::printf("epoch loop, device collector, %d env(s), %d env steps per train step: %.0f train steps/s, %lld vector steps, "
                "GPU idle %.2f %% (busy %.1f of %.1f ms)\n",
                envs, train_every, steps / wall, static_cast<long long>(vector_steps), 100.0 * (1.0 - busy_ms / span_ms), busy_ms, span_ms);
    std::printf("JSON {\"bench\":\"collect_epoch\",\"envs\":%d,\"steps_per_s\":%.1f,\"gpu_idle\":%.5f,\"vector_steps\":%lld}\n", envs,
                steps / wall, 1.0 - busy_ms / span_ms, static_cast<long long>(vector_steps));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return ToolMain(argc, argv, {{"check", Check}, {"check-eval", CheckEval}, {"bench", Bench}, {"epoch", Epoch}});
}
