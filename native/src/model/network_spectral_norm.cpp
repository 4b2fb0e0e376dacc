// Spectral normalisation of a network's chosen matrices (see network_spectral_norm.h).
#include "model/network_spectral_norm.h"

#include <algorithm>

#include "model/spectral_norm.h"

namespace dqn {

NetworkSpectralNorm::NetworkSpectralNorm(const ParamLayout& layout, uint64_t seed) : sigma_max_(layout.config().heads.sigma_max) {
  const HeadsConfig& h = layout.config().heads;
  if (!h.spectral()) return;
  uint32_t number = 0;  // every dense layer's number, chosen or not
  size_t widest = 0;
  const auto choose = [&](bool chosen, int head, int layer, const DenseSlot& s) {
    if (chosen) {
      matrices_.push_back({head, layer, u_.size()});
      u_.resize(u_.size() + static_cast<size_t>(s.out));
      InitPowerIterationVector(u_.data() + matrices_.back().u, s.out, seed, number);
      widest = std::max(widest, static_cast<size_t>(s.in));
    }
    ++number;
  };
  for (size_t l = 0; l < layout.trunk().size(); ++l) choose(h.spectral_trunk, -1, static_cast<int>(l), layout.trunk()[l]);
  for (size_t k = 0; k < layout.heads().size(); ++k)
    for (size_t l = 0; l < layout.head_slots(k).size(); ++l)
      choose(h.spectral_heads, static_cast<int>(k), static_cast<int>(l), layout.head_slots(k)[l]);
  v_.resize(widest);
}

double NetworkSpectralNorm::apply(const ParamView& p) {
  double seen = 0;
  for (const Matrix& m : matrices_) {
    const DenseView& d = m.head < 0 ? p.trunk[static_cast<size_t>(m.layer)]
                                    : p.heads[static_cast<size_t>(m.head)][static_cast<size_t>(m.layer)];
    seen = std::max(seen, SpectralNormalize(d.w, d.in, d.out, u_.data() + m.u, sigma_max_, v_.data()));
  }
  return seen;
}

}  // namespace dqn
