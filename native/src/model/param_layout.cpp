// Flat parameter layout and He-uniform init (see param_layout.h).
#include "model/param_layout.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cpu/rng.h"

namespace dqn {

ParamLayout::ParamLayout(const NetConfig& config) : config_(config) {
  if (config.state_dim < 1) throw std::invalid_argument("state_dim must be >= 1, got " + std::to_string(config.state_dim));
  if (config.n_actions < 1) throw std::invalid_argument("n_actions must be >= 1, got " + std::to_string(config.n_actions));
  if (config.hidden.empty()) throw std::invalid_argument("the network needs at least one hidden layer");
  int in = config.state_dim;
  for (int h : config.hidden) {
    if (h < 1) throw std::invalid_argument("hidden widths must be >= 1, got " + std::to_string(h));
    trunk_.push_back(Append(in, h));
    in = h;
  }
  if (config.dueling) value_ = Append(in, 1);
  advantage_ = Append(in, config.n_actions);
}

DenseSlot ParamLayout::Append(int in, int out) {
  DenseSlot s{size_, size_ + static_cast<int64_t>(in) * out, in, out};
  size_ = s.b + out;
  return s;
}

int ParamLayout::max_width() const {
  int w = config_.n_actions;
  for (const auto& s : trunk_) w = std::max(w, s.out);
  return w;
}

namespace {
DenseView Resolve(const DenseSlot& s, float* base) { return {base + s.w, base + s.b, s.in, s.out}; }

void InitDense(const DenseSlot& s, float* params, double gain, Rng& rng) {
  const double bound = gain * std::sqrt(3.0 / s.in);
  for (int64_t i = 0; i < static_cast<int64_t>(s.in) * s.out; ++i)
    params[s.w + i] = static_cast<float>(rng.uniform(-bound, bound));
  std::fill(params + s.b, params + s.b + s.out, 0.0f);
}
}  // namespace

ParamView::ParamView(const ParamLayout& layout, float* base) {
  for (const auto& s : layout.trunk()) trunk.push_back(Resolve(s, base));
  if (layout.config().dueling) value = Resolve(layout.value(), base);
  advantage = Resolve(layout.advantage(), base);
}

void InitParams(const ParamLayout& layout, float* params, Rng& rng) {
  for (const auto& s : layout.trunk()) InitDense(s, params, std::sqrt(2.0), rng);
  if (layout.config().dueling) InitDense(layout.value(), params, 1.0, rng);
  InitDense(layout.advantage(), params, 1.0, rng);
}

}  // namespace dqn
