// The plain or dueling Q head (see q_head.h).
#include "model/q_head.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "model/dense.h"
#include "model/td_loss.h"
#include "rules/step_rules.h"

namespace dqn {
namespace {

/// The Q head's buffers for max_rows rows.
struct QState final : HeadState {
  QState(int64_t rows, int a)
      : q(static_cast<size_t>(rows * a)), value(static_cast<size_t>(rows)), advantage(q.size()), grad(q.size()),
        grad_value(value.size()), grad_adv(q.size()) {}
  std::vector<float> q;           ///< [rows x A] output
  std::vector<float> value;       ///< [rows] V (dueling)
  std::vector<float> advantage;   ///< [rows x A] A (dueling)
  std::vector<float> grad;        ///< [rows x A] dL/dQ
  std::vector<float> grad_value;  ///< [rows] dL/dV (dueling)
  std::vector<float> grad_adv;    ///< [rows x A] dL/dA (dueling)
};

QState& Cast(HeadState& s) { return static_cast<QState&>(s); }
const QState& Cast(const HeadState& s) { return static_cast<const QState&>(s); }

}  // namespace

QHead::QHead(int features, int n_actions, bool dueling) : features_(features), n_actions_(n_actions), dueling_(dueling) {
  if (features < 1 || n_actions < 1)
    throw std::invalid_argument("the Q head needs >= 1 feature and >= 1 action, got " + std::to_string(features) +
                                " and " + std::to_string(n_actions));
}

std::vector<LayerSpec> QHead::layers() const {
  if (!dueling_) return {{"q", features_, n_actions_, 1.0}};
  return {{"value", features_, 1, 1.0}, {"advantage", features_, n_actions_, 1.0}};
}

std::unique_ptr<HeadState> QHead::make_state(int64_t max_rows) const {
  return std::make_unique<QState>(max_rows, n_actions_);
}

void QHead::forward(std::span<const DenseView> p, const float* features, int64_t rows, const ForwardContext&,
                    HeadState& state) const {
  QState& s = Cast(state);
  if (!dueling_) {
    DenseForward(p[0], features, rows, s.q.data(), /*relu=*/false);
    return;
  }
  const int a = n_actions_;
  DenseForward(p[0], features, rows, s.value.data(), false);
  DenseForward(p[1], features, rows, s.advantage.data(), false);
  // Q(s, a) = V(s) + A(s, a) - mean_a' A(s, a')  (Wang et al. 2016, eq. 9)
  for (int64_t r = 0; r < rows; ++r) {
    const float* ar = s.advantage.data() + r * a;
    float mean = 0;
    for (int j = 0; j < a; ++j) mean += ar[j];
    mean /= static_cast<float>(a);
    float* qr = s.q.data() + r * a;
    for (int j = 0; j < a; ++j) qr[j] = rules::DuelingQ(s.value[static_cast<size_t>(r)], ar[j], mean);
  }
}

std::span<float> QHead::outputs(HeadState& s, int64_t rows) const {
  return {Cast(s).q.data(), static_cast<size_t>(rows * n_actions_)};
}

void QHead::q_values(const HeadState& s, int64_t rows, float* q) const {
  const float* src = Cast(s).q.data();
  std::copy(src, src + rows * n_actions_, q);
}

HeadLoss QHead::loss(const LossBatch& batch, HeadState& online, const HeadState& target, float* td) const {
  QState& on = Cast(online);
  const int64_t b = batch.batch;
  const TdInputs in{on.q.data(), on.q.data() + b * n_actions_, Cast(target).q.data(), batch.actions, batch.rewards,
                    batch.discounts, batch.weights, b, n_actions_};
  const TdLoss l = ComputeTdLoss(in, batch.double_dqn, batch.huber_delta, td, on.grad.data());
  return {l.loss, l.td_mse};
}

void QHead::q_gradient(HeadState& s, const float* dq, int64_t rows) const {
  std::copy(dq, dq + rows * n_actions_, Cast(s).grad.data());
}

std::span<float> QHead::output_gradient(HeadState& s, int64_t rows) const {
  return {Cast(s).grad.data(), static_cast<size_t>(rows * n_actions_)};
}

void QHead::backward(HeadState& state, std::span<const DenseView> p, const float* features, int64_t rows,
                     std::span<const DenseView> g, float* d_features, bool accumulate) const {
  QState& s = Cast(state);
  const float* dq = s.grad.data();
  if (!dueling_) {
    DenseBackward(p[0], features, dq, rows, g[0], d_features, accumulate);
    return;
  }
  // dQ/dV = 1 for every action; dQ_j/dA_k = [j == k] - 1/A.
  const int a = n_actions_;
  for (int64_t r = 0; r < rows; ++r) {
    const float* dqr = dq + r * a;
    float sum = 0;
    for (int j = 0; j < a; ++j) sum += dqr[j];
    s.grad_value[static_cast<size_t>(r)] = sum;
    const float mean = sum / static_cast<float>(a);
    for (int j = 0; j < a; ++j) s.grad_adv[static_cast<size_t>(r * a + j)] = dqr[j] - mean;
  }
  DenseBackward(p[0], features, s.grad_value.data(), rows, g[0], d_features, accumulate);
  DenseBackward(p[1], features, s.grad_adv.data(), rows, g[1], d_features, /*accumulate=*/true);
}

}  // namespace dqn
