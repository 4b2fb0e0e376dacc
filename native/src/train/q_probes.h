// Diagnostics of the online network on a sampled batch (DESIGN section 4): Q-statistics and the
// causal sensitivity probe. They write into the scalar block on their own schedules.
#pragma once
#include <cstdint>
#include <vector>

#include "env/vec_env.h"
#include "model/q_network.h"

namespace dqn {

/// Statistics of Q over a batch: over all B x A values, and mean over the batch of max_a Q.
struct QStats {
  double mean = 0, min = 0, max = 0, var = 0, mean_max = 0;  ///< var: population variance
};

/// Q-stats of q [rows x n_actions] (f64 accumulation, two passes for the variance).
QStats ComputeQStats(const float* q, int64_t rows, int n_actions);

/// Causal sensitivity (DESIGN section 4): for each feature group in `features` (one market
/// feature at all its lags), the intervention do(f) replaces each of the group's columns of
/// states [rows x D] by its batch mean, and the probe measures mean over rows x actions of
/// |Q(s) - Q(s_do(f))|, Q the main head's Q-values. q_ref [rows x A] holds Q(s), from a Forward
/// with the same `ctx` as the interventions'.
/// Writes per_feature[k] for features[k] and returns their mean (0 for no feature).
/// `scratch` is resized to rows x D; ws must hold `rows` rows.
double CausalSensitivity(const ParamLayout& layout, const ParamView& p, const float* states, const float* q_ref,
                         int64_t rows, const std::vector<FeatureGroup>& features, Workspace& ws, std::vector<float>& scratch,
                         double* per_feature, const ForwardContext& ctx = {});

}  // namespace dqn
