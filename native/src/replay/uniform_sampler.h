// Uniform sampling (PER off): slots uniform in [0, size), P(i) = 1 / size, so every IS weight
// is 1 (DESIGN section 3).
#pragma once
#include "replay/index_sampler.h"

namespace dqn::detail {

class UniformSampler final : public IndexSampler {
 public:
  void draw(int64_t size, double* u, int64_t n, int32_t* slots, double* probabilities) override;
  double min_probability(int64_t size) const override { return 1.0 / static_cast<double>(size); }
  int64_t memory_bytes() const override { return 0; }
};

}  // namespace dqn::detail
