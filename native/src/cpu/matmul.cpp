// CPU matrix products: cblas dispatch and the portable cache-blocked loops (see matmul.h).
#include "cpu/matmul.h"

#include <algorithm>
#include <cstring>
#include <vector>

#ifdef DQN_HAVE_CBLAS
#include <cblas.h>

#include <mutex>
#endif

namespace dqn::cpu {
namespace detail {
namespace {

constexpr int64_t kRowBlock = 4;    // rows of C updated together: each B row loaded serves 4
constexpr int64_t kDepthBlock = 128; // k-panel of B kept in L2
constexpr int64_t kColBlock = 256;   // columns of C kept in L1 (4 rows x 1 KiB)

// C[M x N] (+)= A·B[K x N], where A(i, kk) = a[i * a_row + kk * a_col]. The inner loop runs
// over contiguous columns of B and C and vectorizes; each element of C sums k in order, so
// the result does not depend on the blocking.
void BlockedProduct(int64_t m, int64_t n, int64_t k, const float* a, int64_t a_row, int64_t a_col,
                    const float* b, float* c, bool accumulate) {
  if (!accumulate) std::fill(c, c + m * n, 0.0f);
  for (int64_t j0 = 0; j0 < n; j0 += kColBlock) {
    const int64_t nj = std::min(kColBlock, n - j0);
    for (int64_t k0 = 0; k0 < k; k0 += kDepthBlock) {
      const int64_t k1 = std::min(k, k0 + kDepthBlock);
      int64_t i0 = 0;
      for (; i0 + kRowBlock <= m; i0 += kRowBlock) {
        float* __restrict c0 = c + (i0 + 0) * n + j0;
        float* __restrict c1 = c + (i0 + 1) * n + j0;
        float* __restrict c2 = c + (i0 + 2) * n + j0;
        float* __restrict c3 = c + (i0 + 3) * n + j0;
        for (int64_t kk = k0; kk < k1; ++kk) {
          const float* __restrict br = b + kk * n + j0;
          const float a0 = a[(i0 + 0) * a_row + kk * a_col];
          const float a1 = a[(i0 + 1) * a_row + kk * a_col];
          const float a2 = a[(i0 + 2) * a_row + kk * a_col];
          const float a3 = a[(i0 + 3) * a_row + kk * a_col];
          for (int64_t j = 0; j < nj; ++j) {
            const float bv = br[j];
            c0[j] += a0 * bv;
            c1[j] += a1 * bv;
            c2[j] += a2 * bv;
            c3[j] += a3 * bv;
          }
        }
      }
      for (; i0 < m; ++i0) {
        float* __restrict c0 = c + i0 * n + j0;
        for (int64_t kk = k0; kk < k1; ++kk) {
          const float* __restrict br = b + kk * n + j0;
          const float a0 = a[i0 * a_row + kk * a_col];
          for (int64_t j = 0; j < nj; ++j) c0[j] += a0 * br[j];
        }
      }
    }
  }
}

}  // namespace
}  // namespace detail

#ifdef DQN_HAVE_CBLAS
namespace {
// One BLAS thread: deterministic results, and the learner owns the cores it is given.
void PinBlasThreads() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}
void Sgemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const float* a,
           int64_t lda, const float* b, int64_t ldb, float* c, bool accumulate) {
  PinBlasThreads();
  cblas_sgemm(CblasRowMajor, ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0f,
              a, static_cast<int>(lda), b, static_cast<int>(ldb), accumulate ? 1.0f : 0.0f, c,
              static_cast<int>(n));
}
}  // namespace
#endif

void MatMul(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c, bool accumulate,
            GemmImpl impl) {
#ifdef DQN_HAVE_CBLAS
  if (impl == GemmImpl::kAuto) return Sgemm(CblasNoTrans, CblasNoTrans, m, n, k, a, k, b, n, c, accumulate);
#endif
  (void)impl;
  detail::BlockedProduct(m, n, k, a, k, 1, b, c, accumulate);
}

void MatMulAT(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c, bool accumulate,
              GemmImpl impl) {
#ifdef DQN_HAVE_CBLAS
  if (impl == GemmImpl::kAuto) return Sgemm(CblasTrans, CblasNoTrans, m, n, k, a, m, b, n, c, accumulate);
#endif
  (void)impl;
  detail::BlockedProduct(m, n, k, a, 1, m, b, c, accumulate);
}

void MatMulBT(int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c, bool accumulate,
              GemmImpl impl) {
#ifdef DQN_HAVE_CBLAS
  if (impl == GemmImpl::kAuto) return Sgemm(CblasNoTrans, CblasTrans, m, n, k, a, k, b, k, c, accumulate);
#endif
  (void)impl;
  // Transpose B [N x K] into a per-thread scratch [K x N], then the contiguous-row product.
  thread_local std::vector<float> bt;
  bt.resize(static_cast<size_t>(n * k));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t kk = 0; kk < k; ++kk) bt[static_cast<size_t>(kk * n + j)] = b[j * k + kk];
  detail::BlockedProduct(m, n, k, a, k, 1, bt.data(), c, accumulate);
}

const char* GemmBackendName() {
#ifdef DQN_HAVE_CBLAS
  return "cblas";
#else
  return "portable";
#endif
}

}  // namespace dqn::cpu
