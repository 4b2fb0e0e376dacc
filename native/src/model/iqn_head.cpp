// The IQN head (see iqn_head.h).
#include "model/iqn_head.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "model/dense.h"
#include "model/heads.h"
#include "rules/head_rules.h"

namespace dqn {
namespace {

/// The IQN head's buffers for max_rows rows of up to `fractions` fractions each (E = embedding).
/// A pass over `rows` rows has M = start[rows] fraction rows: row r's are [start[r], start[r + 1]).
struct IqnState final : HeadState {
  IqnState(int64_t max_rows, int fractions, int embedding, int features, std::unique_ptr<HeadState> f_state)
      : start(static_cast<size_t>(max_rows + 1)), tau(static_cast<size_t>(max_rows * fractions)),
        cosine(tau.size() * static_cast<size_t>(embedding)), phi(tau.size() * static_cast<size_t>(features)),
        mixed(phi.size()), d_mixed(phi.size()), quantiles(std::move(f_state)) {}
  std::vector<int64_t> start;   ///< [rows + 1] each row's first fraction row
  std::vector<float> tau;       ///< [M] the drawn fractions
  std::vector<float> cosine;    ///< [M x E] cos(pi i tau)
  std::vector<float> phi;       ///< [M x F] phi(tau), after the ReLU
  std::vector<float> mixed;     ///< [M x F] psi(s) ⊙ phi(tau), f's input
  std::vector<float> d_mixed;   ///< [M x F] dL/d(psi ⊙ phi), then dL/dphi (backward scratch)
  std::unique_ptr<HeadState> quantiles;  ///< f's state: Z [M x A] and dL/dZ
  float* z = nullptr;           ///< f's outputs (fixed storage)
  float* dz = nullptr;          ///< f's output gradient (fixed storage)
  std::vector<double> theta;    ///< [N'] one transition's target samples (loss scratch)
};

IqnState& Cast(HeadState& s) { return static_cast<IqnState&>(s); }
const IqnState& Cast(const HeadState& s) { return static_cast<const IqnState&>(s); }

/// Where row `row` of a pass draws its fractions: stream, Philox row and count.
struct Draw {
  rules::RandomStream stream;
  int64_t row;
  int count;
};

Draw DrawOf(const ForwardContext& ctx, int64_t row, const IqnConfig& iqn) {
  switch (ctx.pass) {
    case Pass::kOnline:
      return row < ctx.batch ? Draw{rules::RandomStream::kIqnOnline, row, iqn.n}
                             : Draw{rules::RandomStream::kIqnTarget, row - ctx.batch, iqn.n_prime};
    case Pass::kTarget: return {rules::RandomStream::kIqnTarget, row, iqn.n_prime};
    case Pass::kAct: break;
  }
  return {rules::RandomStream::kIqnAct, row, iqn.k};
}

/// Row `row`'s quantiles of action j averaged over its fractions (f64).
double MeanQuantile(const IqnState& s, int64_t row, int a, int j) {
  const int64_t first = s.start[static_cast<size_t>(row)], end = s.start[static_cast<size_t>(row) + 1];
  double sum = 0;
  for (int64_t k = first; k < end; ++k) sum += s.z[k * a + j];
  return sum / static_cast<double>(end - first);
}

/// argmax_a of row `row`'s mean quantiles (first index on ties).
int GreedyRow(const IqnState& s, int64_t row, int a) {
  int best = 0;
  double top = MeanQuantile(s, row, a, 0);
  for (int j = 1; j < a; ++j)
    if (const double v = MeanQuantile(s, row, a, j); v > top) best = j, top = v;
  return best;
}

}  // namespace

IqnHead::IqnHead(int features, int n_actions, bool dueling, const IqnConfig& iqn, PartKind part, double share)
    : features_(features), n_actions_(n_actions), iqn_(iqn), part_(part), share_(share),
      quantile_(features, n_actions, dueling) {
  if (iqn.n < 1 || iqn.n_prime < 1 || iqn.k < 1 || iqn.embedding < 1)
    throw std::invalid_argument("the IQN head needs heads.iqn.n, n_prime, k and embedding >= 1, got " +
                                std::to_string(iqn.n) + ", " + std::to_string(iqn.n_prime) + ", " +
                                std::to_string(iqn.k) + " and " + std::to_string(iqn.embedding));
  if (!(iqn.kappa > 0 && std::isfinite(iqn.kappa)))
    throw std::invalid_argument("heads.iqn.kappa must be a positive number, got " + FieldText(iqn.kappa));
  if (part != PartKind::kMain && part != PartKind::kIqn)
    throw std::invalid_argument("the IQN head is the main head or the auxiliary IQN part");
}

std::vector<LayerSpec> IqnHead::layers() const {
  std::vector<LayerSpec> out{{"embedding", iqn_.embedding, features_, std::sqrt(2.0)}};
  for (LayerSpec& l : quantile_.layers()) out.push_back(std::move(l));
  return out;
}

std::vector<ConfigField> IqnHead::fields() const {
  std::vector<ConfigField> out;
  if (part_ == PartKind::kMain) {
    out.push_back({"heads.main", "iqn"});
  } else {
    out.push_back({"heads.iqn.auxiliary", "true"});
    out.push_back({"heads.iqn.share", FieldText(share_)});
  }
  out.push_back({"heads.iqn.n", FieldText(iqn_.n)});
  out.push_back({"heads.iqn.n_prime", FieldText(iqn_.n_prime)});
  out.push_back({"heads.iqn.embedding", FieldText(iqn_.embedding)});
  out.push_back({"heads.iqn.kappa", FieldText(iqn_.kappa)});
  return out;
}

std::unique_ptr<HeadState> IqnHead::make_state(int64_t max_rows) const {
  const int fractions = std::max({iqn_.n, iqn_.n_prime, iqn_.k});
  const int64_t max_fractions = max_rows * fractions;
  auto s = std::make_unique<IqnState>(max_rows, fractions, iqn_.embedding, features_, quantile_.make_state(max_fractions));
  s->z = quantile_.outputs(*s->quantiles, max_fractions).data();
  s->dz = quantile_.output_gradient(*s->quantiles, max_fractions).data();
  s->theta.resize(static_cast<size_t>(iqn_.n_prime));
  return s;
}

void IqnHead::forward(std::span<const DenseView> p, const float* features, int64_t rows, const ForwardContext& ctx,
                      HeadState& state) const {
  IqnState& s = Cast(state);
  const int e = iqn_.embedding, f = features_;
  // 1. Each row's fractions tau ~ U[0, 1), stateless draws from (seed, stream, step, row, index).
  int64_t m = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const Draw d = DrawOf(ctx, r, iqn_);
    s.start[static_cast<size_t>(r)] = m;
    for (int i = 0; i < d.count; ++i)
      s.tau[static_cast<size_t>(m + i)] = rules::QuantileFraction(ctx.seed, d.stream, ctx.step, static_cast<uint32_t>(d.row),
                                                                  static_cast<uint32_t>(i));
    m += d.count;
  }
  s.start[static_cast<size_t>(rows)] = m;
  // 2. phi(tau) = ReLU(sum_i cos(pi i tau) w_ij + b_j)  (eq. 4)
  for (int64_t k = 0; k < m; ++k)
    for (int i = 0; i < e; ++i) s.cosine[static_cast<size_t>(k * e + i)] = rules::IqnCosineFeature(i, s.tau[static_cast<size_t>(k)]);
  DenseForward(p[0], s.cosine.data(), m, s.phi.data(), /*relu=*/true);
  // 3. psi(s) ⊙ phi(tau): each fraction's row of f's input.
  for (int64_t r = 0; r < rows; ++r) {
    const float* psi = features + r * f;
    for (int64_t k = s.start[static_cast<size_t>(r)]; k < s.start[static_cast<size_t>(r) + 1]; ++k)
      for (int j = 0; j < f; ++j) s.mixed[static_cast<size_t>(k * f + j)] = psi[j] * s.phi[static_cast<size_t>(k * f + j)];
  }
  // 4. Z_tau(s, .) = f(psi(s) ⊙ phi(tau))  (sec. 3.1)
  quantile_.forward(p.subspan(1), s.mixed.data(), m, ctx, *s.quantiles);
}

std::span<float> IqnHead::outputs(HeadState& s, int64_t rows) const {
  IqnState& st = Cast(s);
  return {st.z, static_cast<size_t>(st.start[static_cast<size_t>(rows)] * n_actions_)};
}

void IqnHead::q_values(const HeadState& state, int64_t rows, float* q) const {
  const IqnState& s = Cast(state);
  for (int64_t r = 0; r < rows; ++r)
    for (int j = 0; j < n_actions_; ++j) q[r * n_actions_ + j] = static_cast<float>(MeanQuantile(s, r, n_actions_, j));
}

HeadLoss IqnHead::loss(const LossBatch& batch, HeadState& online, const HeadState& target, float* td) const {
  IqnState& on = Cast(online);
  const IqnState& tg = Cast(target);
  const int64_t b = batch.batch;
  const int a = n_actions_;
  const double inv_b = 1.0 / static_cast<double>(b), kappa = iqn_.kappa;
  std::fill(on.dz, on.dz + on.start[static_cast<size_t>(b)] * a, 0.0f);
  double loss = 0, sq = 0;
  for (int64_t i = 0; i < b; ++i) {
    // The action at s' by the mean of its N' quantiles: the online network's (Double DQN) or the target's.
    const int a_star = batch.double_dqn ? GreedyRow(on, b + i, a) : GreedyRow(tg, i, a);
    // Target samples theta_j = r + discount Z^target_{tau'_j}(s', a*); discount 0 at a terminal.
    const int64_t t0 = tg.start[static_cast<size_t>(i)], nt = tg.start[static_cast<size_t>(i) + 1] - t0;
    double mean_theta = 0;
    for (int64_t j = 0; j < nt; ++j) {
      on.theta[static_cast<size_t>(j)] = rules::BootstrapTarget(batch.rewards[i], batch.discounts[i], tg.z[(t0 + j) * a + a_star]);
      mean_theta += on.theta[static_cast<size_t>(j)];
    }
    mean_theta /= static_cast<double>(nt);
    // L_i = (1/N') sum_k sum_j rho^kappa_{tau_k}(theta_j - Z_{tau_k}(s, a))  (eq. 3)
    const int64_t o0 = on.start[static_cast<size_t>(i)], no = on.start[static_cast<size_t>(i) + 1] - o0;
    const int act = batch.actions[i];
    const double w = batch.weights[i];
    double l = 0, mean_z = 0;
    for (int64_t k = o0; k < o0 + no; ++k) {
      const double z = on.z[k * a + act], tau = on.tau[static_cast<size_t>(k)];
      double grad = 0;
      for (int64_t j = 0; j < nt; ++j) {
        const double u = on.theta[static_cast<size_t>(j)] - z;
        l += rules::QuantileHuberValue(u, tau, kappa);
        grad += rules::QuantileHuberGrad(u, tau, kappa);
      }
      on.dz[k * a + act] = static_cast<float>(w * grad / static_cast<double>(nt) * inv_b);
      mean_z += z;
    }
    l /= static_cast<double>(nt);
    mean_z /= static_cast<double>(no);
    td[i] = static_cast<float>(l);
    loss += w * l;
    sq += (mean_theta - mean_z) * (mean_theta - mean_z);
  }
  return {loss * inv_b, sq * inv_b};
}

void IqnHead::q_gradient(HeadState&, const float*, int64_t) const {
  throw std::logic_error(
      "the IQN head has no deterministic Q-values to differentiate: CQL needs a q or c51 main head");
}

std::span<float> IqnHead::output_gradient(HeadState& s, int64_t rows) const {
  IqnState& st = Cast(s);
  return {st.dz, static_cast<size_t>(st.start[static_cast<size_t>(rows)] * n_actions_)};
}

void IqnHead::backward(HeadState& state, std::span<const DenseView> p, const float* features, int64_t rows,
                       std::span<const DenseView> g, float* d_features, bool accumulate) const {
  IqnState& s = Cast(state);
  const int f = features_;
  const int64_t m = s.start[static_cast<size_t>(rows)];
  // f's layers, and dL/d(psi ⊙ phi) [m x F].
  quantile_.backward(*s.quantiles, p.subspan(1), s.mixed.data(), m, g.subspan(1), s.d_mixed.data(), false);
  // dL/dpsi sums over the row's fractions; dL/dphi (in place) passes the ReLU where phi > 0.
  for (int64_t r = 0; r < rows; ++r) {
    const float* psi = features + r * f;
    float* d_psi = d_features + r * f;
    if (!accumulate) std::fill(d_psi, d_psi + f, 0.0f);
    for (int64_t k = s.start[static_cast<size_t>(r)]; k < s.start[static_cast<size_t>(r) + 1]; ++k) {
      float* dm = s.d_mixed.data() + k * f;
      const float* phi = s.phi.data() + k * f;
      for (int j = 0; j < f; ++j) {
        d_psi[j] += dm[j] * phi[j];
        dm[j] = phi[j] > 0.0f ? dm[j] * psi[j] : 0.0f;
      }
    }
  }
  DenseBackward(p[0], s.cosine.data(), s.d_mixed.data(), m, g[0], /*dx=*/nullptr, false);
}

}  // namespace dqn
