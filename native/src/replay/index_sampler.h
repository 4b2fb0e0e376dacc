// The strategy that turns uniform random numbers into slot indices for the CPU replay:
// proportional (sum tree), rank-based, or uniform (Schaul et al. 2016, sec. 3.3; DESIGN
// section 3). Each draw comes with its probability P(i), from which the replay computes the
// IS weight.
#pragma once
#include <cstdint>

namespace dqn::detail {

class IndexSampler {
 public:
  virtual ~IndexSampler() = default;
  /// Draws n slots in [0, size) (size >= 1) from n uniforms u[k] in [0, 1), one per draw
  /// (u is used as scratch and overwritten), and writes each draw's probability P(slot).
  /// Throws std::runtime_error when no stored slot can be drawn.
  virtual void draw(int64_t size, double* u, int64_t n, int32_t* slots, double* probabilities) = 0;
  /// The smallest P(i) over the stored slots that can be drawn (size >= 1).
  virtual double min_probability(int64_t size) const = 0;
  /// Bytes of memory the sampler holds.
  virtual int64_t memory_bytes() const = 0;
};

}  // namespace dqn::detail
