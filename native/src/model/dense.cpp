// Dense layer forward and backward (see dense.h).
#include "model/dense.h"

#include <algorithm>

#include "cpu/matmul.h"

namespace dqn {

void DenseForward(const DenseView& d, const float* x, int64_t rows, float* y, bool relu) {
  cpu::MatMul(rows, d.out, d.in, x, d.w, y);
  for (int64_t r = 0; r < rows; ++r) {
    float* yr = y + r * d.out;
    for (int j = 0; j < d.out; ++j) {
      const float v = yr[j] + d.b[j];
      yr[j] = relu ? std::max(v, 0.0f) : v;
    }
  }
}

void DenseBackward(const DenseView& d, const float* x, const float* dy, int64_t rows, const DenseView& g, float* dx,
                   bool accumulate) {
  cpu::MatMulAT(d.in, d.out, rows, x, dy, g.w);
  std::fill(g.b, g.b + d.out, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int j = 0; j < d.out; ++j) g.b[j] += dy[r * d.out + j];
  if (dx) cpu::MatMulBT(rows, d.in, d.out, dy, d.w, dx, accumulate);
}

}  // namespace dqn
