// Device-memory helpers shared by the CUDA replay and the CUDA learner: carving aligned
// sub-buffers out of one allocation, and sizes in GiB for out-of-memory messages.
// Compiled only with the CUDA backend (DQN_WITH_CUDA).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

namespace dqn::cuda {

/// Sub-buffers start on this boundary (coalescing, and 16-byte vector loads).
inline constexpr size_t kCarveAlign = 256;

/// Carves aligned sub-buffers out of one block: a first pass (base null) only measures.
///   Carver measure(nullptr); layout(measure); cudaMalloc(&block, measure.used());
///   Carver place(block); layout(place);   // the same calls, now with real pointers
class Carver {
 public:
  explicit Carver(void* base) : base_(static_cast<char*>(base)) {}
  template <typename T>
  T* take(int64_t count) {
    T* p = base_ ? reinterpret_cast<T*>(base_ + used_) : nullptr;
    used_ += (sizeof(T) * static_cast<size_t>(count) + kCarveAlign - 1) / kCarveAlign * kCarveAlign;
    return p;
  }
  size_t used() const { return used_; }

 private:
  char* base_;
  size_t used_ = 0;
};

/// Carves the nine arrays of a sampled batch of `b` rows (host SampleBatch or device SampleView:
/// the same field names) in one order for every caller; callers carve their extras after it.
template <typename Batch>
void CarveBatch(Carver& c, Batch& v, int64_t b, int64_t state_dim) {
  v.indices = c.take<int32_t>(b);
  v.generations = c.take<uint32_t>(b);
  v.weights = c.take<float>(b);
  v.states = c.take<float>(b * state_dim);
  v.actions = c.take<int32_t>(b);
  v.rewards = c.take<float>(b);
  v.next_states = c.take<float>(b * state_dim);
  v.dones = c.take<uint8_t>(b);
  v.discounts = c.take<float>(b);
}

/// Carves the six arrays of `rows` transitions (any struct with these field names: an insert's
/// rows, the collector's rows, the replay's staging) in one order for every caller: states and
/// next_states [rows x state_dim] f32, actions i32, rewards f32, discounts f32, dones u8.
template <typename Rows>
void CarveTransitions(Carver& c, Rows& v, int64_t rows, int64_t state_dim) {
  v.states = c.take<float>(rows * state_dim);
  v.next_states = c.take<float>(rows * state_dim);
  v.actions = c.take<int32_t>(rows);
  v.rewards = c.take<float>(rows);
  v.discounts = c.take<float>(rows);
  v.dones = c.take<uint8_t>(rows);
}

/// "3.80": bytes in GiB with two decimals.
inline std::string GiB(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

}  // namespace dqn::cuda
