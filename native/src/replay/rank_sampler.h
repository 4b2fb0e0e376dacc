// Rank-based PER sampling (Schaul et al. 2016, sec. 3.3): slots ranked by priority, highest
// first, P(rank r) = r^-alpha / sum_{k=1..size} k^-alpha. The cumulative power law
// C(r) = sum_{k<=r} k^-alpha is precomputed once for every r <= N, so for any size the
// equal-probability segments of [0, C(size)) are known; one mass is drawn uniformly in each
// segment and mapped to its rank by binary search on C. Unlike the paper, which picks a rank
// uniformly inside each segment (an approximation of the power law), this inverts C exactly, so
// the draws follow P(rank) exactly and stay stratified.
// The ranking is rebuilt every `sort_interval` draws, not on every draw (paper, sec. 3.3: "the
// ranks are only recomputed periodically"): between sorts, priority updates do not move a slot's
// rank. Slots added since the last sort (the buffer grew) hold the max priority, so they rank
// first, newest first; slots overwritten after the buffer wrapped keep their old rank until the
// next sort.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "replay/index_sampler.h"
#include "replay/priority_trees.h"

namespace dqn::detail {

class RankSampler final : public IndexSampler {
 public:
  /// Ranks by the leaf priorities of `trees`; capacity N bounds the precomputed power law.
  RankSampler(const PriorityTrees& trees, int64_t capacity, double alpha, int64_t sort_interval);
  /// Sorts first when this is the first draw or sort_interval draws have passed since the last sort.
  void draw(int64_t size, double* u, int64_t n, int32_t* slots, double* probabilities) override;
  /// P(rank = size), the least likely rank.
  double min_probability(int64_t size) const override;
  int64_t memory_bytes() const override;

 private:
  /// Orders slots [0, size) by leaf priority descending (ties: lower slot first).
  void sort(int64_t size);
  /// C(r) - C(r - 1): the width of rank r's interval, r^-alpha up to rounding. P(r) is this over
  /// C(size), so the probabilities are exactly those of the intervals the draws fall in.
  double rank_mass(int64_t r) const;
  /// The slot at rank r (1-based) in the current ranking of `size` stored slots.
  int32_t slot_at_rank(int64_t r, int64_t size) const;

  const PriorityTrees& trees_;
  int64_t sort_interval_;
  std::vector<double> cumulative_;  ///< C(r) for r in [0, N], C(0) = 0
  std::vector<int32_t> order_;      ///< slots by rank at the last sort
  std::vector<std::pair<double, int32_t>> keyed_;  ///< sort keys (-priority, slot), reused
  int64_t sorted_size_ = 0;         ///< size at the last sort
  int64_t draws_since_sort_ = 0;
  bool sorted_ = false;
};

}  // namespace dqn::detail
