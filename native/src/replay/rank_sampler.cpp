// Rank-based sampling by inverting the cumulative power law (see rank_sampler.h).
#include "replay/rank_sampler.h"

#include <algorithm>
#include <cmath>

namespace dqn::detail {

RankSampler::RankSampler(const PriorityTrees& trees, int64_t capacity, double alpha, int64_t sort_interval)
    : trees_(trees), sort_interval_(sort_interval), cumulative_(static_cast<size_t>(capacity + 1)) {
  cumulative_[0] = 0.0;
  for (int64_t r = 1; r <= capacity; ++r)
    cumulative_[static_cast<size_t>(r)] = cumulative_[static_cast<size_t>(r - 1)] + std::pow(static_cast<double>(r), -alpha);
  order_.reserve(static_cast<size_t>(capacity));
  keyed_.reserve(static_cast<size_t>(capacity));
}

void RankSampler::sort(int64_t size) {
  // Sorting (priority, slot) pairs reads the leaves once, in order; a comparator that looked
  // the leaves up would miss the cache on almost every comparison at large N.
  keyed_.resize(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) keyed_[static_cast<size_t>(i)] = {-trees_.leaf(i), static_cast<int32_t>(i)};
  std::sort(keyed_.begin(), keyed_.end());
  order_.resize(static_cast<size_t>(size));
  for (int64_t r = 0; r < size; ++r) order_[static_cast<size_t>(r)] = keyed_[static_cast<size_t>(r)].second;
  sorted_size_ = size;
  draws_since_sort_ = 0;
  sorted_ = true;
}

int32_t RankSampler::slot_at_rank(int64_t r, int64_t size) const {
  const int64_t added = size - sorted_size_;  // slots [sorted_size_, size), newest first
  if (r <= added) return static_cast<int32_t>(size - r);
  return order_[static_cast<size_t>(r - added - 1)];
}

void RankSampler::draw(int64_t size, double* u, int64_t n, int32_t* slots, double* probabilities) {
  if (!sorted_ || draws_since_sort_ >= sort_interval_) sort(size);
  ++draws_since_sort_;
  const double total = cumulative_[static_cast<size_t>(size)];
  const double below_total = std::nextafter(total, 0.0);
  const double segment = total / static_cast<double>(n);
  const auto first = cumulative_.begin() + 1, last = cumulative_.begin() + 1 + size;
  for (int64_t k = 0; k < n; ++k) {
    const double m = std::min((static_cast<double>(k) + u[k]) * segment, below_total);
    // The rank r with C(r - 1) <= m < C(r).
    const int64_t r = (std::upper_bound(first, last, m) - first) + 1;
    slots[k] = slot_at_rank(r, size);
    probabilities[k] = rank_mass(r) / total;
  }
}

double RankSampler::min_probability(int64_t size) const {
  return rank_mass(size) / cumulative_[static_cast<size_t>(size)];
}

double RankSampler::rank_mass(int64_t r) const {
  return cumulative_[static_cast<size_t>(r)] - cumulative_[static_cast<size_t>(r - 1)];
}

int64_t RankSampler::memory_bytes() const {
  return static_cast<int64_t>(cumulative_.capacity() * sizeof(double) + order_.capacity() * sizeof(int32_t) +
                              keyed_.capacity() * sizeof(keyed_[0]));
}

}  // namespace dqn::detail
