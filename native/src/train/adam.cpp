// Adam and global gradient-norm clipping (see adam.h).
#include "train/adam.h"

#include <algorithm>
#include <cmath>

namespace dqn {

double GlobalNorm(const float* g, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(g[i]) * g[i];
  return std::sqrt(sum);
}

double ScheduledLearningRate(double lr, double lr_end, int64_t decay_steps, int64_t t) {
  if (decay_steps <= 0) return lr;
  const double progress = std::min(1.0, static_cast<double>(t - 1) / static_cast<double>(decay_steps));
  return lr + (lr_end - lr) * progress;
}

double ClipCoefficient(double norm, double max_norm) {
  if (max_norm <= 0) return 1.0;
  const double c = max_norm / (norm + 1e-6);
  return c < 1.0 ? c : 1.0;
}

void AdamUpdate(const AdamConfig& c, int64_t t, float grad_scale, const float* g, float* w, float* m, float* v,
                int64_t n) {
  const double td = static_cast<double>(t);
  // 1 - beta is formed in f64: in f32, 1 - 0.999f is off by 1.3e-5 relative.
  const float b1 = static_cast<float>(c.beta1), b2 = static_cast<float>(c.beta2);
  const float one_minus_b1 = static_cast<float>(1.0 - c.beta1), one_minus_b2 = static_cast<float>(1.0 - c.beta2);
  const float step_size = static_cast<float>(c.lr / (1.0 - std::pow(c.beta1, td)));
  const float inv_sqrt_bc2 = static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(c.beta2, td)));
  const float eps = static_cast<float>(c.eps);
  for (int64_t i = 0; i < n; ++i) {
    const float gi = g[i] * grad_scale;
    m[i] = b1 * m[i] + one_minus_b1 * gi;
    v[i] = b2 * v[i] + one_minus_b2 * gi * gi;
    w[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_bc2 + eps);
  }
}

}  // namespace dqn
