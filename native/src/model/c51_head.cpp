// The C51 head (see c51_head.h).
#include "model/c51_head.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "model/heads.h"
#include "rules/head_rules.h"
#include "train/scalar_block.h"

namespace dqn {
namespace {

/// The C51 head's buffers: logits [rows x A x atoms] in `out`, dL/dlogits in `grad`, and one
/// transition's f64 scratch.
struct C51State final : HeadState {
  C51State(const ActionOutputs& o, int64_t rows, int atoms)
      : b(o, rows), p(static_cast<size_t>(atoms)), m(p.size()), dlogits(p.size()) {}
  ActionOutputs::Buffers b;
  std::vector<double> p, m, dlogits;  ///< [atoms] one transition's target, projection and gradient
};

/// c51.atoms, once the support is checked. @throws std::invalid_argument (see C51Head).
int CheckedAtoms(const C51Config& c51) {
  if (c51.atoms < 2 || c51.atoms > kMaxAtoms)
    throw std::invalid_argument("heads.c51.atoms must be in [2, " + std::to_string(kMaxAtoms) + "], got " +
                                std::to_string(c51.atoms));
  if (!(std::isfinite(c51.v_min) && std::isfinite(c51.v_max) && c51.v_min < c51.v_max))
    throw std::invalid_argument("heads.c51.v_min must be below heads.c51.v_max, got " + FieldText(c51.v_min) +
                                " >= " + FieldText(c51.v_max));
  return c51.atoms;
}

C51State& Cast(HeadState& s) { return static_cast<C51State&>(s); }
const C51State& Cast(const HeadState& s) { return static_cast<const C51State&>(s); }

}  // namespace

C51Head::C51Head(int features, int n_actions, bool dueling, const C51Config& c51)
    : n_actions_(n_actions), c51_(c51), outputs_(features, n_actions, CheckedAtoms(c51), dueling, "logits") {}

std::vector<ConfigField> C51Head::fields() const {
  return {{"heads.main", "c51"},
          {"heads.c51.atoms", std::to_string(c51_.atoms)},
          {"heads.c51.v_min", FieldText(c51_.v_min)},
          {"heads.c51.v_max", FieldText(c51_.v_max)}};
}

std::unique_ptr<HeadState> C51Head::make_state(int64_t max_rows) const {
  return std::make_unique<C51State>(outputs_, max_rows, c51_.atoms);
}

double C51Head::Atom(int j) const { return c51_.v_min + j * rules::AtomSpacing(c51_.atoms, c51_.v_min, c51_.v_max); }

int C51Head::Greedy(const float* logits) const {
  int best = 0;
  float best_q = 0;
  for (int a = 0; a < n_actions_; ++a) {
    const auto q = static_cast<float>(rules::CategoricalQ(logits + a * c51_.atoms, c51_.atoms, c51_.v_min, c51_.v_max));
    if (a == 0 || q > best_q) best = a, best_q = q;
  }
  return best;
}

void C51Head::forward(std::span<const DenseView> p, const float* features, int64_t rows, const ForwardContext&,
                      HeadState& s) const {
  // logits_{a,j} = V_j + A_{a,j} - mean_a' A_{a',j} per atom j (Rainbow's dueling form), or one layer.
  outputs_.forward(p, features, rows, Cast(s).b);
}

std::span<float> C51Head::outputs(HeadState& s, int64_t rows) const {
  return {Cast(s).b.out.data(), static_cast<size_t>(rows * n_actions_ * c51_.atoms)};
}

void C51Head::q_values(const HeadState& s, int64_t rows, float* q) const {
  const float* logits = Cast(s).b.out.data();
  for (int64_t i = 0; i < rows * n_actions_; ++i)
    q[i] = static_cast<float>(rules::CategoricalQ(logits + i * c51_.atoms, c51_.atoms, c51_.v_min, c51_.v_max));
}

HeadLoss C51Head::loss(const LossBatch& batch, HeadState& online, const HeadState& target, float* td) const {
  C51State& on = Cast(online);
  const C51State& tg = Cast(target);
  const int a = n_actions_, n = c51_.atoms;
  const int64_t b = batch.batch, row = static_cast<int64_t>(a) * n;
  const double inv_b = 1.0 / static_cast<double>(b);
  std::fill(on.b.grad.begin(), on.b.grad.begin() + b * row, 0.0f);
  double loss = 0, sq = 0;
  for (int64_t i = 0; i < b; ++i) {
    // a*: the greedy action at s' by the online network's expected values (Double DQN) or the
    // target's; the target network's distribution of a* is the one moved and projected.
    const float* next_target = tg.b.out.data() + i * row;
    const int a_star = Greedy(batch.double_dqn ? on.b.out.data() + (b + i) * row : next_target);
    rules::Softmax(next_target + a_star * n, n, on.p.data());
    // Algorithm 1: T z_j = r + discount z_j (discount = gamma^n, 0 at a terminal), clamped to
    // [v_min, v_max] and split between the neighbouring atoms.
    rules::CategoricalProjection(on.p.data(), n, c51_.v_min, c51_.v_max, batch.rewards[i], batch.discounts[i],
                                 on.m.data());
    const float* logits = on.b.out.data() + i * row + batch.actions[i] * n;
    const double ce = rules::CategoricalCrossEntropy(logits, on.m.data(), n);
    const double w = batch.weights[i];
    loss += w * ce;
    td[i] = static_cast<float>(ce);  // the priority signal (Hessel et al. 2018, sec. 3)
    rules::CategoricalCrossEntropyGrad(logits, on.m.data(), n, on.dlogits.data());
    float* g = on.b.grad.data() + i * row + batch.actions[i] * n;
    for (int j = 0; j < n; ++j) g[j] = static_cast<float>(w * on.dlogits[static_cast<size_t>(j)] * inv_b);
    double y = 0;
    for (int j = 0; j < n; ++j) y += Atom(j) * on.m[static_cast<size_t>(j)];
    const double err = y - rules::CategoricalQ(logits, n, c51_.v_min, c51_.v_max);
    sq += err * err;
  }
  return {loss * inv_b, sq * inv_b};
}

void C51Head::q_gradient(HeadState& state, const float* dq, int64_t rows) const {
  C51State& s = Cast(state);
  const int n = c51_.atoms;
  for (int64_t i = 0; i < rows * n_actions_; ++i) {
    const float* logits = s.b.out.data() + i * n;
    rules::Softmax(logits, n, s.p.data());
    double q = 0;
    for (int j = 0; j < n; ++j) q += Atom(j) * s.p[static_cast<size_t>(j)];
    // dQ/dlogit_k = p_k (z_k - Q) for Q = sum_j z_j softmax(logits)_j.
    for (int k = 0; k < n; ++k)
      s.b.grad[static_cast<size_t>(i * n + k)] = static_cast<float>(dq[i] * s.p[static_cast<size_t>(k)] * (Atom(k) - q));
  }
}

std::span<float> C51Head::output_gradient(HeadState& s, int64_t rows) const {
  return {Cast(s).b.grad.data(), static_cast<size_t>(rows * n_actions_ * c51_.atoms)};
}

void C51Head::backward(HeadState& s, std::span<const DenseView> p, const float* features, int64_t rows,
                       std::span<const DenseView> g, float* d_features, bool accumulate) const {
  outputs_.backward(Cast(s).b, p, features, rows, g, d_features, accumulate);
}

void C51Head::probe(const HeadState& state, int64_t rows, ScalarBlock& out) const {
  const C51State& s = Cast(state);
  const int n = c51_.atoms;
  const int64_t row = static_cast<int64_t>(n_actions_) * n;
  std::vector<double> p(static_cast<size_t>(n)), mean(p.size(), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    const float* logits = s.b.out.data() + r * row;
    rules::Softmax(logits + Greedy(logits) * n, n, p.data());
    for (int j = 0; j < n; ++j) mean[static_cast<size_t>(j)] += p[static_cast<size_t>(j)];
  }
  out.c51_atoms = n;
  for (int j = 0; j < n; ++j) out.c51_greedy_dist[j] = mean[static_cast<size_t>(j)] / static_cast<double>(rows);
}

}  // namespace dqn
