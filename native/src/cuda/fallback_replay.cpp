// The CUDA replay's runtime fallback to the CPU reference (see fallback_replay.h).
#include "cuda/fallback_replay.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace dqn::cuda {

FallbackReplay::FallbackReplay(const ReplayConfig& config, std::unique_ptr<CudaReplay> gpu)
    : config_(config), gpu_(std::move(gpu)) {}

template <typename Self, typename F>
decltype(auto) FallbackReplay::Guarded(Self& self, F f) {
  try {
    return f(self.active());
  } catch (const CudaError& e) {
    if (!self.gpu_ || e.sticky()) throw;
    self.move_to_cpu(e.what());
  }
  return f(self.active());
}

void FallbackReplay::move_to_cpu(const std::string& reason) const {
  CudaReplay::Contents c;
  gpu_->download(c);
  std::unique_ptr<Replay> cpu = MakeCpuReplay(config_);
  const int64_t d = config_.state_dim, n = c.size;
  // Insert slots 0..size-1 in order, so slot i stays slot i; when the ring is full and the
  // cursor is not at 0, insert slots 0..cursor-1 once more so the CPU cursor matches too.
  const auto insert_range = [&](int64_t first, int64_t count) {
    TransitionBatch b;
    b.states = c.states.data() + first * d;
    b.next_states = c.next_states.data() + first * d;
    b.actions = c.actions.data() + first;
    b.rewards = c.rewards.data() + first;
    b.dones = c.dones.data() + first;
    b.discounts = c.discounts.data() + first;
    b.count = count;
    cpu->insert(b);
  };
  if (n > 0) insert_range(0, n);
  if (n == config_.capacity && c.cursor > 0) insert_range(0, c.cursor);
  if (n > 0 && config_.alpha > 0) {
    // Leaf p^alpha = (|td| + eps)^alpha: |td| = p^(1/alpha) - eps reproduces it up to rounding.
    std::vector<int32_t> idx(static_cast<size_t>(n));
    std::vector<uint32_t> gen(static_cast<size_t>(n));
    std::vector<float> td(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      idx[i] = static_cast<int32_t>(i);
      gen[i] = n == config_.capacity && i < c.cursor ? 2u : 1u;
      td[i] = static_cast<float>(std::max(0.0, std::pow(c.leaves[i], 1.0 / config_.alpha) - config_.eps));
    }
    cpu->update_priorities(idx.data(), gen.data(), td.data(), n);
  }
  cpu->set_sample_steps(c.sample_steps);
  cpu_ = std::move(cpu);
  gpu_.reset();
  reason_ = reason;
}

void FallbackReplay::insert(const TransitionBatch& batch) { Guarded(*this, [&](Replay& r) { r.insert(batch); }); }
void FallbackReplay::sample(int64_t batch_size, SampleBatch& out) { Guarded(*this, [&](Replay& r) { r.sample(batch_size, out); }); }
UpdateResult FallbackReplay::update_priorities(const int32_t* indices, const uint32_t* generations,
                                               const float* td_errors, int64_t n) {
  return Guarded(*this, [&](Replay& r) { return r.update_priorities(indices, generations, td_errors, n); });
}
double FallbackReplay::total_priority() const { return Guarded(*this, [](const Replay& r) { return r.total_priority(); }); }
double FallbackReplay::max_priority() const { return Guarded(*this, [](const Replay& r) { return r.max_priority(); }); }
double FallbackReplay::beta() const { return Guarded(*this, [](const Replay& r) { return r.beta(); }); }
int64_t FallbackReplay::sample_steps() const { return Guarded(*this, [](const Replay& r) { return r.sample_steps(); }); }
void FallbackReplay::set_sample_steps(int64_t steps) { Guarded(*this, [&](Replay& r) { r.set_sample_steps(steps); }); }
void FallbackReplay::leaf_priorities(double* out) const { Guarded(*this, [&](const Replay& r) { r.leaf_priorities(out); }); }

std::unique_ptr<FallbackReplay> MakeCudaReplayWithFallback(const ReplayConfig& config, const CudaReplayOptions& options) {
  return std::make_unique<FallbackReplay>(config, std::make_unique<CudaReplay>(config, options));
}

}  // namespace dqn::cuda
