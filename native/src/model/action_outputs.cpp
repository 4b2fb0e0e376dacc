// A head's plain or dueling output layer (see action_outputs.h).
#include "model/action_outputs.h"

#include <stdexcept>
#include <utility>

#include "model/dense.h"
#include "rules/step_rules.h"

namespace dqn {

ActionOutputs::ActionOutputs(int features, int n_actions, int per_action, bool dueling, std::string plain_name)
    : features_(features), n_actions_(n_actions), per_action_(per_action), dueling_(dueling), plain_name_(std::move(plain_name)) {
  if (features < 1 || n_actions < 1 || per_action < 1)
    throw std::invalid_argument("a head needs >= 1 feature, action and output per action, got " + std::to_string(features) +
                                ", " + std::to_string(n_actions) + " and " + std::to_string(per_action));
}

ActionOutputs::Buffers::Buffers(const ActionOutputs& o, int64_t max_rows)
    : out(static_cast<size_t>(max_rows * o.width())), grad(out.size()),
      value(o.dueling_ ? static_cast<size_t>(max_rows * o.per_action_) : 0), advantage(o.dueling_ ? out.size() : 0),
      grad_value(value.size()), grad_adv(advantage.size()) {}

std::vector<LayerSpec> ActionOutputs::layers() const {
  if (!dueling_) return {{plain_name_, features_, width(), 1.0}};
  return {{"value", features_, per_action_, 1.0}, {"advantage", features_, width(), 1.0}};
}

void ActionOutputs::forward(std::span<const DenseView> p, const float* features, int64_t rows, Buffers& b) const {
  if (!dueling_) {
    DenseForward(p[0], features, rows, b.out.data(), /*relu=*/false);
    return;
  }
  DenseForward(p[0], features, rows, b.value.data(), false);
  DenseForward(p[1], features, rows, b.advantage.data(), false);
  // out_{a,j} = V_j + A_{a,j} - mean_a' A_{a',j}  (Wang et al. 2016, eq. 9)
  const int a = n_actions_, n = per_action_;
  for (int64_t r = 0; r < rows; ++r) {
    const float* v = b.value.data() + r * n;
    const float* adv = b.advantage.data() + r * width();
    float* o = b.out.data() + r * width();
    for (int j = 0; j < n; ++j) {
      float mean = 0;
      for (int k = 0; k < a; ++k) mean += adv[k * n + j];
      mean /= static_cast<float>(a);
      for (int k = 0; k < a; ++k) o[k * n + j] = rules::DuelingQ(v[j], adv[k * n + j], mean);
    }
  }
}

void ActionOutputs::backward(Buffers& b, std::span<const DenseView> p, const float* features, int64_t rows,
                             std::span<const DenseView> g, float* d_features, bool accumulate) const {
  if (!dueling_) {
    DenseBackward(p[0], features, b.grad.data(), rows, g[0], d_features, accumulate);
    return;
  }
  // dout_{a,j}/dV_j = 1 for every action; dout_{a,j}/dA_{k,j} = [a == k] - 1/A.
  const int a = n_actions_, n = per_action_;
  for (int64_t r = 0; r < rows; ++r) {
    const float* d = b.grad.data() + r * width();
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < a; ++k) sum += d[k * n + j];
      b.grad_value[static_cast<size_t>(r * n + j)] = sum;
      const float mean = sum / static_cast<float>(a);
      for (int k = 0; k < a; ++k) b.grad_adv[static_cast<size_t>(r * width() + k * n + j)] = d[k * n + j] - mean;
    }
  }
  DenseBackward(p[0], features, b.grad_value.data(), rows, g[0], d_features, accumulate);
  DenseBackward(p[1], features, b.grad_adv.data(), rows, g[1], d_features, /*accumulate=*/true);
}

}  // namespace dqn
