// Spectral normalisation by power iteration (see spectral_norm.h).
#include "model/spectral_norm.h"

#include <cmath>

#include "replay/philox.h"
#include "rules/head_rules.h"

namespace dqn {
namespace {

/// y_a = sum_b W(a, b) x_b for a < rows, b < cols, with W(a, b) = w[a * stride_a + b * stride_b]
/// (W or W^T of a row-major matrix), accumulated in f64 and stored in f32. Returns |y|^2 (f64).
double Product(const float* w, int rows, int cols, int64_t stride_a, int64_t stride_b, const float* x, float* y) {
  double sum = 0;
  for (int a = 0; a < rows; ++a) {
    double acc = 0;
    for (int b = 0; b < cols; ++b) acc += static_cast<double>(w[a * stride_a + b * stride_b]) * x[b];
    y[a] = static_cast<float>(acc);
    sum += acc * acc;
  }
  return sum;
}

/// y [n] /= sqrt(sum_sq); returns sqrt(sum_sq). sum_sq > 0.
double Normalize(float* y, int n, double sum_sq) {
  const double norm = std::sqrt(sum_sq);
  for (int k = 0; k < n; ++k) y[k] = static_cast<float>(y[k] / norm);
  return norm;
}

}  // namespace

void InitPowerIterationVector(float* u, int out, uint64_t seed, uint32_t matrix) {
  const uint32_t word = rules::StreamWord(rules::RandomStream::kSpectralInit, matrix);
  double sum = 0;
  for (int j = 0; j < out; ++j) {
    const PhiloxCounter bits = Philox4x32_10({static_cast<uint32_t>(j), word, 0u, 0u}, PhiloxKeyFromSeed(seed));
    u[j] = 2.0f * rules::UnitFloatFromBits(bits[0]) - 1.0f;
    sum += static_cast<double>(u[j]) * u[j];
  }
  Normalize(u, out, sum);
}

double PowerIterationStep(const float* w, int in, int out, float* u, float* v) {
  const double wu = Product(w, in, out, out, 1, u, v);  // W u: rows of W are contiguous
  if (wu == 0) return 0;
  Normalize(v, in, wu);
  return Normalize(u, out, Product(w, out, in, 1, out, v, u));  // sigma = |W^T v|
}

double SpectralNormalize(float* w, int in, int out, float* u, double sigma_max, float* v) {
  const double sigma = PowerIterationStep(w, in, out, u, v);
  const double scale = rules::SpectralScale(sigma, sigma_max);
  if (scale == 1.0) return sigma;
  const auto f = static_cast<float>(scale);
  const int64_t n = static_cast<int64_t>(in) * out;
  for (int64_t k = 0; k < n; ++k) w[k] = rules::MulF(w[k], f);
  return sigma;
}

}  // namespace dqn
