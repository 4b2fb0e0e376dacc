// A device environment copy's reset stream (the host copy's xoshiro256**, cpu/rng.h) kept as
// four words at words + 4 i: loaded before the copy steps and stored after. Shared by every
// device environment (env_cartpole.cuh, env_trading.cuh).
#pragma once
#include <array>
#include <cstdint>

#include "cpu/rng.h"

namespace dqn::cuda::detail {

/// Copy i's reset stream, loaded from device memory.
__device__ inline Rng LoadCopyRng(const uint64_t* words, int i) {
  const uint64_t* w = words + 4 * static_cast<int64_t>(i);
  return Rng(std::array<uint64_t, 4>{w[0], w[1], w[2], w[3]});
}

/// Stores copy i's reset stream back.
__device__ inline void StoreCopyRng(uint64_t* words, int i, const Rng& rng) {
  const std::array<uint64_t, 4> s = rng.state();
  for (int k = 0; k < 4; ++k) words[4 * static_cast<int64_t>(i) + k] = s[k];
}

}  // namespace dqn::cuda::detail
