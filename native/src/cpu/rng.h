// Host random streams: xoshiro256** (Blackman & Vigna 2018) seeded through SplitMix64, with a
// four-word state that checkpoints save and restore exactly. Used for weight init, exploration
// and environment resets on the CPU; the GPU uses counter-based Philox (DESIGN section 4), except
// for an environment copy on the device (the GPU collector), which draws its resets from the
// same stream as its host copy: next(), uniform() and below() are DQN_HD, one definition for both.
#pragma once
#include <array>
#include <cstdint>

#include "rules/exact_ops.h"

namespace dqn {

/// A seeded 64-bit generator; identical seeds give identical streams on every platform.
class Rng {
 public:
  /// `stream` separates independent streams drawn from one run seed (init, exploration, env i, ...).
  DQN_HD explicit Rng(uint64_t seed = 1, uint64_t stream = 0) {
    uint64_t x = seed ^ (0x9e3779b97f4a7c15ULL * (stream + 1));
    for (auto& w : s_) w = SplitMix(x);
  }
  /// A generator at a saved state (state()).
  DQN_HD explicit Rng(const std::array<uint64_t, 4>& s) : s_(s) {}
  /// Next 64 random bits.
  DQN_HD uint64_t next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  /// Uniform double in [0, 1) with 53 random bits.
  DQN_HD double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform double in [lo, hi): lo + (hi - lo) u, rounded after each operation on both sides.
  DQN_HD double uniform(double lo, double hi) { return rules::AddD(lo, rules::MulD(rules::SubD(hi, lo), uniform())); }
  /// Uniform integer in [0, n), n > 0 (Lemire's multiply-shift: the high 64 bits of next() * n;
  /// bias below 2^-32 for n < 2^32). The same value on the host and on the device.
  DQN_HD int64_t below(int64_t n) {
#ifdef __CUDA_ARCH__
    return static_cast<int64_t>(__umul64hi(next(), static_cast<uint64_t>(n)));
#else
    return static_cast<int64_t>((static_cast<unsigned __int128>(next()) * static_cast<uint64_t>(n)) >> 64);
#endif
  }
  /// The full state, for checkpoints.
  DQN_HD std::array<uint64_t, 4> state() const { return s_; }
  void set_state(const std::array<uint64_t, 4>& s) { s_ = s; }

 private:
  DQN_HD static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  DQN_HD static uint64_t SplitMix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::array<uint64_t, 4> s_{};
};

}  // namespace dqn
