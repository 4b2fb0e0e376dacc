// Uniform slot draws (see uniform_sampler.h).
#include "replay/uniform_sampler.h"

#include <algorithm>
#include <cmath>

namespace dqn::detail {

void UniformSampler::draw(int64_t size, double* u, int64_t n, int32_t* slots, double* probabilities) {
  const double p = 1.0 / static_cast<double>(size);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t slot = static_cast<int64_t>(std::floor(u[k] * static_cast<double>(size)));
    slots[k] = static_cast<int32_t>(std::min(slot, size - 1));
    probabilities[k] = p;
  }
}

}  // namespace dqn::detail
