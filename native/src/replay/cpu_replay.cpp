// The CPU reference replay buffer (see cpu_replay.h).
#include "replay/cpu_replay.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "replay/proportional_sampler.h"
#include "replay/rank_sampler.h"
#include "replay/replay_config.h"
#include "replay/uniform_sampler.h"
#include "rules/step_rules.h"

namespace dqn {
namespace detail {
namespace {

const ReplayConfig& Validated(const ReplayConfig& config) {
  ValidateReplayConfig(config);
  return config;
}

std::unique_ptr<IndexSampler> MakeSampler(const ReplayConfig& c, const PriorityTrees& trees) {
  switch (c.sampler) {
    case Sampler::kRank: return std::make_unique<RankSampler>(trees, c.capacity, c.alpha, c.rank_sort_interval);
    case Sampler::kUniform: return std::make_unique<UniformSampler>();
    case Sampler::kProportional: break;
  }
  return std::make_unique<ProportionalSampler>(trees);
}

}  // namespace

CpuReplay::CpuReplay(const ReplayConfig& config)
    : config_(Validated(config)),
      key_(PhiloxKeyFromSeed(config.seed)),
      store_(config.capacity, config.state_dim),
      trees_(config.capacity),
      sampler_(MakeSampler(config, trees_)) {}

void CpuReplay::insert(const TransitionBatch& batch) {
  store_.validate(batch);
  if (batch.count == 0) return;
  store_.write(batch, slots_);
  values_.assign(slots_.size(), LeafPriority(max_priority_, config_));
  trees_.assign(slots_.data(), values_.data(), static_cast<int64_t>(slots_.size()));
}

double CpuReplay::beta() const {
  return rules::BetaAt(config_.beta0, config_.beta_steps, sample_steps_);
}

void CpuReplay::sample(int64_t batch_size, SampleBatch& out) {
  ValidateSampleRequest(batch_size, out);
  const int64_t size = store_.size();
  if (size == 0) throw std::runtime_error("cannot sample from an empty replay buffer");

  const size_t n = static_cast<size_t>(batch_size);
  uniforms_.resize(n);
  probabilities_.resize(n);
  const auto step_lo = static_cast<uint32_t>(sample_steps_), step_hi = static_cast<uint32_t>(sample_steps_ >> 32);
  for (size_t k = 0; k < n; ++k) {
    const PhiloxCounter bits = Philox4x32_10({static_cast<uint32_t>(k), 0u, step_lo, step_hi}, key_);
    uniforms_[k] = UniformFromBits(bits[0], bits[1]);
  }
  sampler_->draw(size, uniforms_.data(), batch_size, out.indices, probabilities_.data());

  const double beta = this->beta();
  const double p_min = config_.is_normalization == IsNormalization::kBuffer
                           ? sampler_->min_probability(size)
                           : *std::min_element(probabilities_.begin(), probabilities_.end());
  for (size_t k = 0; k < n; ++k) out.weights[k] = static_cast<float>(std::pow(p_min / probabilities_[k], beta));
  store_.gather(out.indices, batch_size, out);
  ++sample_steps_;
}

UpdateResult CpuReplay::update_priorities(const int32_t* indices, const uint32_t* generations,
                                          const float* td_errors, int64_t n) {
  const int64_t size = store_.size();
  ValidateUpdateRequest(indices, generations, td_errors, n, size);
  UpdateResult result;
  if (n == 0) return result;
  entries_.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) entries_[static_cast<size_t>(k)] = {indices[k], k};
  // Sorted by (slot, position): the last entry of each run of one slot is the one that wins.
  std::sort(entries_.begin(), entries_.end());
  slots_.clear();
  values_.clear();
  for (size_t e = 0; e < entries_.size(); ++e) {
    const auto [slot, k] = entries_[e];
    if (e + 1 < entries_.size() && entries_[e + 1].first == slot) {
      ++result.duplicates;
      continue;
    }
    const float td = td_errors[k];
    if (!std::isfinite(td)) {
      ++result.rejected_nonfinite;
    } else if (generations[k] != store_.generation(slot)) {
      ++result.stale;
    } else {
      const double abs_td = std::fabs(static_cast<double>(td));
      slots_.push_back(slot);
      values_.push_back(LeafPriority(abs_td, config_));
      max_priority_ = std::max(max_priority_, abs_td);
      ++result.applied;
    }
  }
  trees_.assign(slots_.data(), values_.data(), static_cast<int64_t>(slots_.size()));
  return result;
}

void CpuReplay::set_sample_steps(int64_t steps) {
  if (steps < 0) throw std::invalid_argument("sample_steps must be >= 0, got " + std::to_string(steps));
  sample_steps_ = steps;
}

void CpuReplay::leaf_priorities(double* out) const {
  for (int64_t i = 0; i < store_.size(); ++i) out[i] = trees_.leaf(i);
}

int64_t CpuReplay::host_memory_bytes() const {
  return store_.memory_bytes() + trees_.memory_bytes() + sampler_->memory_bytes();
}

}  // namespace detail

std::unique_ptr<Replay> MakeCpuReplay(const ReplayConfig& config) {
  try {
    return std::make_unique<detail::CpuReplay>(config);
  } catch (const std::bad_alloc&) {
    std::ostringstream msg;
    msg.precision(3);
    const double gib = 2.0 * static_cast<double>(config.capacity) * config.state_dim * sizeof(float) / (1 << 30);
    msg << "could not allocate the CPU replay buffer: capacity " << config.capacity << " x state_dim "
        << config.state_dim << " needs at least " << std::fixed << gib << " GiB for states and next states";
    throw std::out_of_range(msg.str());  // a size the machine cannot hold: RangeError in JavaScript
  }
}

}  // namespace dqn
