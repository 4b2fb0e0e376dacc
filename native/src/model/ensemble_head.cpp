// The bootstrapped ensemble (see ensemble_head.h).
#include "model/ensemble_head.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "model/heads.h"
#include "rules/head_rules.h"
#include "train/scalar_block.h"

namespace dqn {
namespace {

/// The ensemble's buffers for max_rows rows: each head's Q-head state, and the heads' outputs and
/// output gradients interleaved row by row (the Head interface's contiguous views).
struct EnsembleState final : HeadState {
  std::vector<std::unique_ptr<HeadState>> heads;  ///< head k's Q-head state
  std::vector<float> q;        ///< [rows x K x A] Q_k(s, a)
  std::vector<float> grad;     ///< [rows x K x A] dL/dQ_k
  std::vector<float> weights;  ///< [rows] loss scratch: one head's masked IS weights m_ik w_i
  std::vector<float> td;       ///< [rows] loss scratch: one head's TD errors (no priority reads them)
};

EnsembleState& Cast(HeadState& s) { return static_cast<EnsembleState&>(s); }
const EnsembleState& Cast(const HeadState& s) { return static_cast<const EnsembleState&>(s); }

/// dst[r * dst_stride + j] = scale * src[r * src_stride + j] for r < rows, j < n (f32): moves one
/// head's [rows x A] block into or out of the interleaved [rows x K x A] arrays.
void CopyRows(const float* src, int64_t src_stride, float* dst, int64_t dst_stride, int64_t rows, int n, float scale) {
  for (int64_t r = 0; r < rows; ++r)
    for (int j = 0; j < n; ++j) dst[r * dst_stride + j] = scale * src[r * src_stride + j];
}

}  // namespace

EnsembleHead::EnsembleHead(int features, int n_actions, bool dueling, const HeadsConfig& heads)
    : q_(features, n_actions, dueling),
      n_actions_(n_actions),
      heads_(heads.ensemble_heads),
      p_(heads.ensemble_p),
      share_(heads.ensemble_share),
      per_head_(q_.layers().size()) {
  if (heads_ < 1 || heads_ >= (1 << 24))
    throw std::invalid_argument("heads.ensemble.heads must be in [1, 2^24) for an ensemble, got " + std::to_string(heads_));
  if (!(p_ > 0 && p_ <= 1))
    throw std::invalid_argument("heads.ensemble.bootstrap_p must be in (0, 1], got " + FieldText(p_));
}

std::vector<LayerSpec> EnsembleHead::layers() const {
  std::vector<LayerSpec> out;
  for (int k = 0; k < heads_; ++k)
    for (LayerSpec l : q_.layers()) {
      l.name = "head" + std::to_string(k) + "." + l.name;
      out.push_back(std::move(l));
    }
  return out;
}

std::vector<ConfigField> EnsembleHead::fields() const {
  return {{"heads.ensemble.heads", std::to_string(heads_)},
          {"heads.ensemble.bootstrap_p", FieldText(p_)},
          {"heads.ensemble.share", FieldText(share_)}};
}

std::unique_ptr<HeadState> EnsembleHead::make_state(int64_t max_rows) const {
  auto s = std::make_unique<EnsembleState>();
  for (int k = 0; k < heads_; ++k) s->heads.push_back(q_.make_state(max_rows));
  s->q.resize(static_cast<size_t>(max_rows * heads_ * n_actions_));
  s->grad.resize(s->q.size());
  s->weights.resize(static_cast<size_t>(max_rows));
  s->td.resize(static_cast<size_t>(max_rows));
  return s;
}

std::span<const DenseView> EnsembleHead::head_layers(std::span<const DenseView> p, int k) const {
  return p.subspan(static_cast<size_t>(k) * per_head_, per_head_);
}

void EnsembleHead::forward(std::span<const DenseView> p, const float* features, int64_t rows, const ForwardContext& ctx,
                           HeadState& state) const {
  EnsembleState& s = Cast(state);
  const int a = n_actions_;
  for (int k = 0; k < heads_; ++k) {
    q_.forward(head_layers(p, k), features, rows, ctx, *s.heads[k]);
    CopyRows(q_.outputs(*s.heads[k], rows).data(), a, s.q.data() + k * a, int64_t{heads_} * a, rows, a, 1.0f);
  }
}

std::span<float> EnsembleHead::outputs(HeadState& s, int64_t rows) const {
  return {Cast(s).q.data(), static_cast<size_t>(rows * heads_ * n_actions_)};
}

void EnsembleHead::q_values(const HeadState& state, int64_t rows, float* q) const {
  const EnsembleState& s = Cast(state);
  const int a = n_actions_;
  for (int64_t r = 0; r < rows; ++r)
    for (int j = 0; j < a; ++j) {
      double sum = 0;
      for (int k = 0; k < heads_; ++k) sum += s.q[static_cast<size_t>((r * heads_ + k) * a + j)];
      q[r * a + j] = static_cast<float>(sum / heads_);
    }
}

HeadLoss EnsembleHead::loss(const LossBatch& batch, HeadState& online, const HeadState& target, float* /*td*/) const {
  if (!batch.slots || !batch.generations)
    throw std::logic_error("the ensemble's loss draws its bootstrap masks from the batch's replay slots and generations: pass both");
  EnsembleState& on = Cast(online);
  const EnsembleState& tg = Cast(target);
  const int64_t b = batch.batch;
  const int a = n_actions_;
  const float inv_k = 1.0f / static_cast<float>(heads_);
  // Head k's batch is the whole batch with IS weights m_ik w_i: the Q head's loss then gives
  // L_k = (1/B) sum_i m_ik w_i huber_ik and its gradient (model/td_loss.h).
  LossBatch masked = batch;
  masked.weights = on.weights.data();
  HeadLoss total;
  for (int k = 0; k < heads_; ++k) {
    for (int64_t i = 0; i < b; ++i) {
      const bool m = rules::BootstrapMask(batch.seed, static_cast<uint32_t>(batch.slots[i]), batch.generations[i],
                                          static_cast<uint32_t>(k), p_);
      on.weights[static_cast<size_t>(i)] = m ? batch.weights[i] : 0.0f;
    }
    const HeadLoss l = q_.loss(masked, *on.heads[k], *tg.heads[k], on.td.data());
    total.loss += l.loss;
    total.td_mse += l.td_mse;
    // dL/dQ_k = dL_k/dQ_k / K, into head k's block of the interleaved gradient.
    CopyRows(q_.output_gradient(*on.heads[k], b).data(), a, on.grad.data() + k * a, int64_t{heads_} * a, b, a, inv_k);
  }
  total.loss /= heads_;
  total.td_mse /= heads_;
  return total;
}

void EnsembleHead::q_gradient(HeadState& state, const float* dq, int64_t rows) const {
  EnsembleState& s = Cast(state);
  const int a = n_actions_;
  for (int k = 0; k < heads_; ++k)
    CopyRows(dq, a, s.grad.data() + k * a, int64_t{heads_} * a, rows, a, 1.0f / static_cast<float>(heads_));
}

std::span<float> EnsembleHead::output_gradient(HeadState& s, int64_t rows) const {
  return {Cast(s).grad.data(), static_cast<size_t>(rows * heads_ * n_actions_)};
}

void EnsembleHead::backward(HeadState& state, std::span<const DenseView> p, const float* features, int64_t rows,
                            std::span<const DenseView> g, float* d_features, bool accumulate) const {
  EnsembleState& s = Cast(state);
  const int a = n_actions_;
  for (int k = 0; k < heads_; ++k) {
    CopyRows(s.grad.data() + k * a, int64_t{heads_} * a, q_.output_gradient(*s.heads[k], rows).data(), a, rows, a, 1.0f);
    q_.backward(*s.heads[k], head_layers(p, k), features, rows, head_layers(g, k), d_features, accumulate || k > 0);
  }
}

void EnsembleHead::probe_auxiliary(const HeadState& state, int64_t rows, const float* main_q, ScalarBlock& out) const {
  const EnsembleState& s = Cast(state);
  const int a = n_actions_;
  double sum = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* mq = main_q + r * a;
    const int64_t greedy = std::max_element(mq, mq + a) - mq;
    const float* qr = s.q.data() + r * heads_ * a + greedy;  // Q_k(s_r, greedy) at qr[k * a]
    double mean = 0, ss = 0;
    for (int k = 0; k < heads_; ++k) mean += qr[k * a];
    mean /= heads_;
    for (int k = 0; k < heads_; ++k) ss += (qr[k * a] - mean) * (qr[k * a] - mean);
    sum += std::sqrt(ss / heads_);
  }
  out.ensemble_disagreement = rows > 0 ? sum / static_cast<double>(rows) : 0.0;
}

}  // namespace dqn
