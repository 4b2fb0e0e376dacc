// The sum tree of proportional PER (Schaul et al. 2016, "Prioritized Experience Replay",
// sec. 3.3 and appendix B.2.1): leaves hold p_i^alpha in f64, internal nodes the sums of their
// children, so a prefix-sum search for a mass m in [0, total) finds slot i with probability
// p_i^alpha / total in O(log N).
#pragma once
#include <cstdint>

#include "replay/binary_tree.h"

namespace dqn::detail {

using SumTree = BinaryTree<SumOp>;

/// For each masses[k] (k < n) finds the leaf whose prefix-sum interval contains it and writes its
/// slot to slots[k]. Descent rule: go left iff m < left child sum, else subtract the left sum and
/// go right (strict, so a zero-priority leaf is never chosen by an exact boundary mass). A mass
/// at or above the root is clamped to the largest double below it, and a step right into a
/// zero-sum subtree (possible only through rounding of the subtractions) goes left instead, so
/// the result is always a leaf with a positive priority, hence a stored slot.
/// Requires tree.root() > 0 and masses >= 0. The n descents advance level by level together so
/// that their independent memory loads overlap.
void FindByMass(const SumTree& tree, double* masses, int64_t n, int32_t* slots);

}  // namespace dqn::detail
