// Arithmetic with one IEEE round-to-nearest rounding per operation, the same bits on the host and
// on the device. Device code may fuse a * b + c into one FMA (one rounding instead of two); host
// code does not (no -mfma, and CMake sets -ffp-contract=off). Rules shared by both sides
// (step_rules.h, the environments' dynamics) therefore spell every operation with these, which
// are the round-to-nearest intrinsics on the device (never fused) and the plain operators on
// the host. DQN_HD marks a function for both sides under nvcc.
#pragma once
#include <cmath>

#ifdef __CUDACC__
#define DQN_HD __host__ __device__
#else
#define DQN_HD
#endif

namespace dqn::rules {

// ---- f32 ----
DQN_HD inline float AddF(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
DQN_HD inline float SubF(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
DQN_HD inline float MulF(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
DQN_HD inline float DivF(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
/// IEEE-rounded square root (the device's sqrtf is, with nvcc's default -prec-sqrt=true).
DQN_HD inline float SqrtF(float a) { return sqrtf(a); }

// ---- f64 ----
DQN_HD inline double AddD(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
DQN_HD inline double SubD(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
DQN_HD inline double MulD(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
DQN_HD inline double DivD(double a, double b) {
#ifdef __CUDA_ARCH__
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

}  // namespace dqn::rules
