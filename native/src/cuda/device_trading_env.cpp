// The trading environment on the device (see device_trading_env.h).
#include "cuda/device_trading_env.h"

#include <cstring>
#include <string>

#include "cuda/carver.h"
#include "cuda/status.h"
#include "cuda/sync.h"

namespace dqn::cuda {

DeviceTradingEnv::DeviceTradingEnv(const EnvSpec& spec, EnvRole role) : setup_(PrepareTrading(spec, role)) {
  const MarketData& m = *setup_.market;
  const std::vector<int>& bars = setup_.plan->bars();
  const std::vector<int>& segment = setup_.features.segment_start;
  const std::vector<float>& features = setup_.features.normalized;
  const int64_t num_bars = static_cast<int64_t>(m.close.size()), e = spec.num_envs;
  detail::TradingDevice& v = view_;
  int* d_bars = nullptr;
  int* d_segment = nullptr;
  double* d_timestamps = nullptr;
  double* d_close = nullptr;
  float* d_features = nullptr;
  const auto carve = [&](Carver& c) {
    d_bars = c.take<int>(static_cast<int64_t>(bars.size()));
    d_segment = c.take<int>(num_bars);
    d_timestamps = c.take<double>(num_bars);
    d_close = c.take<double>(num_bars);
    d_features = c.take<float>(static_cast<int64_t>(features.size()));
    v.copies = c.take<trading::CopyState>(e);
    v.rng = c.take<uint64_t>(4 * e);
  };
  Carver measure(nullptr);
  carve(measure);
  size_t free_bytes = 0, total_bytes = 0;
  Check(cudaMemGetInfo(&free_bytes, &total_bytes), "reading free device memory");
  bytes_ = measure.used();
  if (const cudaError_t err = cudaMalloc(&block_, bytes_); err != cudaSuccess) {
    cudaGetLastError();
    block_ = nullptr;
    throw CudaError(Status::kErrorOutOfMemory, err,
                    "out of memory: the GPU trading environment of " + std::to_string(e) + " copies needs " + GiB(bytes_) + " GiB, " +
                        GiB(free_bytes) + " GiB free");
  }
  Carver place(block_);
  carve(place);
  v.n = spec.num_envs;
  v.params = setup_.params;
  v.walk.plan = setup_.plan->view();  // host pointers replaced by their device copies below
  v.walk.plan.bars = d_bars;
  v.walk.plan.segment_start = d_segment;
  v.walk.timestamps = d_timestamps;
  v.walk.close = d_close;
  v.walk.features = d_features;
  try {
    const auto up = [](void* dst, const void* src, size_t bytes, const char* what) {
      Check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), what);
    };
    up(d_bars, bars.data(), bars.size() * sizeof(int), "copying the trading decision bars");
    up(d_segment, segment.data(), segment.size() * sizeof(int), "copying the trading segments");
    up(d_timestamps, m.timestamps.data(), m.timestamps.size() * sizeof(double), "copying the trading timestamps");
    up(d_close, m.close.data(), m.close.size() * sizeof(double), "copying the trading closes");
    up(d_features, features.data(), features.size() * sizeof(float), "copying the trading features");
    std::vector<uint64_t> words(4 * static_cast<size_t>(e));
    for (int64_t i = 0; i < e; ++i) {
      const auto s = trading::CopyRng(spec.seed, static_cast<uint64_t>(i)).state();  // the host env's copy i
      std::memcpy(&words[4 * static_cast<size_t>(i)], s.data(), sizeof s);
    }
    up(v.rng, words.data(), words.size() * sizeof(uint64_t), "copying the trading reset streams");
    Check(cudaMemset(v.copies, 0, static_cast<size_t>(e) * sizeof(trading::CopyState)), "clearing the trading copies");
    Synchronize(nullptr, "preparing the trading environment");
  } catch (...) {
    cudaFree(block_);
    throw;
  }
}

DeviceTradingEnv::~DeviceTradingEnv() {
  if (block_) cudaFree(block_);
}

void DeviceTradingEnv::reset(float* obs, cudaStream_t stream) {
  Check(detail::LaunchTradingReset(view_, obs, stream), "resetting the trading environment");
}

void DeviceTradingEnv::step(const int32_t* actions, const detail::EnvStepOut& out, cudaStream_t stream) {
  Check(detail::LaunchTradingStep(view_, actions, out, stream), "stepping the trading environment");
}

std::vector<trading::CopyState> DeviceTradingEnv::copies() const {
  std::vector<trading::CopyState> out(static_cast<size_t>(view_.n));
  Check(cudaMemcpy(out.data(), view_.copies, out.size() * sizeof(trading::CopyState), cudaMemcpyDeviceToHost),
        "copying the trading copies back");
  return out;
}

std::vector<std::array<uint64_t, 4>> DeviceTradingEnv::rng_states() const {
  std::vector<std::array<uint64_t, 4>> out(static_cast<size_t>(view_.n));
  Check(cudaMemcpy(out.data(), view_.rng, out.size() * sizeof(out[0]), cudaMemcpyDeviceToHost), "copying the trading streams back");
  return out;
}

}  // namespace dqn::cuda
