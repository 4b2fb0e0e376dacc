// Ring storage of transitions (see transition_store.h).
#include "replay/transition_store.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dqn::detail {
namespace {

template <typename T>
[[noreturn]] void BadElement(const char* array, int64_t i, const char* expected, T got) {
  std::ostringstream msg;
  msg << array << "[" << i << "] must be " << expected << ", got " << +got;
  throw std::invalid_argument(msg.str());
}

void CheckFinite(const char* array, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) BadElement(array, i, "finite", x[i]);
}

}  // namespace

TransitionStore::TransitionStore(int64_t capacity, int state_dim)
    : capacity_(capacity),
      state_dim_(state_dim),
      states_(static_cast<size_t>(capacity * state_dim)),
      next_states_(static_cast<size_t>(capacity * state_dim)),
      rewards_(static_cast<size_t>(capacity)),
      discounts_(static_cast<size_t>(capacity)),
      actions_(static_cast<size_t>(capacity)),
      dones_(static_cast<size_t>(capacity)),
      generations_(static_cast<size_t>(capacity), 0u) {}

void TransitionStore::validate(const TransitionBatch& b) const {
  if (b.count < 0) throw std::invalid_argument("transition count must be >= 0, got " + std::to_string(b.count));
  if (b.count == 0) return;
  if (!b.states || !b.actions || !b.rewards || !b.next_states || !b.dones)
    throw std::invalid_argument("states, actions, rewards, next_states and dones are required");
  const int64_t d = state_dim_;
  CheckFinite("states", b.states, b.count * d);
  CheckFinite("next_states", b.next_states, b.count * d);
  CheckFinite("rewards", b.rewards, b.count);
  for (int64_t i = 0; i < b.count; ++i) {
    if (b.actions[i] < 0) BadElement("actions", i, ">= 0", b.actions[i]);
    if (b.dones[i] > 1) BadElement("dones", i, "0 or 1", b.dones[i]);
    if (b.discounts && !(b.discounts[i] >= 0.0f && b.discounts[i] <= 1.0f))
      BadElement("discounts", i, "in [0, 1]", b.discounts[i]);
  }
}

void TransitionStore::write(const TransitionBatch& b, std::vector<int64_t>& written) {
  const size_t d = static_cast<size_t>(state_dim_);
  for (int64_t i = 0; i < b.count; ++i) {
    const size_t slot = static_cast<size_t>(cursor_);
    std::memcpy(&states_[slot * d], b.states + static_cast<size_t>(i) * d, d * sizeof(float));
    std::memcpy(&next_states_[slot * d], b.next_states + static_cast<size_t>(i) * d, d * sizeof(float));
    actions_[slot] = b.actions[i];
    rewards_[slot] = b.rewards[i];
    dones_[slot] = b.dones[i];
    discounts_[slot] = b.discounts ? b.discounts[i] : 1.0f - static_cast<float>(b.dones[i]);
    ++generations_[slot];
    cursor_ = cursor_ + 1 == capacity_ ? 0 : cursor_ + 1;
    size_ = std::min(size_ + 1, capacity_);
  }
  // The distinct slots written: the last min(count, N) positions before the cursor.
  const int64_t distinct = std::min(b.count, capacity_);
  written.resize(static_cast<size_t>(distinct));
  for (int64_t k = 0; k < distinct; ++k)
    written[static_cast<size_t>(k)] = (cursor_ - distinct + k + capacity_) % capacity_;
  std::sort(written.begin(), written.end());
}

void TransitionStore::gather(const int32_t* idx, int64_t n, const SampleBatch& out) const {
  const size_t d = static_cast<size_t>(state_dim_);
  for (int64_t k = 0; k < n; ++k) {
    const size_t slot = static_cast<size_t>(idx[k]);
    const size_t row = static_cast<size_t>(k) * d;
    std::memcpy(out.states + row, &states_[slot * d], d * sizeof(float));
    std::memcpy(out.next_states + row, &next_states_[slot * d], d * sizeof(float));
    out.actions[k] = actions_[slot];
    out.rewards[k] = rewards_[slot];
    out.dones[k] = dones_[slot];
    out.discounts[k] = discounts_[slot];
    out.generations[k] = generations_[slot];
  }
}

int64_t TransitionStore::memory_bytes() const {
  // states and next_states, then rewards, discounts, actions, dones, generations.
  const int64_t per_slot = 2 * state_dim_ * int64_t{sizeof(float)} + 2 * int64_t{sizeof(float)} +
                           int64_t{sizeof(int32_t)} + int64_t{sizeof(uint8_t)} + int64_t{sizeof(uint32_t)};
  return capacity_ * per_slot;
}

}  // namespace dqn::detail
