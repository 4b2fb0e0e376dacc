// The training step's scalar rules, defined once (DESIGN section 4, "The step is defined once"):
// every function here is `constexpr` or inline and `__host__ __device__` under nvcc, so the CPU
// learner, the CPU and GPU replay and the CUDA kernels call the same arithmetic in the same
// order, as native/src/replay/philox.h does for random numbers. A rule written twice drifts.
//
// Rounding: device code may fuse a * b + c into one FMA, host code here does not (no -mfma, and
// CMake sets -ffp-contract=off). The f32 rules (Adam, Polyak) therefore spell every operation
// with AddF / MulF / ..., which are the IEEE round-to-nearest intrinsics on the device and the
// plain operators on the host: one result on both sides.
//
// Usage:
//   const double y = rules::BootstrapTarget(r, discount, q_target_next);  // n-step Double DQN
//   const double g = rules::WeightedHuberGrad(y - q, delta, w, 1.0 / B);   // dL/dQ(s, a)
//   const rules::AdamScalars s = rules::AdamStepScalars(adam, lr, t);
//   rules::AdamElement(s, b1, b2, eps, g, m, v, w);                          // m, v, w in place
#pragma once
#include <cmath>
#include <cstdint>

#include "rules/exact_ops.h"

namespace dqn::rules {

// ---- Targets and losses ----

/// The n-step (Double) DQN target y = R + discount * Q_target(s', a*) (Mnih et al. 2015;
/// van Hasselt et al. 2016, eq. 4; Sutton and Barto 2018, sec. 7.1), where the replay stores
/// R = sum_k gamma^k r_k and discount = gamma^n for a bootstrapped n-step transition and 0 at a
/// terminal (no bootstrap). q_next is the target network's value of the action a* that the online
/// network picks (Double DQN) or the target's max (classic DQN). f64.
DQN_HD constexpr double BootstrapTarget(float reward, float discount, float q_next) {
  return static_cast<double>(reward) + static_cast<double>(discount) * static_cast<double>(q_next);
}

/// Huber loss of a TD error x with threshold delta: x^2 / 2 for |x| <= delta, delta (|x| - delta/2)
/// otherwise (Huber 1964; Mnih et al. 2015's error clipping).
DQN_HD inline double HuberValue(double x, double delta) {
  const double a = fabs(x);
  return a <= delta ? 0.5 * x * x : delta * (a - 0.5 * delta);
}

/// d huber(x) / dx = clamp(x, -delta, delta) (NaN stays NaN).
DQN_HD constexpr double HuberGrad(double x, double delta) { return x < -delta ? -delta : x > delta ? delta : x; }

/// dL/dQ(s, a) of L = (1/B) sum_i w_i huber(y_i - Q(s_i, a_i)) for one transition: the TD error
/// err = y - Q, its IS weight w and inv_batch = 1 / B. -w clamp(err, -delta, delta) / B.
DQN_HD constexpr double WeightedHuberGrad(double err, double delta, double w, double inv_batch) {
  return -w * HuberGrad(err, delta) * inv_batch;
}

/// Dueling combine Q = V + A - mean_a(A) (Wang et al. 2016, eq. 9), in f32 as the networks compute.
DQN_HD constexpr float DuelingQ(float v, float a, float mean_a) { return v + a - mean_a; }

// ---- Gradient clipping and schedules ----

/// Factor the gradients are multiplied by under global-norm clipping, as PyTorch's
/// clip_grad_norm_ (Pascanu et al. 2013): min(1, max_norm / (norm + 1e-6)); 1 when max_norm <= 0
/// (clipping off). A NaN norm gives NaN's comparison result: the caller checks the norm first.
DQN_HD constexpr double ClipCoefficient(double norm, double max_norm) {
  if (max_norm <= 0) return 1.0;
  const double c = max_norm / (norm + 1e-6);
  return c < 1.0 ? c : 1.0;
}

/// A linear schedule from `start` to `end` over `steps` counts, then held: start + (end - start)
/// min(1, done / steps), with `done` clamped at 0 from below.
DQN_HD constexpr double LinearSchedule(double start, double end, double done, double steps) {
  const double d = done > 0 ? done : 0.0;
  const double progress = d / steps < 1.0 ? d / steps : 1.0;
  return start + (end - start) * progress;
}

/// Learning rate at step t (1-based): linear from lr to lr_end over decay_steps steps, then
/// lr_end; decay_steps <= 0 keeps lr.
DQN_HD constexpr double LearningRateAt(double lr, double lr_end, int64_t decay_steps, int64_t t) {
  return decay_steps <= 0 ? lr : LinearSchedule(lr, lr_end, static_cast<double>(t - 1), static_cast<double>(decay_steps));
}

/// The IS-weight exponent of the `calls`-th sample call (0-based): beta0 annealed linearly to 1
/// over beta_steps calls, then 1 (Schaul et al. 2016, sec. 3.4).
DQN_HD constexpr double BetaAt(double beta0, int64_t beta_steps, int64_t calls) {
  const double b = LinearSchedule(beta0, 1.0, static_cast<double>(calls), static_cast<double>(beta_steps));
  return b < 1.0 ? b : 1.0;
}

// ---- Adam (Kingma and Ba 2015, Algorithm 1) and the target network ----

/// Adam's step-dependent factors at step t >= 1, formed in f64 and rounded once:
/// step_size = lr / (1 - beta1^t), inv_sqrt_bc2 = 1 / sqrt(1 - beta2^t).
struct AdamScalars {
  float step_size = 0;
  float inv_sqrt_bc2 = 0;
};
DQN_HD inline AdamScalars AdamStepScalars(double beta1, double beta2, double lr, int64_t t) {
  const double td = static_cast<double>(t);
  return {static_cast<float>(lr / (1.0 - pow(beta1, td))), static_cast<float>(1.0 / sqrt(1.0 - pow(beta2, td)))};
}

/// Adam's step-constant f32 factors: beta1, beta2, 1 - beta1, 1 - beta2 (formed in f64: in f32,
/// 1 - 0.999f is off by 1.3e-5 relative) and eps.
struct AdamConstants {
  float b1, b2, one_minus_b1, one_minus_b2, eps;
};
DQN_HD constexpr AdamConstants MakeAdamConstants(double beta1, double beta2, double eps) {
  return {static_cast<float>(beta1), static_cast<float>(beta2), static_cast<float>(1.0 - beta1),
          static_cast<float>(1.0 - beta2), static_cast<float>(eps)};
}

/// One element of Adam with an already scaled (clipped) gradient g:
///   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
///   w = w - step_size m / (sqrt(v) inv_sqrt_bc2 + eps)
/// (PyTorch's form; equal to Algorithm 1's lr m_hat / (sqrt(v_hat) + eps)). Updates m, v, w.
DQN_HD inline void AdamElement(const AdamConstants& c, const AdamScalars& s, float g, float& m, float& v, float& w) {
  m = AddF(MulF(c.b1, m), MulF(c.one_minus_b1, g));
  v = AddF(MulF(c.b2, v), MulF(MulF(c.one_minus_b2, g), g));
  w = SubF(w, DivF(MulF(s.step_size, m), AddF(MulF(SqrtF(v), s.inv_sqrt_bc2), c.eps)));
}

/// Polyak averaging of one target weight: target + tau (online - target) (Lillicrap et al. 2016).
DQN_HD inline float Polyak(float target, float online, float tau) { return AddF(target, MulF(tau, SubF(online, target))); }

/// Whether step t (1-based) hard-copies the online network to the target (every `interval` steps).
DQN_HD constexpr bool HardCopyAt(int64_t t, int64_t interval) { return t % interval == 0; }

}  // namespace dqn::rules
