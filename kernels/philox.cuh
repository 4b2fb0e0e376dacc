// Philox4x32-10 counter-based random numbers (Salmon, Moraes, Dror, Shaw, "Parallel random
// numbers: as easy as 1, 2, 3", SC 2011), usable on the host and the device. A draw is a pure
// function of (counter, key), so the replay's sampler keeps only a counter in device memory:
// graph replays advance it on the device and a run is reproducible from its seed.
//
// Usage (checked against the paper's known-answer vectors in native/test/cuda/replay_cuda_tool.cpp):
//   dqn::Philox4x32 r = dqn::Philox4x32_10({0, 0, 0, 0}, {0, 0});  // {0x6627e8d5, 0xe169c58d, ...}
//   double u = dqn::UniformDouble(r.v[0], r.v[1]);                    // in [0, 1)
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define DQN_HD __host__ __device__ __forceinline__
#else
#define DQN_HD inline
#endif

namespace dqn {

/// Four 32-bit words: a counter or an output block.
struct Philox4x32 {
  uint32_t v[4];
};

namespace detail {
inline constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
inline constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

DQN_HD void MulHiLo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}
}  // namespace detail

/// Philox4x32 with 10 rounds: the 128-bit block for `counter` under the 64-bit `key`.
DQN_HD Philox4x32 Philox4x32_10(Philox4x32 counter, const uint32_t (&key_in)[2]) {
  uint32_t c0 = counter.v[0], c1 = counter.v[1], c2 = counter.v[2], c3 = counter.v[3];
  uint32_t k0 = key_in[0], k1 = key_in[1];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    detail::MulHiLo(detail::kPhiloxM0, c0, hi0, lo0);
    detail::MulHiLo(detail::kPhiloxM1, c2, hi1, lo1);
    const uint32_t n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
    k0 += detail::kPhiloxW0;
    k1 += detail::kPhiloxW1;
  }
  return Philox4x32{{c0, c1, c2, c3}};
}

/// A double in [0, 1) from 53 of the 64 bits of (hi, lo).
DQN_HD double UniformDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (static_cast<uint64_t>(hi) << 32 | lo) >> 11;
  return static_cast<double>(bits) * (1.0 / 9007199254740992.0);
}

}  // namespace dqn
