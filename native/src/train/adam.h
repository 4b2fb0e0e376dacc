// Adam (Kingma & Ba 2015, Algorithm 1) over a flat parameter buffer, with global gradient-norm
// clipping as in PyTorch's clip_grad_norm_ (Pascanu et al. 2013): one norm over all tensors,
// gradients scaled by min(1, max_norm / (norm + 1e-6)).
#pragma once
#include <cstdint>

#include "train/learner_config.h"

namespace dqn {

/// L2 norm of g [n], accumulated in f64 in index order (deterministic). NaN/Inf propagate.
double GlobalNorm(const float* g, int64_t n);

/// One Adam update at step t >= 1 (1-based, the bias corrections use it) of w [n] with the
/// gradient grad_scale * g [n]; m and v [n] are the first and second moment estimates; each
/// element by rules::AdamElement (native/src/rules/step_rules.h), the kernels' rule.
void AdamUpdate(const AdamConfig& c, int64_t t, float grad_scale, const float* g, float* w, float* m, float* v,
                int64_t n);

}  // namespace dqn
