// Helpers the Hopper probes share (bench/wgmma_probe.cu, bench/tile_probe.cu): a CUDA error check
// that exits, the operands' values, and wgmma's shared-memory matrix descriptor for the layout
// both probes stage.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_OK(x)                                                                              \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

/// A shared-memory pointer as the 32-bit address PTX's shared state space takes.
__device__ __forceinline__ uint32_t SmemAddr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

/// wgmma's matrix descriptor for a K-major operand without swizzle, in core matrices of 8 rows x
/// 16 bytes: start address, leading byte offset 128 (the next core matrix along K), stride byte
/// offset 256 (the next 8 rows or columns).
__device__ __forceinline__ uint64_t Descriptor(const void* smem) {
  const uint64_t addr = SmemAddr(smem);
  return ((addr & 0x3FFFF) >> 4) | (uint64_t{128 >> 4} << 16) | (uint64_t{256 >> 4} << 32);
}

/// Fills a, then b, with uniform values in [-1, 1) from one fixed LCG stream (seed 12345).
inline void FillUniform(std::vector<float>& a, std::vector<float>& b) {
  uint64_t s = 12345;
  auto uniform = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>((s >> 40) * (1.0 / (1ull << 24))) * 2.0f - 1.0f;
  };
  for (float& v : a) v = uniform();
  for (float& v : b) v = uniform();
}
