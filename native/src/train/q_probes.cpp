// Q-statistics and causal sensitivity (see q_probes.h).
#include "train/q_probes.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dqn {

QStats ComputeQStats(const float* q, int64_t rows, int n_actions) {
  QStats s;
  const int64_t n = rows * n_actions;
  if (n == 0) return s;
  double sum = 0, sum_max = 0;
  s.min = std::numeric_limits<double>::infinity();
  s.max = -std::numeric_limits<double>::infinity();
  for (int64_t r = 0; r < rows; ++r) {
    double row_max = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < n_actions; ++j) {
      const double v = q[r * n_actions + j];
      sum += v;
      s.min = std::min(s.min, v);
      s.max = std::max(s.max, v);
      row_max = std::max(row_max, v);
    }
    sum_max += row_max;
  }
  s.mean = sum / static_cast<double>(n);
  s.mean_max = sum_max / static_cast<double>(rows);
  double ss = 0;
  for (int64_t i = 0; i < n; ++i) ss += (q[i] - s.mean) * (q[i] - s.mean);
  s.var = ss / static_cast<double>(n);
  return s;
}

double CausalSensitivity(const ParamLayout& layout, const ParamView& p, const float* states, const float* q_ref,
                         int64_t rows, const std::vector<FeatureGroup>& features, Workspace& ws, std::vector<float>& scratch,
                         double* per_feature, const ForwardContext& ctx) {
  const int d = layout.config().state_dim, a = layout.config().n_actions;
  scratch.assign(states, states + rows * d);
  double total = 0;
  for (size_t k = 0; k < features.size(); ++k) {
    for (const int f : features[k].indices) {  // do(f): every column of the group to its batch mean
      double mean = 0;
      for (int64_t r = 0; r < rows; ++r) mean += states[r * d + f];
      mean /= static_cast<double>(rows);
      for (int64_t r = 0; r < rows; ++r) scratch[static_cast<size_t>(r * d + f)] = static_cast<float>(mean);
    }
    Forward(layout, p, scratch.data(), rows, ws, ctx);
    double diff = 0;
    for (int64_t i = 0; i < rows * a; ++i) diff += std::fabs(static_cast<double>(q_ref[i]) - ws.q()[i]);
    per_feature[k] = diff / static_cast<double>(rows * a);
    total += per_feature[k];
    for (const int f : features[k].indices)  // undo
      for (int64_t r = 0; r < rows; ++r) scratch[static_cast<size_t>(r * d + f)] = states[r * d + f];
  }
  return features.empty() ? 0.0 : total / static_cast<double>(features.size());
}

}  // namespace dqn
