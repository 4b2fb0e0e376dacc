// Keeps the sum tree and the min tree in step (see priority_trees.h).
#include "replay/priority_trees.h"

#include <limits>

namespace dqn::detail {

void PriorityTrees::assign(const int64_t* slots, const double* leaf_values, int64_t n) {
  sum_.assign(slots, leaf_values, n, scratch_);
  min_values_.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    min_values_[static_cast<size_t>(k)] = leaf_values[k] > 0.0 ? leaf_values[k] : std::numeric_limits<double>::infinity();
  min_.assign(slots, min_values_.data(), n, scratch_);
}

}  // namespace dqn::detail
