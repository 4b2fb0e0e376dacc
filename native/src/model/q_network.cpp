// Q-network forward and backward passes on the CPU (see q_network.h).
#include "model/q_network.h"

#include <algorithm>

#include "model/dense.h"

namespace dqn {

Workspace::Workspace(const ParamLayout& layout, int64_t max_rows) : max_rows_(max_rows) {
  const auto n = [&](int64_t width) { return static_cast<size_t>(max_rows * width); };
  for (const auto& s : layout.trunk()) hidden_.emplace_back(n(s.out));
  for (const auto& h : layout.heads()) heads_.push_back(h->make_state(max_rows));
  q_.resize(n(layout.config().n_actions));
  grad_a_.resize(n(layout.max_width()));
  grad_b_.resize(n(layout.max_width()));
}

void TrunkForward(const ParamView& p, const float* states, int64_t rows, Workspace& ws) {
  const float* x = states;
  for (size_t l = 0; l < p.trunk.size(); ++l) {
    DenseForward(p.trunk[l], x, rows, ws.hidden(l), /*relu=*/true);
    x = ws.hidden(l);
  }
}

void HeadsForward(const ParamLayout& layout, const ParamView& p, int64_t rows, const ForwardContext& ctx, Workspace& ws) {
  for (size_t k = 0; k < layout.heads().size(); ++k)
    layout.heads()[k]->forward(p.heads[k], ws.features(), rows, ctx, ws.head(k));
}

void Forward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws,
             const ForwardContext& ctx) {
  TrunkForward(p, states, rows, ws);
  HeadsForward(layout, p, rows, ctx, ws);
  layout.main_head().q_values(ws.head(0), rows, ws.q());
}

void GreedyActions(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws,
                   int32_t* actions, const ForwardContext& ctx) {
  const int d = layout.config().state_dim, a = layout.config().n_actions;
  for (int64_t r0 = 0; r0 < rows; r0 += ws.max_rows()) {
    const int64_t n = std::min(ws.max_rows(), rows - r0);
    Forward(layout, p, states + r0 * d, n, ws, ctx);
    for (int64_t r = 0; r < n; ++r) {
      const float* qr = ws.q() + r * a;
      actions[r0 + r] = static_cast<int32_t>(std::max_element(qr, qr + a) - qr);
    }
  }
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

void HeadsBackward(const ParamLayout& layout, const ParamView& p, std::span<const size_t> heads, const float* states,
                   int64_t rows, Workspace& ws, ParamView& g) {
  bool accumulate = false;
  for (const size_t k : heads) {
    layout.heads()[k]->backward(ws.head(k), p.heads[k], ws.features(), rows, g.heads[k], ws.grad_a(), accumulate);
    accumulate = true;
  }
  TrunkBackward(p, states, rows, ws, ws.grad_a(), g);
}

void Backward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws,
              const float* dq, ParamView& g) {
  layout.main_head().q_gradient(ws.head(0), dq, rows);
  const size_t main[] = {0};
  HeadsBackward(layout, p, main, states, rows, ws, g);
}

}  // namespace dqn
