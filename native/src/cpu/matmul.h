// CPU matrix products for the learner (f32, row-major): C = A·B, C = A·Bᵀ, C = Aᵀ·B.
// Through cblas (OpenBLAS, one thread) when the build defines DQN_HAVE_CBLAS, through the
// portable cache-blocked loops below otherwise. Both paths are deterministic: the same inputs
// give bit-identical outputs on every call (OpenBLAS is pinned to one thread, whose blocking
// depends only on the shapes); the two paths agree to f32 rounding, not bit for bit.
//
// Example (a test runs the same numbers through the `_testing.matmul` binding):
//   float a[] = {1, 2, 3, 4, 5, 6};         // A: 2 x 3
//   float b[] = {1, 0, 0, 1, 1, 1};         // B: 3 x 2
//   float c[4];
//   dqn::cpu::MatMul(2, 2, 3, a, b, c);     // C = {4, 5, 10, 11}
#pragma once
#include <cstdint>

namespace dqn::cpu {

/// Which implementation runs a product.
enum class GemmImpl {
  kAuto,     ///< cblas when compiled in, else the portable loops
  kPortable  ///< always the portable loops (the fallback, and a test reference)
};

/// C[M x N] (+)= A[M x K] · B[K x N]. With accumulate = false C is overwritten.
void MatMul(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
            bool accumulate = false, GemmImpl impl = GemmImpl::kAuto);

/// C[M x N] (+)= A[M x K] · Bᵀ, where B is stored [N x K].
void MatMulBT(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
              bool accumulate = false, GemmImpl impl = GemmImpl::kAuto);

/// C[M x N] (+)= Aᵀ · B[K x N], where A is stored [K x M].
void MatMulAT(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c,
              bool accumulate = false, GemmImpl impl = GemmImpl::kAuto);

/// "cblas" when the products go through a BLAS, "portable" otherwise (shown in benchmarks).
const char* GemmBackendName();

}  // namespace dqn::cpu
