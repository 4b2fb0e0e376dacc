// Adam (Kingma & Ba 2015, Algorithm 1) over a flat parameter buffer, with global gradient-norm
// clipping as in PyTorch's clip_grad_norm_ (Pascanu et al. 2013): one norm over all tensors,
// gradients scaled by min(1, max_norm / (norm + 1e-6)).
#pragma once
#include <cstdint>

namespace dqn {

/// Adam hyper-parameters.
struct AdamConfig {
  double lr = 2.5e-4;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
};

/// L2 norm of g [n], accumulated in f64 in index order (deterministic). NaN/Inf propagate.
double GlobalNorm(const float* g, int64_t n);

/// Factor the gradients are multiplied by: min(1, max_norm / (norm + 1e-6)); 1 when max_norm
/// is 0 (clipping off).
double ClipCoefficient(double norm, double max_norm);

/// Learning rate at step t (1-based) of a linear schedule from lr to lr_end over decay_steps
/// steps, then held at lr_end; decay_steps = 0 keeps lr constant.
double ScheduledLearningRate(double lr, double lr_end, int64_t decay_steps, int64_t t);

/// One Adam update at step t >= 1 (1-based, the bias corrections use it) of w [n] with the
/// gradient grad_scale * g [n]; m and v [n] are the first and second moment estimates:
///   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
///   w -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
/// (the form PyTorch uses; equal to Algorithm 1's m_hat / (sqrt(v_hat) + eps) scaled by lr).
void AdamUpdate(const AdamConfig& c, int64_t t, float grad_scale, const float* g, float* w, float* m, float* v,
                int64_t n);

}  // namespace dqn
