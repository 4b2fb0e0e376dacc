// Standalone checker and benchmark of the device environments (kernels/env_*.cu, the GPU
// collector of issue 24), built by `make env_cuda_tool` (CMake target, not built by default) and
// run on a GPU machine:
//   env_cuda_tool check [CSV]
//                         CartPole copies on the device against the host's CartPoleVecEnv, step
//                         by step on the same seeds and the same random actions: first
//                         observations, next and final observations, rewards, terminals,
//                         truncations and the f64 states, all bit for bit, for 1, 7, 300 and
//                         4,096 copies, episode limits 500 and 9 (truncations), 2,000 steps.
//                         Then trading copies (cuda/device_trading_env.h) against the host's
//                         trading env (MakeTradingEnv) the same way, on the bars of CSV
//                         (default: $DQN_TRADING_CSV, else resources/data/6EH4_cme_1m_2024-01.csv
//                         from the working directory or the repository the tool was built in)
//                         and on synthetic bars wild enough to ruin an evaluation walk: five
//                         configurations (target and step actions, gaps held and sold, decision
//                         intervals, change penalty, financing, walk-forward folds, the rows'
//                         three write paths, validation walks that sell at the end or are
//                         ruined) at 1, 7, 64 and 1,000
//                         copies over whole episodes across the data's gaps; first, next and
//                         final observations, rewards, terminals and truncations bit for bit, and
//                         each copy's state (decision index, steps, level, f64 weight and last
//                         return, reset stream) after every step, the f64 values bit for bit or,
//                         failing that, reported with their largest relative difference (within
//                         1e-12 passes, and the line says so).
//                         Exit status 1 on any difference beyond that.
//   env_cuda_tool check-trading [CSV]   the trading half of check alone.
//   env_cuda_tool bench [CSV]
//                         device CartPole env steps per second (the step kernel alone, CUDA
//                         events over 1,000 steps) at 16, 256, 4,096 and 65,536 copies; the same
//                         for the trading step (the default trading config on the CSV's bars,
//                         random actions), beside the host trading env's rate on one core, and
//                         at 65,536 copies with lags 13, 16 and 28 (the rows' three write paths).
//   env_cuda_tool bench-trading [CSV]   the trading half of bench alone.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/rng.h"
#include "cuda/device_trading_env.h"
#include "env/cartpole.h"
#include "env/trading_env.h"
#include "kernels/env_launch.cuh"
#include "native/test/cuda/ohlcv_csv.h"
#include "native/test/cuda/tool.h"
#include "native/test/cuda/wild_bars.h"

namespace {

using dqn::cuda::detail::CartPoleDevice;
using dqn::cuda::detail::EnvStepOut;

/// A device allocation of n elements of T, freed with the object.
template <typename T>
struct DeviceArray {
  explicit DeviceArray(size_t n) : n(n) { CudaOk(cudaMalloc(&ptr, n * sizeof(T)), "cudaMalloc"); }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void upload(const std::vector<T>& v) { CudaOk(cudaMemcpy(ptr, v.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload"); }
  std::vector<T> download() const {
    std::vector<T> v(n);
    CudaOk(cudaMemcpy(v.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return v;
  }
  T* ptr = nullptr;
  size_t n;
};

/// n device CartPole copies whose streams start as the host's CartPoleVecEnv(n, seed, ...).
struct DeviceCartPole {
  DeviceCartPole(int n, uint64_t seed, int max_episode_steps) : state(4 * n), elapsed(n), rng(4 * n), obs(4 * n), next_obs(4 * n),
      final_obs(4 * n), rewards(n), terminated(n), truncated(n), actions(n) {
    std::vector<uint64_t> words(4 * static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const auto s = dqn::Rng(seed, 1000 + static_cast<uint64_t>(i)).state();  // CartPoleVecEnv's copy i
      std::memcpy(&words[4 * static_cast<size_t>(i)], s.data(), 32);
    }
    rng.upload(words);
    env = {state.ptr, elapsed.ptr, rng.ptr, n, max_episode_steps};
    out = {next_obs.ptr, rewards.ptr, terminated.ptr, truncated.ptr, final_obs.ptr};
  }
  DeviceArray<double> state;
  DeviceArray<int32_t> elapsed;
  DeviceArray<uint64_t> rng;
  DeviceArray<float> obs, next_obs, final_obs, rewards;
  DeviceArray<uint8_t> terminated, truncated;
  DeviceArray<int32_t> actions;
  CartPoleDevice env;
  EnvStepOut out;
};

/// Index of the first element where a and b differ bitwise, or -1.
template <typename T>
long FirstDifference(const std::vector<T>& a, const std::vector<T>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<long>(i);
  return -1;
}

/// Host and device copies side by side for `steps` steps; returns the failures counted.
int CompareCartPole(int n, uint64_t seed, int max_episode_steps, int steps) {
  const int before = g_failures;
  dqn::CartPoleVecEnv host(n, seed, max_episode_steps);
  DeviceCartPole dev(n, seed, max_episode_steps);
  const size_t n4 = 4 * static_cast<size_t>(n);
  std::vector<float> obs(n4), next_obs(n4), final_obs(n4), rewards(n);
  std::vector<uint8_t> terminated(n), truncated(n);
  std::vector<int32_t> actions(n);
  host.reset(obs.data());
  CudaOk(dqn::cuda::detail::LaunchCartPoleReset(dev.env, dev.obs.ptr, nullptr), "reset");
  long at = FirstDifference(obs, dev.obs.download());
  EXPECT(at < 0, "n=%d seed=%llu: first observations differ at %ld", n, static_cast<unsigned long long>(seed), at);
  std::mt19937 policy(static_cast<uint32_t>(seed));
  long episodes = 0, truncations = 0;
  for (int t = 0; t < steps && g_failures == before; ++t) {
    for (int& a : actions) a = static_cast<int>(policy() & 1);
    host.step(actions.data(), next_obs.data(), rewards.data(), terminated.data(), truncated.data(), final_obs.data());
    dev.actions.upload(actions);
    CudaOk(dqn::cuda::detail::LaunchCartPoleStep(dev.env, dev.actions.ptr, dev.out, nullptr), "step");
    const auto check = [&](const char* what, long diff) {
      EXPECT(diff < 0, "n=%d seed=%llu limit=%d: %s differ at step %d, element %ld", n, static_cast<unsigned long long>(seed),
             max_episode_steps, what, t, diff);
    };
    check("next observations", FirstDifference(next_obs, dev.next_obs.download()));
    check("final observations", FirstDifference(final_obs, dev.final_obs.download()));
    check("rewards", FirstDifference(rewards, dev.rewards.download()));
    check("terminals", FirstDifference(terminated, dev.terminated.download()));
    check("truncations", FirstDifference(truncated, dev.truncated.download()));
    for (int e = 0; e < n; ++e) episodes += terminated[e] | truncated[e], truncations += truncated[e];
  }
  std::vector<double> states(n4);
  for (int e = 0; e < n; ++e) std::memcpy(&states[4 * static_cast<size_t>(e)], host.state(e).data(), 32);
  at = FirstDifference(states, dev.state.download());
  EXPECT(at < 0, "n=%d seed=%llu: f64 states differ after %d steps at %ld", n, static_cast<unsigned long long>(seed), steps, at);
  std::printf("cartpole n=%-5d seed=%llu limit=%-3d %d steps, %ld episodes ended (%ld truncated): %s\n", n,
              static_cast<unsigned long long>(seed), max_episode_steps, steps, episodes, truncations,
              g_failures == before ? "bit for bit" : "DIFFERENT");
  return g_failures - before;
}

// ---- trading ----

const char* g_csv_arg = nullptr;  // check's or bench's second argument

std::shared_ptr<const dqn::MarketData> CsvBars() { return tool::TradingBars(g_csv_arg); }

struct TradingCase {
  const char* name;
  dqn::EnvSpec spec;  // num_envs, seed and market are set per run
  dqn::EnvRole role;
  int steps;
  bool wild;  // WildBars instead of the CSV
};

std::vector<TradingCase> TradingCases() {
  using dqn::ActionSpace;
  using dqn::EnvRole;
  using dqn::GapPolicy;
  std::vector<TradingCase> cases;
  dqn::EnvSpec s;
  s.kind = "trading";
  s.reward_scale = 1e4;  // the presets' basis points
  cases.push_back({"target actions, gaps held (defaults)", s, EnvRole::kTrain, 2500, false});
  dqn::EnvSpec k = s;
  k.action_space = ActionSpace::kStep;
  k.gap_policy = GapPolicy::kFlat;
  k.decision_interval = 3;
  k.change_penalty_bps = 1;
  k.financing_rate = 0.05;
  k.max_position = 2;
  k.cost_bps = 1;
  k.episode_length = 200;
  cases.push_back({"step actions, gaps sold, interval 3, penalty, financing", k, EnvRole::kTrain, 1500, false});
  dqn::EnvSpec v = s;
  v.gap_policy = GapPolicy::kFlat;
  v.decision_interval = 2;
  v.max_position = 10;
  v.financing_rate = 0.02;
  cases.push_back({"validation walk, interval 2, 10x, sold at the end", v, EnvRole::kValidation, 3200, false});
  dqn::EnvSpec w = s;
  w.lags = 16;  // 114 floats a row: staged 32 copies a block
  w.n_actions = 9;
  w.max_position = 3;
  w.cost_bps = 2;
  w.gap_policy = GapPolicy::kFlat;
  w.episode_length = 300;
  w.max_gap_bars = 3;
  w.validation_fraction = 0.1;
  w.test_fraction = 0.1;
  w.embargo_bars = 30;
  w.folds = 2;
  w.fold = 1;
  cases.push_back({"lags 16 (rows staged 32 a block), 9 actions, fold 1 of 2", w, EnvRole::kTrain, 1500, false});
  dqn::EnvSpec r = s;
  r.max_position = 10;
  r.n_actions = 5;
  r.financing_rate = 0.1;
  r.lags = 28;  // 198 floats a row: written directly, not staged
  cases.push_back({"synthetic wild bars, lags 28 (rows direct), validation walk, ruin", r, EnvRole::kValidation, 600, true});
  return cases;
}

/// Device buffers of one trading run: observations, outputs, actions.
struct TradingBuffers {
  TradingBuffers(int n, int d) : obs(static_cast<size_t>(n) * d), next_obs(static_cast<size_t>(n) * d), final_obs(static_cast<size_t>(n) * d),
      rewards(n), terminated(n), truncated(n), actions(n) {
    out = {next_obs.ptr, rewards.ptr, terminated.ptr, truncated.ptr, final_obs.ptr};
  }
  DeviceArray<float> obs, next_obs, final_obs, rewards;
  DeviceArray<uint8_t> terminated, truncated;
  DeviceArray<int32_t> actions;
  EnvStepOut out;
};

/// |a - b| / max(|a|, |b|), 0 when both are 0.
double RelDiff(double a, double b) {
  const double scale = std::max(std::abs(a), std::abs(b));
  return scale == 0 ? 0.0 : std::abs(a - b) / scale;
}

/// Host and device trading copies side by side for the case's steps; returns the failures counted.
int CompareTrading(const TradingCase& k, int n, uint64_t seed) {
  const int before = g_failures;
  dqn::EnvSpec spec = k.spec;
  spec.num_envs = n;
  spec.seed = seed;
  spec.market = k.wild ? tool::WildBars() : CsvBars();
  const auto host = dqn::MakeTradingEnv(spec, k.role);
  dqn::cuda::DeviceTradingEnv dev(spec, k.role);
  const int d = host->obs_dim(), actions_n = host->num_actions();
  EXPECT(dev.obs_dim() == d && dev.num_actions() == actions_n, "%s: device obs_dim %d / actions %d, host %d / %d", k.name, dev.obs_dim(),
         dev.num_actions(), d, actions_n);
  const size_t nd = static_cast<size_t>(n) * d;
  TradingBuffers buf(n, d);
  std::vector<float> obs(nd), next_obs(nd), final_obs(nd), rewards(n);
  std::vector<uint8_t> terminated(n), truncated(n);
  std::vector<int32_t> actions(n);
  host->reset(obs.data());
  dev.reset(buf.obs.ptr, nullptr);
  long at = FirstDifference(obs, buf.obs.download());
  EXPECT(at < 0, "%s n=%d seed=%llu: first observations differ at %ld", k.name, n, static_cast<unsigned long long>(seed), at);
  // What the steps cover, read from the host copies before each step.
  const dqn::trading::Plan plan = dev.setup().plan->view();
  const std::vector<int>& segment = dev.setup().features.segment_start;
  long episodes = 0, gap_steps = 0, sales_before_gap = 0, ruins = 0;
  double worst = 0;  // largest relative difference of an f64 state value
  bool states_exact = true;
  std::mt19937 policy(static_cast<uint32_t>(seed));
  for (int t = 0; t < k.steps && g_failures == before; ++t) {
    for (int& a : actions) a = static_cast<int>(policy() % static_cast<uint32_t>(actions_n));
    for (const auto& c : dqn::TradingCopies(*host)) {
      const dqn::StepOrder o = dqn::trading::OrderStep(plan, c.state.index, 0, 0, 0, 0);
      if (segment[static_cast<size_t>(o.until)] != segment[static_cast<size_t>(o.t)]) ++gap_steps;
      if (o.close_at >= 0 && o.close_at < o.until) ++sales_before_gap;
    }
    host->step(actions.data(), next_obs.data(), rewards.data(), terminated.data(), truncated.data(), final_obs.data());
    buf.actions.upload(actions);
    dev.step(buf.actions.ptr, buf.out, nullptr);
    const auto check = [&](const char* what, long diff) {
      EXPECT(diff < 0, "%s n=%d seed=%llu: %s differ at step %d, element %ld", k.name, n, static_cast<unsigned long long>(seed), what, t, diff);
    };
    check("next observations", FirstDifference(next_obs, buf.next_obs.download()));
    check("final observations", FirstDifference(final_obs, buf.final_obs.download()));
    check("rewards", FirstDifference(rewards, buf.rewards.download()));
    check("terminals", FirstDifference(terminated, buf.terminated.download()));
    check("truncations", FirstDifference(truncated, buf.truncated.download()));
    const auto hc = dqn::TradingCopies(*host);
    const auto dc = dev.copies();
    const auto dr = dev.rng_states();
    for (int e = 0; e < n; ++e) {
      const dqn::trading::CopyState& h = hc[static_cast<size_t>(e)].state;
      const dqn::trading::CopyState& g = dc[static_cast<size_t>(e)];
      EXPECT(h.index == g.index && h.steps == g.steps && h.level == g.level && hc[static_cast<size_t>(e)].rng == dr[static_cast<size_t>(e)],
             "%s n=%d: copy %d after step %d: host index %llu steps %d level %d, device %llu %d %d%s", k.name, n, e, t,
             static_cast<unsigned long long>(h.index), h.steps, h.level, static_cast<unsigned long long>(g.index), g.steps, g.level,
             hc[static_cast<size_t>(e)].rng == dr[static_cast<size_t>(e)] ? "" : ", reset streams differ");
      for (const auto& [hv, gv] : {std::pair{h.weight, g.weight}, std::pair{h.last_reward, g.last_reward}}) {
        if (std::memcmp(&hv, &gv, sizeof hv) == 0) continue;
        states_exact = false;
        worst = std::max(worst, RelDiff(hv, gv));
      }
      episodes += truncated[static_cast<size_t>(e)] | terminated[static_cast<size_t>(e)];
      ruins += rewards[static_cast<size_t>(e)] == static_cast<float>(-spec.reward_scale);  // a booked return of -1
    }
    EXPECT(worst <= 1e-12, "%s n=%d: f64 state differs by %.3g relative after step %d", k.name, n, worst, t);
  }
  const char* verdict = g_failures != before ? "DIFFERENT" : states_exact ? "bit for bit" : "outputs bit for bit, f64 states within 1e-12 relative";
  std::printf("trading %-55s n=%-4d seed=%llu: %d steps, %ld episodes ended (all truncations), %ld steps across a gap, %ld sales before "
              "a gap, %ld ruins: %s",
              k.name, n, static_cast<unsigned long long>(seed), k.steps, episodes, gap_steps, sales_before_gap, ruins, verdict);
  if (!states_exact) std::printf(" (largest f64 difference %.3g relative)", worst);
  std::printf("\n");
  EXPECT(episodes > 0, "%s n=%d: no episode ended in %d steps", k.name, n, k.steps);
  return g_failures - before;
}

int CheckTrading() {
  const int before = g_failures;
  for (const TradingCase& k : TradingCases())
    for (const int n : {1, 7, 64, 1000}) CompareTrading(k, n, 101 + static_cast<uint64_t>(n));
  std::printf("trading: %s\n", g_failures == before ? "every case bit for bit" : "DIFFERENCES (see FAIL lines)");
  return g_failures - before;
}

int Check() {
  for (const int n : {1, 7, 300, 4096})
    for (const int limit : {500, 9}) CompareCartPole(n, 11 + static_cast<uint64_t>(n), limit, 2000);
  CheckTrading();
  std::printf("%s\n", g_failures == 0 ? "CHECK PASSED" : "CHECK FAILED");
  return g_failures == 0 ? 0 : 1;
}

/// Device trading env steps per second (the step kernel alone, CUDA events over 1,000 steps of
/// random actions cycling through 16 uploaded sets) and the host env's rate at the same copies:
/// the default config (lags 7) at 16 to 65,536 copies, then at 65,536 copies lags 13 (93 floats a
/// row, the widest staged 64 copies a block), 16 (114, the config's widest, staged 32 a block) and
/// 28 (198 floats, written directly).
int BenchTrading() {
  const std::pair<int, int> runs[] = {{16, 7}, {256, 7}, {4096, 7}, {65536, 7}, {65536, 13}, {65536, 16}, {65536, 28}};
  for (const auto& [n, lags] : runs) {
    dqn::EnvSpec spec;
    spec.kind = "trading";
    spec.reward_scale = 1e4;
    spec.num_envs = n;
    spec.lags = lags;
    spec.market = CsvBars();
    dqn::cuda::DeviceTradingEnv dev(spec, dqn::EnvRole::kTrain);
    const int d = dev.obs_dim(), sets = 16;
    TradingBuffers buf(n, d);
    DeviceArray<int32_t> actions(static_cast<size_t>(n) * sets);
    std::vector<int32_t> a(actions.n);
    std::mt19937 policy(5);
    for (auto& x : a) x = static_cast<int32_t>(policy() % static_cast<uint32_t>(dev.num_actions()));
    actions.upload(a);
    dev.reset(buf.obs.ptr, nullptr);
    for (int t = 0; t < 20; ++t) dev.step(actions.ptr + static_cast<size_t>(n) * (t % sets), buf.out, nullptr);  // warm-up
    cudaEvent_t t0, t1;
    CudaOk(cudaEventCreate(&t0), "event");
    CudaOk(cudaEventCreate(&t1), "event");
    const int steps = 1000;
    CudaOk(cudaEventRecord(t0), "record");
    for (int t = 0; t < steps; ++t) dev.step(actions.ptr + static_cast<size_t>(n) * (t % sets), buf.out, nullptr);
    CudaOk(cudaEventRecord(t1), "record");
    CudaOk(cudaEventSynchronize(t1), "sync");
    float ms = 0;
    CudaOk(cudaEventElapsedTime(&ms, t0, t1), "elapsed");
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    // The host env at the same copies, for about 0.3 s.
    const auto host = dqn::MakeTradingEnv(spec, dqn::EnvRole::kTrain);
    const size_t nd = static_cast<size_t>(n) * d;
    std::vector<float> obs(nd), next_obs(nd), final_obs(nd), rewards(n);
    std::vector<uint8_t> term(n), trunc(n);
    host->reset(obs.data());
    const auto start = std::chrono::steady_clock::now();
    long host_steps = 0;
    double host_s = 0;
    while (host_s < 0.3) {
      host->step(a.data() + static_cast<size_t>(n) * (host_steps % sets), next_obs.data(), rewards.data(), term.data(), trunc.data(),
                 final_obs.data());
      ++host_steps;
      host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    const double dev_rate = 1e3 * n * steps / ms, host_rate = static_cast<double>(n) * host_steps / host_s;
    const int staged = dqn::cuda::detail::TradingStagedCopies(d);
    const std::string rows = staged ? "staged " + std::to_string(staged) + " copies a block" : "written directly";
    std::printf("trading device step, %6d copies, %3d floats a row (%s): %.2f us per step, %.3g env steps/s (host env, one core: "
                "%.3g env steps/s; device/host %.2g)\n",
                n, d, rows.c_str(), 1e3 * ms / steps, dev_rate, host_rate, dev_rate / host_rate);
    std::printf("JSON {\"bench\":\"env-trading\",\"copies\":%d,\"obs_dim\":%d,\"us_per_step\":%.3f,\"env_steps_per_s\":%.6g,"
                "\"host_env_steps_per_s\":%.6g}\n",
                n, d, 1e3 * ms / steps, dev_rate, host_rate);
  }
  return 0;
}

int Bench() {
  for (const int n : {16, 256, 4096, 65536}) {
    DeviceCartPole dev(n, 1, 500);
    CudaOk(dqn::cuda::detail::LaunchCartPoleReset(dev.env, dev.obs.ptr, nullptr), "reset");
    std::vector<int32_t> actions(static_cast<size_t>(n));
    for (size_t i = 0; i < actions.size(); ++i) actions[i] = static_cast<int32_t>(i & 1);
    dev.actions.upload(actions);
    cudaEvent_t t0, t1;
    CudaOk(cudaEventCreate(&t0), "event");
    CudaOk(cudaEventCreate(&t1), "event");
    const int steps = 1000;
    CudaOk(cudaEventRecord(t0), "record");
    for (int t = 0; t < steps; ++t) CudaOk(dqn::cuda::detail::LaunchCartPoleStep(dev.env, dev.actions.ptr, dev.out, nullptr), "step");
    CudaOk(cudaEventRecord(t1), "record");
    CudaOk(cudaEventSynchronize(t1), "sync");
    float ms = 0;
    CudaOk(cudaEventElapsedTime(&ms, t0, t1), "elapsed");
    std::printf("cartpole device step, %6d copies: %.2f us per step, %.3g env steps/s\n", n, 1e3 * ms / steps, 1e3 * n * steps / ms);
    std::printf("JSON {\"bench\":\"env-cartpole\",\"copies\":%d,\"us_per_step\":%.3f,\"env_steps_per_s\":%.6g}\n", n, 1e3 * ms / steps,
                1e3 * n * steps / ms);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
  }
  return BenchTrading();
}

}  // namespace

int CheckTradingOnly() {
  CheckTrading();
  std::printf("%s\n", g_failures == 0 ? "CHECK PASSED" : "CHECK FAILED");
  return g_failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc > 2) g_csv_arg = argv[2];  // check CSV / bench CSV
  return ToolMain(argc, argv, {{"check", Check}, {"check-trading", CheckTradingOnly}, {"bench", Bench}, {"bench-trading", BenchTrading}});
}
