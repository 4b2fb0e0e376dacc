// Adam and the global gradient norm (see adam.h); the element rule is rules::AdamElement.
#include "train/adam.h"

#include <cmath>

#include "rules/step_rules.h"

namespace dqn {

double GlobalNorm(const float* g, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(g[i]) * g[i];
  return std::sqrt(sum);
}

void AdamUpdate(const AdamConfig& c, int64_t t, float grad_scale, const float* g, float* w, float* m, float* v,
                int64_t n) {
  const rules::AdamConstants k = rules::MakeAdamConstants(c.beta1, c.beta2, c.eps);
  const rules::AdamScalars s = rules::AdamStepScalars(c.beta1, c.beta2, c.lr, t);
  for (int64_t i = 0; i < n; ++i) rules::AdamElement(k, s, g[i] * grad_scale, m[i], v[i], w[i]);
}

}  // namespace dqn
