// Stratified proportional sampling from the sum tree (see proportional_sampler.h).
#include "replay/proportional_sampler.h"

#include <stdexcept>

#include "replay/sum_tree.h"

namespace dqn::detail {

void ProportionalSampler::draw(int64_t /*size*/, double* u, int64_t n, int32_t* slots, double* probabilities) {
  const double total = trees_.total();
  if (!(total > 0.0))
    throw std::runtime_error("every stored priority is zero, so nothing can be sampled (use eps > 0)");
  const double segment = total / static_cast<double>(n);
  for (int64_t k = 0; k < n; ++k) u[k] = (static_cast<double>(k) + u[k]) * segment;
  FindByMass(trees_.sum(), u, n, slots);
  for (int64_t k = 0; k < n; ++k) probabilities[k] = trees_.leaf(slots[k]) / total;
}

double ProportionalSampler::min_probability(int64_t /*size*/) const {
  return trees_.min_positive() / trees_.total();
}

}  // namespace dqn::detail
