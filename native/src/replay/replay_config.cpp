// ReplayConfig checks and the priority transform (see replay_config.h).
#include "replay/replay_config.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dqn {
namespace {

template <typename T>
[[noreturn]] void Invalid(const char* field, T value, const char* expected) {
  std::ostringstream msg;
  msg << "replay config: " << field << " must be " << expected << ", got " << value;
  throw std::invalid_argument(msg.str());
}

void InUnitInterval(const char* field, double value) {
  if (!(value >= 0.0 && value <= 1.0)) Invalid(field, value, "in [0, 1]");
}

}  // namespace

void ValidateReplayConfig(const ReplayConfig& c) {
  if (c.capacity < 1 || c.capacity > kMaxReplayCapacity) Invalid("capacity", c.capacity, "in [1, 1073741824]");
  if (c.state_dim < 1) Invalid("state_dim", c.state_dim, ">= 1");
  if (c.sampler != Sampler::kProportional && c.sampler != Sampler::kRank && c.sampler != Sampler::kUniform)
    Invalid("sampler", static_cast<int>(c.sampler), "proportional, rank or uniform");
  InUnitInterval("alpha", c.alpha);
  InUnitInterval("beta0", c.beta0);
  if (c.beta_steps < 1) Invalid("beta_steps", c.beta_steps, ">= 1");
  if (!(c.eps >= 0.0 && std::isfinite(c.eps))) Invalid("eps", c.eps, "finite and >= 0");
  if (!(c.p_clip > 0.0 && std::isfinite(c.p_clip))) Invalid("p_clip", c.p_clip, "finite and > 0");
  if (c.is_normalization != IsNormalization::kBuffer && c.is_normalization != IsNormalization::kBatch)
    Invalid("is_normalization", static_cast<int>(c.is_normalization), "buffer or batch");
  if (c.rank_sort_interval < 1) Invalid("rank_sort_interval", c.rank_sort_interval, ">= 1");
}

void ValidateSampleRequest(int64_t batch_size, const SampleBatch& out) {
  if (batch_size < 1 || batch_size > INT32_MAX)
    throw std::invalid_argument("batch size must be in [1, 2147483647], got " + std::to_string(batch_size));
  if (!out.indices || !out.generations || !out.weights || !out.states || !out.actions || !out.rewards ||
      !out.next_states || !out.dones || !out.discounts)
    throw std::invalid_argument("every SampleBatch array is required");
}

void ValidateUpdateRequest(const int32_t* indices, const uint32_t* generations, const float* td_errors, int64_t n,
                           int64_t size) {
  if (n < 0) throw std::invalid_argument("update count must be >= 0, got " + std::to_string(n));
  if (n == 0) return;
  if (!indices || !generations || !td_errors)
    throw std::invalid_argument("indices, generations and td_errors are required");
  for (int64_t k = 0; k < n; ++k) {
    if (indices[k] < 0 || indices[k] >= size) {
      std::ostringstream msg;
      msg << "indices[" << k << "] must be in [0, " << size << "), got " << indices[k];
      throw std::invalid_argument(msg.str());
    }
  }
}

double LeafPriority(double abs_td, const ReplayConfig& c) {
  return std::pow(std::min(abs_td, c.p_clip) + c.eps, c.alpha);
}

}  // namespace dqn
