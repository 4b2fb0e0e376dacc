// Level-synchronous prefix-sum descent of the sum tree (see sum_tree.h).
#include "replay/sum_tree.h"

#include <cmath>

namespace dqn::detail {

void FindByMass(const SumTree& tree, double* masses, int64_t n, int32_t* slots) {
  const double* nodes = tree.nodes();
  const int32_t leaves = static_cast<int32_t>(tree.leaf_count());
  const double below_total = std::nextafter(tree.root(), 0.0);
  // slots[k] holds the current node during the descent (nodes < 2P <= 2^31: capacity is at
  // most 2^30, see ValidateReplayConfig), and the leaf's slot at the end.
  for (int64_t k = 0; k < n; ++k) {
    if (masses[k] > below_total) masses[k] = below_total;
    slots[k] = 1;
  }
  for (int32_t width = leaves; width > 1; width >>= 1) {
    const bool inner = width > 2;  // the nodes chosen at this level have children
    for (int64_t k = 0; k < n; ++k) {
      const int32_t left = 2 * slots[k];
      const double left_sum = nodes[left];
      int32_t next = left;
      if (!(masses[k] < left_sum) && nodes[left + 1] > 0.0) {
        masses[k] -= left_sum;
        next = left + 1;
      }
      slots[k] = next;
      // Start loading the next level's children now: the n loads of a level then overlap
      // with the rest of this level instead of waiting for the next pass.
      if (inner) __builtin_prefetch(&nodes[2 * static_cast<int64_t>(next)]);
    }
  }
  for (int64_t k = 0; k < n; ++k) slots[k] -= leaves;
}

}  // namespace dqn::detail
