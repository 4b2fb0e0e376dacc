// Spectral normalisation of a network's weight matrices inside the training step (DESIGN section
// 4, "Spectral normalisation"; Miyato, Kataoka, Koyama and Yoshida 2018, Algorithm 1; the bound
// heads.sigma_max as studied for value networks by Gogianu et al. 2021): after each Adam update,
// one power iteration per chosen matrix with its persistent vector u, then the matrix scaled down
// to sigma_max when its estimate exceeds it (SpectralNormalize, model/spectral_norm.h). Chosen:
// the trunk's matrices (heads.spectral_trunk) and every head's (heads.spectral_heads).
//
// Usage (the CPU learner):
//   NetworkSpectralNorm sn(layout, seed);             // no matrices when heads.sigma_max = 0
//   out.sigma_max_seen = sn.apply(online_view);       // every step, after Adam
//   tensors.spectral_u.assign(sn.vectors().begin(), sn.vectors().end());  // learner state
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "model/param_layout.h"

namespace dqn {

/// The chosen matrices of one network and their power-iteration vectors.
class NetworkSpectralNorm {
 public:
  /// Chooses the matrices of `layout` by its heads config and draws each one's first vector with
  /// InitPowerIterationVector(seed, n), n the matrix's number among all dense layers in layout
  /// order (trunk, then the heads' layers), so switching the trunk or the heads on or off leaves
  /// the other matrices' vectors unchanged. No matrix when heads.sigma_max is 0.
  NetworkSpectralNorm(const ParamLayout& layout, uint64_t seed);
  bool empty() const { return matrices_.empty(); }
  /// One power iteration and scaling of every chosen matrix of `p` (a view of layout's buffer),
  /// in matrix order. Returns the largest estimate sigma before scaling (0 with no matrix).
  double apply(const ParamView& p);
  /// The vectors u, concatenated in matrix order (f32, each of its matrix's out floats): the
  /// learner state a checkpoint keeps.
  std::span<float> vectors() { return u_; }

 private:
  struct Matrix {
    int head;      ///< -1: trunk layer `layer`; else head `head`'s layer `layer`
    int layer;
    size_t u;      ///< offset of its vector in u_
  };
  std::vector<Matrix> matrices_;
  std::vector<float> u_, v_;  ///< v_: scratch [widest in]
  double sigma_max_;
};

}  // namespace dqn
