// The plain or dueling Q head (see q_head.h).
#include "model/q_head.h"

#include <algorithm>

#include "model/td_loss.h"

namespace dqn {
namespace {

/// The Q head's buffers: Q [rows x A] in `out`, dL/dQ in `grad`.
struct QState final : HeadState {
  QState(const ActionOutputs& o, int64_t rows) : b(o, rows) {}
  ActionOutputs::Buffers b;
};

QState& Cast(HeadState& s) { return static_cast<QState&>(s); }
const QState& Cast(const HeadState& s) { return static_cast<const QState&>(s); }

}  // namespace

QHead::QHead(int features, int n_actions, bool dueling)
    : n_actions_(n_actions), outputs_(features, n_actions, 1, dueling, "q") {}

std::unique_ptr<HeadState> QHead::make_state(int64_t max_rows) const { return std::make_unique<QState>(outputs_, max_rows); }

void QHead::forward(std::span<const DenseView> p, const float* features, int64_t rows, const ForwardContext&,
                    HeadState& s) const {
  // Q(s, a) = V(s) + A(s, a) - mean_a' A(s, a')  (Wang et al. 2016, eq. 9), or one linear layer.
  outputs_.forward(p, features, rows, Cast(s).b);
}

std::span<float> QHead::outputs(HeadState& s, int64_t rows) const {
  return {Cast(s).b.out.data(), static_cast<size_t>(rows * n_actions_)};
}

void QHead::q_values(const HeadState& s, int64_t rows, float* q) const {
  const float* src = Cast(s).b.out.data();
  std::copy(src, src + rows * n_actions_, q);
}

HeadLoss QHead::loss(const LossBatch& batch, HeadState& online, const HeadState& target, float* td) const {
  ActionOutputs::Buffers& on = Cast(online).b;
  const int64_t b = batch.batch;
  const TdInputs in{on.out.data(), on.out.data() + b * n_actions_, Cast(target).b.out.data(), batch.actions, batch.rewards,
                    batch.discounts, batch.weights, b, n_actions_};
  const TdLoss l = ComputeTdLoss(in, batch.double_dqn, batch.huber_delta, td, on.grad.data());
  return {l.loss, l.td_mse};
}

void QHead::q_gradient(HeadState& s, const float* dq, int64_t rows) const {
  std::copy(dq, dq + rows * n_actions_, Cast(s).b.grad.data());
}

std::span<float> QHead::output_gradient(HeadState& s, int64_t rows) const {
  return {Cast(s).b.grad.data(), static_cast<size_t>(rows * n_actions_)};
}

void QHead::backward(HeadState& s, std::span<const DenseView> p, const float* features, int64_t rows,
                     std::span<const DenseView> g, float* d_features, bool accumulate) const {
  outputs_.backward(Cast(s).b, p, features, rows, g, d_features, accumulate);
}

}  // namespace dqn
