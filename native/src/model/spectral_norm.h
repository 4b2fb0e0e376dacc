// Spectral normalisation of a dense weight matrix on the CPU (DESIGN section 4, "Spectral
// normalisation"; Miyato, Kataoka, Koyama and Yoshida 2018, Algorithm 1): one power iteration
// per matrix per step with a persistent vector, then the matrix scaled down to sigma_max when
// its largest singular value's estimate exceeds it (rules::SpectralScale).
//
// Convention: our dense W is stored [in x out] row-major and applied as y = x W (a row x of `in`
// floats). Miyato et al.'s matrix is W^T [out x in]; their u [out] and v [in] are ours:
//   v = W u / |W u|,  u <- W^T v / |W^T v|,  sigma = u^T W^T v = |W^T v|.
// sigma never exceeds W's largest singular value (up to rounding) and converges to it from below.
// f32 storage, f64 accumulation.
//
// Usage (once per matrix, then every step):
//   std::vector<float> u(out), v(in);
//   InitPowerIterationVector(u.data(), out, seed, matrix_index);
//   const double sigma = SpectralNormalize(w, in, out, u.data(), heads.sigma_max, v.data());
#pragma once
#include <cstdint>

namespace dqn {

/// Fills u [out] (f32) with the first power-iteration vector of matrix number `matrix` (< 2^24)
/// of a run seeded `seed`: Philox uniforms in [-1, 1) (counter {j, kSpectralInit << 24 | matrix,
/// 0, 0}, key = seed, word 0; rules::RandomStream), scaled to unit length in f64. out >= 1.
void InitPowerIterationVector(float* u, int out, uint64_t seed, uint32_t matrix);

/// One power iteration on W [in x out] (f32, row-major): v = W u / |W u| into v [in] (f32
/// scratch), u <- W^T v / |W^T v| in place (u [out], f32, unit length, kept between steps).
/// Returns sigma = |W^T v| (f64), the estimate of W's largest singular value. When W u = 0
/// (W = 0, or u in W's null space) returns 0 and leaves u unchanged.
double PowerIterationStep(const float* w, int in, int out, float* u, float* v);

/// One power iteration (PowerIterationStep), then W *= sigma_max / sigma in place (each element
/// times the factor rounded to f32) when sigma > sigma_max; otherwise W is left untouched, bit
/// for bit. sigma_max <= 0 turns the scaling off. Returns the estimate sigma before scaling.
double SpectralNormalize(float* w, int in, int out, float* u, double sigma_max, float* v);

}  // namespace dqn
