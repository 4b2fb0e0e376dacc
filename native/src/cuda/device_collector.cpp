// The GPU collector (see device_collector.h).
#include "cuda/device_collector.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cpu/rng.h"
#include "cuda/carver.h"
#include "cuda/cuda_replay.h"
#include "cuda/device_trading_env.h"
#include "cuda/graph.h"
#include "cuda/status.h"
#include "cuda/sync.h"

namespace dqn::cuda {

DeviceCollector::DeviceCollector(const DeviceCollectorConfig& config, const NetConfig& net)
    : config_(config) {
  const DeviceCollectorConfig& k = config;
  if (k.num_envs < 1 || k.max_episode_steps < 1 || k.n_step < 1 || !(k.gamma >= 0 && k.gamma <= 1) || k.eps_decay_steps < 1)
    throw std::invalid_argument("the GPU collector needs num_envs >= 1, max_episode_steps >= 1, n_step >= 1, gamma in [0, 1] and "
                                "eps_decay_steps >= 1; got " + std::to_string(k.num_envs) + ", " +
                                std::to_string(k.max_episode_steps) + ", " + std::to_string(k.n_step) + ", " +
                                std::to_string(k.gamma) + ", " + std::to_string(k.eps_decay_steps));
  if (k.trading) {
    EnvSpec spec = *k.trading;
    spec.num_envs = k.num_envs, spec.seed = k.seed;
    trading_ = std::make_unique<DeviceTradingEnv>(spec, EnvRole::kTrain);
    if (trading_->obs_dim() > detail::kMaxTradingObsDim)
      throw std::invalid_argument("the GPU collector's trading copies observe at most " + std::to_string(detail::kMaxTradingObsDim) +
                                  " floats (lags <= 16); got " + std::to_string(trading_->obs_dim()));
  }
  const int env_dim = trading_ ? trading_->obs_dim() : 4, env_actions = trading_ ? trading_->num_actions() : 2;
  if (net.state_dim != env_dim || net.n_actions != env_actions)
    throw std::invalid_argument(std::string("the GPU collector steps ") + (trading_ ? "trading" : "CartPole") + " (" +
                                std::to_string(env_dim) + " observations, " + std::to_string(env_actions) + " actions); the network has " +
                                std::to_string(net.state_dim) + " inputs and " + std::to_string(net.n_actions) + " actions");
  const int64_t e = k.num_envs, d = env_dim, n = k.n_step, rows = e * n;
  const int64_t log_capacity = std::clamp<int64_t>(e * 1024, int64_t{1} << 16, int64_t{1} << 22);
  detail::CollectView& v = view_;
  const auto carve = [&](Carver& c) {
    if (!trading_) {  // the trading copies live in trading_'s block
      v.cartpole.state = c.take<double>(4 * e);
      v.cartpole.elapsed = c.take<int32_t>(e);
      v.cartpole.rng = c.take<uint64_t>(4 * e);
    }
    v.obs = c.take<float>(e * d);
    v.ring_states = c.take<float>(rows * d);
    v.ring_actions = c.take<int32_t>(rows);
    v.ring_rewards = c.take<float>(rows);
    v.ring_head = c.take<int32_t>(e);
    v.ring_count = c.take<int32_t>(e);
    CarveTransitions(c, v.emit, rows, d);
    v.emit_count = c.take<int32_t>(e);
    v.emit_offset = c.take<int32_t>(e);
    CarveTransitions(c, v.rows, rows, d);
    v.row_count = c.take<int64_t>(1);
    v.actions = c.take<int32_t>(e);
    v.ep_return = c.take<double>(e);
    v.ep_length = c.take<int32_t>(e);
    v.episodes = c.take<int64_t>(e);
    v.return_sum = c.take<double>(e);
    v.last_return = c.take<double>(e);
    v.last_length = c.take<int32_t>(e);
    v.ctl = c.take<detail::CollectorControl>(1);
    v.log_count = c.take<uint32_t>(1);
    v.log = c.take<detail::EpisodeLogEntry>(log_capacity);
    act_.h.clear();
    for (const int width : net.hidden) act_.h.push_back(c.take<float>(e * width));
    act_.v = c.take<float>(e);
    act_.a = c.take<float>(e * net.n_actions);
  };
  Carver measure(nullptr);
  carve(measure);
  Check(detail::CollectScanTempBytes(k.num_envs, &scan_temp_bytes_), "sizing the collector's scan");
  size_t free_bytes = 0, total_bytes = 0;
  Check(cudaMemGetInfo(&free_bytes, &total_bytes), "reading free device memory");
  const size_t bytes = measure.used() + scan_temp_bytes_ + kCarveAlign;
  if (const cudaError_t err = k.simulate_oom ? cudaErrorMemoryAllocation : cudaMalloc(&block_, bytes); err != cudaSuccess) {
    cudaGetLastError();
    throw CudaError(Status::kErrorOutOfMemory, err,
                    "out of memory: the GPU collector of " + std::to_string(k.num_envs) + " environments needs " + GiB(bytes) +
                        " GiB, " + GiB(free_bytes) + " GiB free");
  }
  Carver place(block_);
  carve(place);
  scan_temp_ = static_cast<char*>(block_) + place.used();
  v.log_capacity = log_capacity;
  v.num_envs = k.num_envs;
  if (trading_) {
    v.env = detail::CollectEnv::kTrading;
    v.trading = trading_->view();
  } else {
    v.env = detail::CollectEnv::kCartPole;
    v.cartpole.n = k.num_envs;
    v.cartpole.max_episode_steps = k.max_episode_steps;
  }
  act_.x = v.obs;
  act_.rows = k.num_envs;
  v.v = net.dueling ? act_.v : nullptr;
  v.a = act_.a;
  v.n_actions = net.n_actions;
  v.state_dim = static_cast<int>(d);
  v.n_step = k.n_step;
  v.gamma = k.gamma;
  v.seed = k.seed;
  v.eps_start = k.eps_start, v.eps_end = k.eps_end;
  v.eps_decay_steps = k.eps_decay_steps, v.learning_starts = k.learning_starts;
  try {
    // Zeros (rings, statistics, counters), the copies' reset streams, then the copies' resets
    // (the trading copies' streams were seeded by trading_).
    Check(cudaMemset(block_, 0, measure.used()), "clearing the collector's buffers");
    if (trading_) {
      trading_->reset(v.obs, nullptr);
    } else {
      std::vector<uint64_t> words(4 * static_cast<size_t>(e));
      for (int i = 0; i < k.num_envs; ++i) {
        const auto s = Rng(k.seed, 1000 + static_cast<uint64_t>(i)).state();  // CartPoleVecEnv's copy i
        std::memcpy(&words[4 * static_cast<size_t>(i)], s.data(), sizeof s);
      }
      Check(cudaMemcpy(v.cartpole.rng, words.data(), words.size() * sizeof(uint64_t), cudaMemcpyHostToDevice),
            "copying the environments' reset streams");
      Check(detail::LaunchCartPoleReset(v.cartpole, v.obs, nullptr), "resetting the environments");
    }
    Synchronize(nullptr, "resetting the environments");
  } catch (...) {
    cudaFree(block_);
    throw;
  }
}

DeviceCollector::~DeviceCollector() {
  DestroyGraph(&exec_);
  if (block_) {
    cudaDeviceSynchronize();  // no queued step may still use the block
    cudaFree(block_);
    cudaGetLastError();
  }
}

std::vector<detail::EpisodeLogEntry> DeviceCollector::drain_log(cudaStream_t st, int64_t* dropped) {
  *dropped = 0;
  uint32_t count = 0;
  Check(cudaMemcpyAsync(&count, view_.log_count, sizeof count, cudaMemcpyDeviceToHost, st), "reading the episode log's count");
  Synchronize(st, "reading the episode log");
  const int64_t kept = std::min<int64_t>(count, view_.log_capacity);
  std::vector<detail::EpisodeLogEntry> out(static_cast<size_t>(kept));
  if (kept > 0)
    Check(cudaMemcpyAsync(out.data(), view_.log, out.size() * sizeof(detail::EpisodeLogEntry), cudaMemcpyDeviceToHost, st),
          "reading the episode log");
  Check(cudaMemsetAsync(view_.log_count, 0, sizeof(uint32_t), st), "emptying the episode log");
  Synchronize(st, "reading the episode log");
  *dropped = static_cast<int64_t>(count) - kept;
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.env_step < y.env_step; });
  return out;
}

void DeviceCollector::set_env_steps(cudaStream_t s, int64_t env_steps) {
  const detail::CollectorControl ctl{env_steps / config_.num_envs, env_steps};
  // A pageable source: the copy has read it before returning.
  Check(cudaMemcpyAsync(view_.ctl, &ctl, sizeof ctl, cudaMemcpyHostToDevice, s), "setting the collector's counters");
}

void DeviceCollector::act(CudaLearner& learner, CudaReplay& replay) { learner.queue_act_forward(act_, replay.stream()); }

void DeviceCollector::advance(CudaReplay& replay) {
  Check(detail::LaunchCollect(view_, scan_temp_, scan_temp_bytes_, replay.stream()), "launching the collector's step");
  replay.insert_device_counted(detail::RowsForInsert(view_.rows), view_.row_count, max_rows_per_step());
}

void DeviceCollector::step(CudaLearner& learner, CudaReplay& replay) {
  act(learner, replay);
  advance(replay);
}

void DeviceCollector::launch(CudaLearner& learner, CudaReplay& replay) {
  if (exec_replay_ != &replay || exec_learner_ != &learner) DestroyGraph(&exec_), launches_ = 0;
  exec_replay_ = &replay, exec_learner_ = &learner;
  // The first vector step runs eagerly: a failing kernel shows outside any capture.
  RunGraph(replay.stream(), launches_ > 0, &exec_, "launching the collector's vector step", [&] { step(learner, replay); });
  ++launches_;
}

DeviceCollector::Statistics DeviceCollector::statistics(const CudaReplay& replay) const {
  const size_t e = static_cast<size_t>(config_.num_envs);
  Statistics s;
  s.episodes_per_copy.resize(e);
  s.return_sum_per_copy.resize(e);
  detail::CollectorControl ctl;
  const cudaStream_t st = replay.stream();
  Check(cudaMemcpyAsync(&ctl, view_.ctl, sizeof ctl, cudaMemcpyDeviceToHost, st), "reading the collector's counters");
  Check(cudaMemcpyAsync(s.episodes_per_copy.data(), view_.episodes, e * sizeof(int64_t), cudaMemcpyDeviceToHost, st),
        "reading the episode counts");
  Check(cudaMemcpyAsync(s.return_sum_per_copy.data(), view_.return_sum, e * sizeof(double), cudaMemcpyDeviceToHost, st),
        "reading the episode returns");
  Synchronize(st, "reading the collector's statistics");
  s.vector_steps = ctl.vector_steps;
  s.env_steps = ctl.env_steps;
  for (size_t i = 0; i < e; ++i) s.episodes += s.episodes_per_copy[i], s.return_sum += s.return_sum_per_copy[i];
  return s;
}

}  // namespace dqn::cuda
