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

double LeafPriority(double abs_td, const ReplayConfig& c) {
  return std::pow(std::min(abs_td, c.p_clip) + c.eps, c.alpha);
}

}  // namespace dqn
