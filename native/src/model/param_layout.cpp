// Flat parameter layout and He-uniform init (see param_layout.h).
#include "model/param_layout.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cpu/rng.h"
#include "model/head.h"
#include "model/heads.h"

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
  heads_ = MakeHeads(config);
  for (const auto& head : heads_) {
    std::vector<DenseSlot>& slots = head_slots_.emplace_back();
    std::vector<double>& gains = head_gains_.emplace_back();
    for (const LayerSpec& l : head->layers()) {
      slots.push_back(Append(l.in, l.out));
      gains.push_back(l.gain);
      // The main Q head's slots, for the CUDA learner (see value()).
      if (config.heads.main == MainHead::kQ && head == heads_.front()) {
        if (l.name == "value") value_ = slots.back();
        if (l.name == "advantage" || l.name == "q") advantage_ = slots.back();
      }
    }
  }
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
  for (size_t k = 0; k < layout.heads().size(); ++k) {
    std::vector<DenseView>& views = heads.emplace_back();
    for (const DenseSlot& s : layout.head_slots(k)) views.push_back(Resolve(s, base));
  }
  if (layout.value().out > 0) value = Resolve(layout.value(), base);
  if (layout.advantage().out > 0) advantage = Resolve(layout.advantage(), base);
}

void InitParams(const ParamLayout& layout, float* params, Rng& rng) {
  for (const auto& s : layout.trunk()) InitDense(s, params, std::sqrt(2.0), rng);
  for (size_t k = 0; k < layout.heads().size(); ++k)
    for (size_t l = 0; l < layout.head_slots(k).size(); ++l)
      InitDense(layout.head_slots(k)[l], params, layout.head_gains(k)[l], rng);
}

}  // namespace dqn
