// Structure-of-arrays ring storage of transitions (DESIGN section 3): states [N x D],
// next_states [N x D], actions [N], rewards [N], dones [N], discounts [N] and a per-slot
// generation [N], all allocated once. Writes go to the cursor and wrap around, overwriting the
// oldest transition; every write of a slot bumps its generation, so a sampled (index, generation)
// pair tells whether the slot still holds the transition that was sampled.
#pragma once
#include <cstdint>
#include <vector>

#include "replay/replay.h"

namespace dqn::detail {

class TransitionStore {
 public:
  /// Allocates capacity N x state_dim D (throws std::bad_alloc when memory runs out).
  TransitionStore(int64_t capacity, int state_dim);

  /// Throws std::invalid_argument naming the first bad element, e.g. "states[130] must be
  /// finite, got nan": non-finite state, next-state or reward values, actions < 0, dones other
  /// than 0 or 1, discounts outside [0, 1]; or null arrays / a negative count.
  void validate(const TransitionBatch& batch) const;

  /// Writes the batch at the cursor in order (later transitions overwrite earlier ones when the
  /// batch is longer than the capacity), discount = 1 - done when batch.discounts is null.
  /// Fills `written` with the distinct slots written, sorted ascending. Does not validate.
  void write(const TransitionBatch& batch, std::vector<int64_t>& written);

  /// Copies slots idx[k] (k < n) into the state, action, reward, next-state, done and discount
  /// arrays of `out` and their generations into out.generations.
  void gather(const int32_t* idx, int64_t n, const SampleBatch& out) const;

  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  int state_dim() const { return state_dim_; }
  /// Times slot has been written (0: never, 1 after its first insert).
  uint32_t generation(int64_t slot) const { return generations_[static_cast<size_t>(slot)]; }
  /// Bytes held by the arrays.
  int64_t memory_bytes() const;

 private:
  int64_t capacity_;
  int state_dim_;
  int64_t cursor_ = 0;
  int64_t size_ = 0;
  std::vector<float> states_, next_states_, rewards_, discounts_;
  std::vector<int32_t> actions_;
  std::vector<uint8_t> dones_;
  std::vector<uint32_t> generations_;
};

}  // namespace dqn::detail
