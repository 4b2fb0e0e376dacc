// Proportional PER sampling, P(i) = p_i^alpha / sum_k p_k^alpha (Schaul et al. 2016, sec. 3.3),
// stratified as in the paper's appendix B.2.1: [0, total) is split into n equal segments and one
// mass is drawn uniformly in each, then found in the sum tree.
#pragma once
#include "replay/index_sampler.h"
#include "replay/priority_trees.h"

namespace dqn::detail {

class ProportionalSampler final : public IndexSampler {
 public:
  explicit ProportionalSampler(const PriorityTrees& trees) : trees_(trees) {}
  /// Throws std::runtime_error when every stored priority is zero (eps = 0 and zero TD errors).
  void draw(int64_t size, double* u, int64_t n, int32_t* slots, double* probabilities) override;
  /// min_i p_i^alpha / total, from the min tree.
  double min_probability(int64_t size) const override;
  int64_t memory_bytes() const override { return 0; }

 private:
  const PriorityTrees& trees_;
};

}  // namespace dqn::detail
