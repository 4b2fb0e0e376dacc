// The two trees over the leaf priorities p_i^alpha that PER needs: the sum tree (sampling and
// P(i) = p_i^alpha / total) and the min tree (the buffer-wide max IS weight belongs to the
// smallest P(i); Schaul et al. 2016, sec. 3.4: weights are normalised by 1 / max_i w_i).
#pragma once
#include <cstdint>
#include <vector>

#include "replay/binary_tree.h"
#include "replay/sum_tree.h"

namespace dqn::detail {

using MinTree = BinaryTree<MinOp>;

/// Sum tree and min tree kept in step over the same slots.
class PriorityTrees {
 public:
  explicit PriorityTrees(int64_t capacity) : sum_(capacity), min_(capacity) {}

  /// Sets the leaf priority (p^alpha >= 0) of each slot in both trees and recomputes their
  /// ancestors. A zero priority enters the min tree as +inf: such a slot can never be sampled,
  /// so it does not bound the IS weights. `slots` sorted ascending without repeats.
  void assign(const int64_t* slots, const double* leaf_values, int64_t n);

  const SumTree& sum() const { return sum_; }
  double total() const { return sum_.root(); }
  /// Smallest positive leaf priority (+inf when there is none).
  double min_positive() const { return min_.root(); }
  double leaf(int64_t slot) const { return sum_.leaf(slot); }
  /// Bytes held by the two trees.
  int64_t memory_bytes() const { return 2 * 2 * sum_.leaf_count() * static_cast<int64_t>(sizeof(double)); }

 private:
  SumTree sum_;
  MinTree min_;
  std::vector<double> min_values_;
  std::vector<int64_t> scratch_;
};

}  // namespace dqn::detail
