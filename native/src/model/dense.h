// A dense layer's forward and backward passes on the CPU (f32, row-major), shared by the trunk and
// every head: y = x·W + b (W [in x out]) with an optional ReLU, and its gradients.
#pragma once
#include <cstdint>

#include "model/param_layout.h"

namespace dqn {

/// y [rows x out] = x [rows x in]·W + b, then ReLU when relu is true.
void DenseForward(const DenseView& d, const float* x, int64_t rows, float* y, bool relu);

/// From dL/dy [rows x out]: dW = xᵀ·dy and db = the column sums of dy (rows in order) written into
/// g, and dx [rows x in] = dy·Wᵀ (added to dx when accumulate; skipped when dx is null).
void DenseBackward(const DenseView& d, const float* x, const float* dy, int64_t rows, const DenseView& g, float* dx,
                   bool accumulate);

}  // namespace dqn
