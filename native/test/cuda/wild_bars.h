// Synthetic bars for the CUDA tools' trading checks (env_cuda_tool, collect_cuda_tool): swings
// wild enough to ruin an evaluation walk at high leverage, with gaps.
#pragma once
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "env/make_env.h"

namespace tool {

/// 3,000 one-minute bars whose closes swing by ~8 % a bar (an evaluation walk at 10x equity is
/// ruined within a few steps), with a gap of an hour every 500 bars; the same bars every call.
inline std::shared_ptr<const dqn::MarketData> WildBars() {
  auto m = std::make_shared<dqn::MarketData>();
  std::mt19937_64 g(7);
  std::normal_distribution<double> z(0.0, 0.08);
  double ts = 1.7e9, close = 100;
  for (int t = 0; t < 3000; ++t) {
    ts += t % 500 == 499 ? 3600 : 60;
    const double open = close;
    close = std::max(1e-3, close * std::exp(z(g)));
    m->timestamps.push_back(ts);
    m->open.push_back(open);
    m->high.push_back(std::max(open, close) * 1.01);
    m->low.push_back(std::min(open, close) * 0.99);
    m->close.push_back(close);
    m->volume.push_back(static_cast<double>(g() % 1000));
  }
  return m;
}

}  // namespace tool
