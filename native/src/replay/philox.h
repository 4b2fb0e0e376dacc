// Philox4x32-10, the counter-based random number generator of Salmon, Moraes, Dror and Shaw,
// "Parallel Random Numbers: As Easy as 1, 2, 3" (SC 2011), sec. 4.2 and the Random123 reference
// (philox.h: multipliers 0xD2511F53 / 0xCD9E8D57, Weyl key bumps 0x9E3779B9 / 0xBB67AE85,
// 10 rounds). Stateless: the output is a pure function of (counter, key), so the CPU replay
// and the CUDA backend draw identical numbers from the same seed without sharing state.
// Header-only and constexpr so that device code can include the same arithmetic.
#pragma once
#include <array>
#include <cstdint>

namespace dqn {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

namespace detail {
constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;

/// One Philox S-box round: two 32x32 -> 64 bit products, the high halves xored with the other
/// words and the key (Salmon et al. 2011, sec. 4.2, fig. 2).
constexpr PhiloxCounter PhiloxRound(const PhiloxCounter& c, const PhiloxKey& k) {
  const uint64_t p0 = static_cast<uint64_t>(kPhiloxM0) * c[0];
  const uint64_t p1 = static_cast<uint64_t>(kPhiloxM1) * c[2];
  return {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
          static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
}
}  // namespace detail

/// Philox4x32-10: 128 random bits for one 128-bit counter under a 64-bit key.
/// Known answer (Random123 kat_vectors): counter {0,0,0,0}, key {0,0} ->
/// {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8} (checked in native/test/replay_rng.test.ts).
constexpr PhiloxCounter Philox4x32_10(PhiloxCounter counter, PhiloxKey key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) key = {key[0] + detail::kPhiloxW0, key[1] + detail::kPhiloxW1};
    counter = detail::PhiloxRound(counter, key);
  }
  return counter;
}

/// A double uniform in [0, 1) with 53 random bits from two 32-bit words: 27 high bits of `hi`
/// and 26 high bits of `lo` (the genrand_res53 construction of Matsumoto and Nishimura's MT19937).
constexpr double UniformFromBits(uint32_t hi, uint32_t lo) {
  return (static_cast<double>(hi >> 5) * 67108864.0 + static_cast<double>(lo >> 6)) *
         (1.0 / 9007199254740992.0);
}

/// The key of a 64-bit seed: low word first.
constexpr PhiloxKey PhiloxKeyFromSeed(uint64_t seed) {
  return {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
}

}  // namespace dqn
