// Q-network forward and backward passes on the CPU (see q_network.h).
#include "model/q_network.h"

#include <algorithm>

#include "cpu/matmul.h"
#include "rules/step_rules.h"

namespace dqn {
namespace {

// y [rows x out] = x [rows x in]·W + b, then ReLU when relu is true.
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

// From dL/dy [rows x out]: dW = xᵀ·dy, db = column sums of dy (rows in order), and
// dx = dy·Wᵀ (added to dx when accumulate; skipped when dx is null).
void DenseBackward(const DenseView& d, const float* x, const float* dy, int64_t rows, DenseView& g, float* dx,
                   bool accumulate) {
  cpu::MatMulAT(d.in, d.out, rows, x, dy, g.w);
  std::fill(g.b, g.b + d.out, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int j = 0; j < d.out; ++j) g.b[j] += dy[r * d.out + j];
  if (dx) cpu::MatMulBT(rows, d.in, d.out, dy, d.w, dx, accumulate);
}

}  // namespace

Workspace::Workspace(const ParamLayout& layout, int64_t max_rows) : max_rows_(max_rows) {
  const auto n = [&](int64_t width) { return static_cast<size_t>(max_rows * width); };
  for (const auto& s : layout.trunk()) hidden_.emplace_back(n(s.out));
  const int a = layout.config().n_actions;
  value_.resize(n(1));
  advantage_.resize(n(a));
  q_.resize(n(a));
  grad_a_.resize(n(layout.max_width()));
  grad_b_.resize(n(layout.max_width()));
  grad_value_.resize(n(1));
  grad_adv_.resize(n(a));
}

void TrunkForward(const ParamView& p, const float* states, int64_t rows, Workspace& ws) {
  const float* x = states;
  for (size_t l = 0; l < p.trunk.size(); ++l) {
    DenseForward(p.trunk[l], x, rows, ws.hidden(l), /*relu=*/true);
    x = ws.hidden(l);
  }
}

void HeadForward(const ParamLayout& layout, const ParamView& p, int64_t rows, Workspace& ws) {
  const float* h = ws.features();
  if (!layout.config().dueling) {
    DenseForward(p.advantage, h, rows, ws.q(), /*relu=*/false);
    return;
  }
  const int a = layout.config().n_actions;
  DenseForward(p.value, h, rows, ws.value(), false);
  DenseForward(p.advantage, h, rows, ws.advantage(), false);
  // Q(s, a) = V(s) + A(s, a) - mean_a' A(s, a')  (Wang et al. 2016, eq. 9)
  for (int64_t r = 0; r < rows; ++r) {
    const float* ar = ws.advantage() + r * a;
    float mean = 0;
    for (int j = 0; j < a; ++j) mean += ar[j];
    mean /= static_cast<float>(a);
    float* qr = ws.q() + r * a;
    for (int j = 0; j < a; ++j) qr[j] = rules::DuelingQ(ws.value()[r], ar[j], mean);
  }
}

void Forward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws) {
  TrunkForward(p, states, rows, ws);
  HeadForward(layout, p, rows, ws);
}

void GreedyActions(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws,
                   int32_t* actions) {
  const int d = layout.config().state_dim, a = layout.config().n_actions;
  for (int64_t r0 = 0; r0 < rows; r0 += ws.max_rows()) {
    const int64_t n = std::min(ws.max_rows(), rows - r0);
    Forward(layout, p, states + r0 * d, n, ws);
    for (int64_t r = 0; r < n; ++r) {
      const float* qr = ws.q() + r * a;
      actions[r0 + r] = static_cast<int32_t>(std::max_element(qr, qr + a) - qr);
    }
  }
}

void HeadBackward(const ParamLayout& layout, const ParamView& p, const float* dq, int64_t rows, Workspace& ws,
                  ParamView& g, float* d_features, bool accumulate) {
  const float* h = ws.features();
  if (!layout.config().dueling) {
    DenseBackward(p.advantage, h, dq, rows, g.advantage, d_features, accumulate);
    return;
  }
  // dQ/dV = 1 for every action; dQ_j/dA_k = [j == k] - 1/A.
  const int a = layout.config().n_actions;
  for (int64_t r = 0; r < rows; ++r) {
    const float* dqr = dq + r * a;
    float sum = 0;
    for (int j = 0; j < a; ++j) sum += dqr[j];
    ws.grad_value()[r] = sum;
    const float mean = sum / static_cast<float>(a);
    for (int j = 0; j < a; ++j) ws.grad_adv()[r * a + j] = dqr[j] - mean;
  }
  DenseBackward(p.value, h, ws.grad_value(), rows, g.value, d_features, accumulate);
  DenseBackward(p.advantage, h, ws.grad_adv(), rows, g.advantage, d_features, /*accumulate=*/true);
}

void TrunkBackward(const ParamView& p, const float* states, int64_t rows, Workspace& ws, float* d_features,
                   ParamView& g) {
  float* dy = d_features;
  float* spare = (dy == ws.grad_a()) ? ws.grad_b() : ws.grad_a();
  for (size_t l = p.trunk.size(); l-- > 0;) {
    // Through the ReLU: the gradient passes where the activation was positive.
    const float* y = ws.hidden(l);
    const int64_t n = rows * p.trunk[l].out;
    for (int64_t i = 0; i < n; ++i)
      if (!(y[i] > 0.0f)) dy[i] = 0.0f;
    const float* x = l == 0 ? states : ws.hidden(l - 1);
    DenseBackward(p.trunk[l], x, dy, rows, g.trunk[l], l == 0 ? nullptr : spare, false);
    std::swap(dy, spare);
  }
}

void Backward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws,
              const float* dq, ParamView& g) {
  HeadBackward(layout, p, dq, rows, ws, g, ws.grad_a(), /*accumulate=*/false);
  TrunkBackward(p, states, rows, ws, ws.grad_a(), g);
}

}  // namespace dqn
