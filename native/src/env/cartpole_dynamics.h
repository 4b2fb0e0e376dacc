// CartPole-v1's step, defined once for the host environment (cartpole.cpp) and for device code
// (the GPU collector, issue 24): the same float64 operations in the same order on both sides, so
// a device copy follows the host copy bit for bit.
//
// Two things would otherwise part them:
// - nvcc contracts a * b + c into one fused multiply-add (one rounding instead of two); the host
//   build has -ffp-contract=off. Every operation here goes through rules/exact_ops.h (AddD,
//   MulD, ...), the round-to-nearest intrinsics on the device and plain operators on the host.
// - cos and sin: glibc's are not CUDA's (CUDA's double cos and sin are within 2 ulp, glibc's
//   within about 0.55 ulp, and neither is always correctly rounded). SinCos computes both in
//   double-double arithmetic (about 106 bits) and rounds once, so it returns the correctly
//   rounded value except where the exact value lies within about 2^-100 relative of a rounding
//   midpoint, on both sides alike. It serves |x| <= kSinCosRange; CartPole evaluates it at the
//   pole angle before a step, which stays within 12 degrees (0.21 rad) while an episode runs.
#pragma once
#include <cmath>

#include <cstdint>

#include "cpu/rng.h"
#include "rules/exact_ops.h"

namespace dqn::cartpole {

/// Gymnasium CartPole-v1 constants (gymnasium/envs/classic_control/cartpole.py).
struct Constants {
  static constexpr double kGravity = 9.8;
  static constexpr double kMassCart = 1.0;
  static constexpr double kMassPole = 0.1;
  static constexpr double kTotalMass = kMassCart + kMassPole;
  static constexpr double kLength = 0.5;  ///< half the pole's length
  static constexpr double kPoleMassLength = kMassPole * kLength;
  static constexpr double kForceMag = 10.0;
  static constexpr double kTau = 0.02;  ///< seconds between state updates
  static constexpr double kThetaThreshold = 12 * 2 * 3.14159265358979323846 / 360;  ///< radians
  static constexpr double kXThreshold = 2.4;
};

/// Largest |x| that SinCos computes itself (beyond it: each side's libm, not bit-identical).
inline constexpr double kSinCosRange = 0.5;

// One rounding per operation on both sides (rules/exact_ops.h).
using rules::AddD;
using rules::DivD;
using rules::MulD;
using rules::SubD;

/// A double-double number hi + lo with |lo| <= ulp(hi) / 2 (Dekker 1971; Shewchuk 1997).
struct DD {
  double hi, lo;
};

/// a + b exactly, as s + e with s = RN(a + b) (Knuth's TwoSum).
DQN_HD inline DD TwoSum(double a, double b) {
  const double s = AddD(a, b), bb = SubD(s, a);
  return {s, AddD(SubD(a, SubD(s, bb)), SubD(b, bb))};
}

/// a + b exactly for |a| >= |b| (Dekker's FastTwoSum).
DQN_HD inline DD FastTwoSum(double a, double b) {
  const double s = AddD(a, b);
  return {s, SubD(b, SubD(s, a))};
}

/// a * b exactly, as p + e with p = RN(a * b) (Dekker's product with Veltkamp's split; no FMA,
/// so the host needs none).
DQN_HD inline DD TwoProd(double a, double b) {
  const auto split = [](double x, double& hi, double& lo) {
    const double c = MulD(134217729.0, x);  // 2^27 + 1
    hi = SubD(c, SubD(c, x));
    lo = SubD(x, hi);
  };
  double ah, al, bh, bl;
  split(a, ah, al);
  split(b, bh, bl);
  const double p = MulD(a, b);
  const double e = AddD(AddD(AddD(SubD(MulD(ah, bh), p), MulD(ah, bl)), MulD(al, bh)), MulD(al, bl));
  return {p, e};
}

DQN_HD inline DD MulDD(DD a, DD b) {
  const DD p = TwoProd(a.hi, b.hi);
  return FastTwoSum(p.hi, AddD(p.lo, AddD(MulD(a.hi, b.lo), MulD(a.lo, b.hi))));
}

DQN_HD inline DD AddDD(DD a, DD b) {
  const DD s = TwoSum(a.hi, b.hi);
  return FastTwoSum(s.hi, AddD(s.lo, AddD(a.lo, b.lo)));
}

/// sum_k terms[k] * x2^k (k = 0..N-1) by Horner's rule: terms 8 and up in double (with x2 <=
/// 0.25 their part x2^8 R is below 2^-60 of the sum, so its rounding errors stay below 2^-113),
/// the rest in double-double.
template <int N>
DQN_HD inline DD Horner(const DD (&terms)[N], DD x2) {
  constexpr int kDouble = 8;
  double r = terms[N - 1].hi;
  for (int k = N - 2; k >= kDouble; --k) r = AddD(MulD(r, x2.hi), terms[k].hi);
  DD p = AddDD(MulDD({r, 0.0}, x2), terms[kDouble - 1]);
  for (int k = kDouble - 2; k >= 0; --k) p = AddDD(MulDD(p, x2), terms[k]);
  return p;
}

/// sin x and cos x, correctly rounded but for the rare inputs within about 2^-100 of a rounding
/// midpoint, and the same bits on the host and on the device, for |x| <= kSinCosRange (Taylor
/// series to 2^-120, double-double Horner). Beyond that range: std::sin / std::cos on the host,
/// CUDA's sin / cos on the device (not bit-identical; CartPole never gets there).
DQN_HD inline void SinCos(double x, double& s, double& c) {
  if (!(std::fabs(x) <= kSinCosRange)) {  // NaN included
    s = std::sin(x);
    c = std::cos(x);
    return;
  }
  if (x == 0) {  // sin(-0) = -0, which the sums below would make +0
    s = x;
    c = 1;
    return;
  }
  // (-1)^k / (2k + 1)!, k = 1..13, and (-1)^k / (2k)!, k = 1..14, each as the double-double
  // nearest the exact rational (hi = RN(c), lo = RN(c - hi)): the Taylor terms of sin and cos
  // down to 2^-120 relative at |x| = 0.5.
  constexpr DD kSinTerms[13] = {
      {-0.16666666666666666, -9.25185853854297e-18},       {0.008333333333333333, 1.1564823173178714e-19},
      {-0.0001984126984126984, -1.7209558293420705e-22},   {2.7557319223985893e-06, -1.858393274046472e-22},
      {-2.505210838544172e-08, 1.448814070935912e-24},     {1.6059043836821613e-10, 1.2585294588752098e-26},
      {-7.647163731819816e-13, -7.03872877733453e-30},     {2.8114572543455206e-15, 1.6508842730861433e-31},
      {-8.22063524662433e-18, -2.2141894119604265e-34},    {1.9572941063391263e-20, -1.3643503830087908e-36},
      {-3.868170170630684e-23, 8.843177655482344e-40},     {6.446950284384474e-26, -1.9330404233703465e-42},
      {-9.183689863795546e-29, -1.4303150396787322e-45},
  };
  constexpr DD kCosTerms[14] = {
      {-0.5, 0.0},                                          {0.041666666666666664, 2.3129646346357427e-18},
      {-0.001388888888888889, 5.300543954373577e-20},       {2.48015873015873e-05, 2.1511947866775882e-23},
      {-2.755731922398589e-07, -2.3767714622250297e-23},    {2.08767569878681e-09, -1.20734505911326e-25},
      {-1.1470745597729725e-11, -2.0655512752830745e-28},   {4.779477332387385e-14, 4.399205485834081e-31},
      {-1.5619206968586225e-16, -1.1910679660273754e-32},   {4.110317623312165e-19, 1.4412973378659527e-36},
      {-8.896791392450574e-22, 7.911402614872376e-38},      {1.6117375710961184e-24, -3.6846573564509766e-41},
      {-2.4795962632247976e-27, 1.2953730964765229e-43},    {3.279889237069838e-30, 1.5117542744029879e-46},
  };
  const DD x2 = TwoProd(x, x);
  // sin x = x + x * x2 * P(x2), cos x = 1 + x2 * Q(x2): one rounding each, of the double-double sum.
  s = AddDD({x, 0.0}, MulDD(MulDD({x, 0.0}, x2), Horner(kSinTerms, x2))).hi;
  c = AddDD({1.0, 0.0}, MulDD(x2, Horner(kCosTerms, x2))).hi;
}

/// One Euler step of a copy's state [x, x_dot, theta, theta_dot] (4 doubles, updated in place) under action 0 (push left) or
/// 1 (push right), Gymnasium's equations in Gymnasium's order of operations (positions advance
/// with the old velocities). Returns whether the new state is terminal (|x| > 2.4 or |theta| >
/// 12 degrees). The caller checks the action.
DQN_HD inline bool Step(double* state, int action) {
  using C = Constants;
  double& x = state[0];
  double& x_dot = state[1];
  double& theta = state[2];
  double& theta_dot = state[3];
  const double force = action == 1 ? C::kForceMag : -C::kForceMag;
  double sintheta, costheta;
  SinCos(theta, sintheta, costheta);
  // temp = (force + pml * theta_dot^2 * sin) / total_mass
  const double temp = DivD(AddD(force, MulD(MulD(MulD(C::kPoleMassLength, theta_dot), theta_dot), sintheta)), C::kTotalMass);
  // thetaacc = (g sin - cos temp) / (l (4/3 - m_pole cos^2 / total_mass))
  const double thetaacc =
      DivD(SubD(MulD(C::kGravity, sintheta), MulD(costheta, temp)),
          MulD(C::kLength, SubD(4.0 / 3.0, DivD(MulD(MulD(C::kMassPole, costheta), costheta), C::kTotalMass))));
  // xacc = temp - pml * thetaacc * cos / total_mass
  const double xacc = SubD(temp, DivD(MulD(MulD(C::kPoleMassLength, thetaacc), costheta), C::kTotalMass));
  x = AddD(x, MulD(C::kTau, x_dot));
  x_dot = AddD(x_dot, MulD(C::kTau, xacc));
  theta = AddD(theta, MulD(C::kTau, theta_dot));
  theta_dot = AddD(theta_dot, MulD(C::kTau, thetaacc));
  return x < -C::kXThreshold || x > C::kXThreshold || theta < -C::kThetaThreshold || theta > C::kThetaThreshold;
}

/// A copy's reset: each state variable uniform in [-0.05, 0.05] from the copy's stream, in order
/// (Gymnasium's reset), and no steps elapsed.
DQN_HD inline void ResetCopy(double* state, int32_t& elapsed, Rng& rng) {
  for (int k = 0; k < 4; ++k) state[k] = rng.uniform(-0.05, 0.05);
  elapsed = 0;
}

/// One environment step of a copy (the host's CartPoleVecEnv::step and the device collector's
/// kernel alike): Step, reward 1 (the terminating step's too), truncation at max_episode_steps
/// unless terminal, the final observation, and on either end a reset whose first observation is
/// next_obs. Observations are 4 floats, the f64 state rounded. action: 0 or 1 (checked by the caller).
DQN_HD inline void StepCopy(double* state, int32_t& elapsed, Rng& rng, int action, int max_episode_steps, float* next_obs,
                            float& reward, uint8_t& terminated, uint8_t& truncated, float* final_obs) {
  const bool term = Step(state, action);
  ++elapsed;
  const bool trunc = !term && elapsed >= max_episode_steps;
  reward = 1.0f;
  terminated = term ? 1 : 0;
  truncated = trunc ? 1 : 0;
  for (int k = 0; k < 4; ++k) final_obs[k] = static_cast<float>(state[k]);
  if (term || trunc) ResetCopy(state, elapsed, rng);
  for (int k = 0; k < 4; ++k) next_obs[k] = static_cast<float>(state[k]);
}

}  // namespace dqn::cartpole
