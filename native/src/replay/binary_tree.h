// A complete binary tree over P = next_pow2(capacity) leaves whose internal nodes combine their
// two children with an associative operation (sum for the sum tree, min for the min tree).
// Layout: nodes_[1] is the root, node n has children 2n and 2n+1, leaf i is nodes_[P + i];
// nodes_[0] is unused. Parents are always recomputed from their children, never adjusted by a
// delta: delta updates drift (in f32, 1 -> 1e8 -> 1 leaves a root of 0), recomputation keeps
// every internal node equal to the combination of its leaves (DESIGN section 3).
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace dqn::detail {

/// Smallest power of two >= n (n >= 1).
constexpr int64_t NextPow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

/// Combine rule of the sum tree: identity 0 (an empty slot adds nothing).
struct SumOp {
  static constexpr double kIdentity = 0.0;
  static double Combine(double a, double b) { return a + b; }
};

/// Combine rule of the min tree: identity +inf (an empty slot is never the minimum).
struct MinOp {
  static constexpr double kIdentity = std::numeric_limits<double>::infinity();
  static double Combine(double a, double b) { return std::min(a, b); }
};

/// The tree itself; every leaf starts at Op::kIdentity.
template <typename Op>
class BinaryTree {
 public:
  /// capacity >= 1 leaves are used; P = next_pow2(capacity) are allocated (2P doubles).
  explicit BinaryTree(int64_t capacity)
      : leaf_count_(NextPow2(capacity)), nodes_(static_cast<size_t>(2 * leaf_count_), Op::kIdentity) {}

  int64_t leaf_count() const { return leaf_count_; }
  double root() const { return nodes_[1]; }
  double leaf(int64_t slot) const { return nodes_[static_cast<size_t>(leaf_count_ + slot)]; }
  /// All 2P nodes (for descents that read children directly).
  const double* nodes() const { return nodes_.data(); }

  /// Writes values[k] into leaf slots[k] for k < n, then recomputes every ancestor of a written
  /// leaf from its two children, level by level up to the root, each ancestor once.
  /// `slots` must be sorted ascending without repeats; `scratch` is reused working memory.
  void assign(const int64_t* slots, const double* values, int64_t n, std::vector<int64_t>& scratch) {
    scratch.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) {
      const int64_t node = leaf_count_ + slots[k];
      nodes_[static_cast<size_t>(node)] = values[k];
      scratch[static_cast<size_t>(k)] = node;
    }
    int64_t m = n;
    while (m > 0 && scratch[0] > 1) {
      // Parents of a sorted node list are sorted: drop adjacent repeats while recomputing.
      int64_t out = 0;
      for (int64_t k = 0; k < m; ++k) {
        const int64_t parent = scratch[static_cast<size_t>(k)] >> 1;
        if (out > 0 && scratch[static_cast<size_t>(out - 1)] == parent) continue;
        nodes_[static_cast<size_t>(parent)] =
            Op::Combine(nodes_[static_cast<size_t>(2 * parent)], nodes_[static_cast<size_t>(2 * parent + 1)]);
        scratch[static_cast<size_t>(out++)] = parent;
      }
      m = out;
    }
  }

 private:
  int64_t leaf_count_;
  std::vector<double> nodes_;
};

}  // namespace dqn::detail
