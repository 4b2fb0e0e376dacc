// The CPU DQN training step (see cpu_learner.h).
#include "train/cpu_learner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "cpu/rng.h"
#include "rules/step_rules.h"
#include "train/q_probes.h"

namespace dqn {
namespace {

bool AllFinite(const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

}  // namespace

CpuLearner::CpuLearner(const NetConfig& net, const LearnerConfig& config, uint64_t seed, std::vector<FeatureGroup> causal_features)
    : layout_(net),
      config_(ValidateLearner(net, config, causal_features)),
      causal_features_(std::move(causal_features)),
      seed_(seed),
      online_(static_cast<size_t>(layout_.size())),
      target_(online_.size()),
      m_(online_.size()),
      v_(online_.size()),
      online_view_(layout_, online_.data()),
      target_view_(layout_, target_.data()),
      parts_(MakeLossParts(layout_, config_.batch_size)),
      part_loss_(parts_.size()),
      spectral_(layout_, seed),
      ws_online_(layout_, 2 * config_.batch_size),
      ws_target_(layout_, config_.batch_size),
      ws_probe_(layout_, config_.batch_size),
      ws_act_(layout_, config_.act_rows),
      inputs_(static_cast<size_t>(2 * config_.batch_size * net.state_dim)),
      td_aux_(static_cast<size_t>(config_.batch_size)),
      batch_(config_.batch_size, net.state_dim),
      td_(static_cast<size_t>(config_.batch_size)) {
  // One full gradient buffer per part (zero outside the slots it writes), fixed storage so the
  // views stay valid; the sum of the clipped parts only when there is more than one.
  for (size_t k = 0; k < parts_.size(); ++k) part_grads_.emplace_back(online_.size());
  for (auto& g : part_grads_) part_views_.emplace_back(layout_, g.data());
  if (parts_.size() > 1) grad_sum_.resize(online_.size());
  probe_per_feature_.resize(causal_features_.size());
  Rng init_rng(seed, /*stream=*/0);
  InitParams(layout_, online_.data(), init_rng);
  std::copy(online_.begin(), online_.end(), target_.begin());  // in place: the views stay valid
}

void CpuLearner::poison(uint32_t flag, int64_t t, float* x) const {
  if (inject_flag_ == flag && inject_step_ == t) x[0] = std::numeric_limits<float>::quiet_NaN();
}

uint32_t CpuLearner::step(const SampleBatch& batch, float* td_errors, ScalarBlock& out) {
  const int64_t b = config_.batch_size;
  const int d = layout_.config().state_dim;
  const int64_t t = steps_ + 1;  // this step's number (Adam's t)
  const auto& heads = layout_.heads();

  // 1. The online network on s and s' as one forward pass over 2B rows: trunk, then every head.
  std::copy(batch.states, batch.states + b * d, inputs_.begin());
  std::copy(batch.next_states, batch.next_states + b * d, inputs_.begin() + b * d);
  TrunkForward(online_view_, inputs_.data(), 2 * b, ws_online_);
  HeadsForward(layout_, online_view_, 2 * b, {seed_, t, Pass::kOnline, b}, ws_online_);

  // 2. Bootstrap values come from the TARGET network, evaluated at s'.
  TrunkForward(target_view_, batch.next_states, b, ws_target_);
  HeadsForward(layout_, target_view_, b, {seed_, t, Pass::kTarget, b}, ws_target_);
  poison(kNanQOnline, t, layout_.main_head().outputs(ws_online_.head(0), 2 * b).data());
  poison(kNanQTarget, t, layout_.main_head().outputs(ws_target_.head(0), b).data());
  uint32_t flags = 0;
  for (size_t k = 0; k < heads.size(); ++k) {
    const std::span<float> on = heads[k]->outputs(ws_online_.head(k), 2 * b), tg = heads[k]->outputs(ws_target_.head(k), b);
    if (!AllFinite(on.data(), static_cast<int64_t>(on.size()))) flags |= kNanQOnline;
    if (!AllFinite(tg.data(), static_cast<int64_t>(tg.size()))) flags |= kNanQTarget;
  }
  if (flags) return flags;

  // 3. Each part's loss: first the main head's (its n-step Double DQN target from the target
  //    network at s', with the stored discount gamma^k, 0 at a terminal: no bootstrap; its loss
  //    weighted by the IS weights; its TD signal feeds the priorities), then the auxiliary parts'.
  const LossBatch lb{batch.actions, batch.rewards, batch.discounts, batch.weights, batch.indices, batch.generations,
                     b, config_.double_dqn, config_.huber_delta, t, seed_};
  double loss = 0, td_mse = 0;
  for (size_t k = 0; k < parts_.size(); ++k) {
    const HeadLoss l = parts_[k]->loss(layout_, lb, ws_online_, ws_target_, k == 0 ? td_errors : td_aux_.data());
    part_loss_[k] = l.loss;
    loss += l.loss;
    if (k == 0) td_mse = l.td_mse;
  }
  if (inject_flag_ == kNanLoss && inject_step_ == t) loss = std::numeric_limits<double>::quiet_NaN();
  out.loss = loss;
  out.td_mse = td_mse;
  if (!std::isfinite(loss)) return kNanLoss;

  // 4. Each part's gradient through its heads and the trunk (the first B rows: the states s).
  for (size_t k = 0; k < parts_.size(); ++k)
    parts_[k]->backward(layout_, online_view_, inputs_.data(), b, ws_online_, part_views_[k]);

  // 5. Gradient-norm clipping (each part to its budget), then Adam.
  if (const uint32_t f = optimize(t, out)) return f;
  poison(kNanWeights, t, online_.data());
  if (!AllFinite(online_.data(), layout_.size())) return kNanWeights;
  steps_ = t;
  out.step = t;
  out.loss_sum += out.loss;
  out.td_mse_sum += out.td_mse;
  out.grad_norm_sum += out.grad_norm;
  ++out.sum_steps;

  // 6. Spectral normalisation: one power iteration per chosen matrix, each scaled down to
  //    sigma_max when above it; before the target network copies or averages the online one.
  if (!spectral_.empty()) out.sigma_max_seen = spectral_.apply(online_view_);

  // 7. Target network: hard copy every C steps, or Polyak averaging every step.
  update_target(t);

  // 8. Diagnostics on their own schedules (Q of the batch before this update).
  probes(t, batch.states, out);
  return 0;
}

uint32_t CpuLearner::optimize(int64_t t, ScalarBlock& out) {
  poison(kNanGradients, t, part_grads_[0].data());
  AdamConfig adam = config_.adam;
  adam.lr = rules::LearningRateAt(config_.adam.lr, config_.lr_end, config_.lr_decay_steps, t);
  const int64_t n = layout_.size();
  if (parts_.size() == 1) {
    // The main part alone: global-norm clipping to all of grad_clip, applied as Adam's scale.
    const double norm = GlobalNorm(part_grads_[0].data(), n);
    out.grad_norm = norm;
    if (!std::isfinite(norm)) return kNanGradients;
    const auto scale = static_cast<float>(rules::ClipCoefficient(norm, config_.grad_clip));
    AdamUpdate(adam, t, scale, part_grads_[0].data(), online_.data(), m_.data(), v_.data(), n);
    const PartFields f = PartScalars(out, PartKind::kMain);
    *f.loss = part_loss_[0];
    *f.grad_norm = norm;
    *f.grad_clipped = norm * scale;
    return 0;
  }
  // Several parts: each clipped to its share of grad_clip, the clipped gradients summed.
  const rules::GradientBudget budget = BudgetOf(layout_.config().heads, config_.grad_clip);
  std::vector<const float*> grads;
  std::vector<double> budgets;
  for (size_t k = 0; k < parts_.size(); ++k) {
    grads.push_back(part_grads_[k].data());
    budgets.push_back(PartBudget(budget, parts_[k]->kind()));
  }
  std::vector<PartNorm> norms(parts_.size());
  out.grad_norm = ClipToBudgets(grads, budgets, n, grad_sum_.data(), norms);
  for (size_t k = 0; k < parts_.size(); ++k) {
    const PartFields f = PartScalars(out, parts_[k]->kind());
    *f.loss = part_loss_[k];
    *f.grad_norm = norms[k].norm;
    *f.grad_clipped = norms[k].clipped;
    if (!std::isfinite(norms[k].norm)) return kNanGradients;
  }
  if (!std::isfinite(out.grad_norm)) return kNanGradients;
  AdamUpdate(adam, t, 1.0f, grad_sum_.data(), online_.data(), m_.data(), v_.data(), n);
  return 0;
}

uint32_t CpuLearner::train(Replay& replay, ScalarBlock& out) {
  const int64_t b = config_.batch_size;
  out.beta = replay.beta();
  SampleBatch sample = batch_.view();
  replay.sample(b, sample);
  const uint32_t flags = step(sample, td_.data(), out);
  if (flags) return flags;
  const UpdateResult u = replay.update_priorities(sample.indices, sample.generations, td_.data(), b);
  out.nan_td_rejected += u.rejected_nonfinite;
  double w = 0;
  for (float x : batch_.weights) w += x;
  out.is_weight_mean = w / static_cast<double>(b);
  out.per_total = replay.total_priority();
  out.per_max_priority = replay.max_priority();
  return 0;
}

void CpuLearner::save_params(LearnerTensors& out) {
  out.online = online_;
  out.target = target_;
  out.adam_m = m_;
  out.adam_v = v_;
  out.spectral_u.assign(spectral_.vectors().begin(), spectral_.vectors().end());
}

void CpuLearner::load_params(const LearnerTensors& in) {
  CheckTensorSizes(in, layout_.size());
  if (in.spectral_u.size() != spectral_.vectors().size())
    throw std::invalid_argument("learner tensor spectral_u has " + std::to_string(in.spectral_u.size()) +
                                " floats, this learner's spectral normalisation has " +
                                std::to_string(spectral_.vectors().size()));
  // In place: the views computed at construction stay valid.
  std::copy(in.online.begin(), in.online.end(), online_.begin());
  std::copy(in.target.begin(), in.target.end(), target_.begin());
  std::copy(in.adam_m.begin(), in.adam_m.end(), m_.begin());
  std::copy(in.adam_v.begin(), in.adam_v.end(), v_.begin());
  std::copy(in.spectral_u.begin(), in.spectral_u.end(), spectral_.vectors().begin());
}

void CpuLearner::update_target(int64_t t) {
  if (config_.target_update == TargetUpdate::kHard) {
    if (rules::HardCopyAt(t, config_.target_interval)) std::copy(online_.begin(), online_.end(), target_.begin());
    return;
  }
  const auto tau = static_cast<float>(config_.tau);
  for (size_t i = 0; i < target_.size(); ++i) target_[i] = rules::Polyak(target_[i], online_[i], tau);
}

void CpuLearner::probes(int64_t t, const float* states, ScalarBlock& out) {
  const int64_t b = config_.batch_size;
  const int a = layout_.config().n_actions;
  if (t % config_.q_stats_interval == 0) {
    // The main head's Q-values of the batch's s (the online pass's first B rows), its own scalars,
    // and the auxiliary heads' scalars at those Q-values.
    layout_.main_head().q_values(ws_online_.head(0), b, ws_online_.q());
    layout_.main_head().probe(ws_online_.head(0), b, out);
    for (size_t k = 1; k < layout_.heads().size(); ++k)
      layout_.heads()[k]->probe_auxiliary(ws_online_.head(k), b, ws_online_.q(), out);
    const QStats s = ComputeQStats(ws_online_.q(), b, a);
    out.q_mean = s.mean;
    out.q_min = s.min;
    out.q_max = s.max;
    out.q_var = s.var;
    out.mean_max_q = s.mean_max;
    out.q_stats_step = t;
  }
  if (t % config_.causal_interval == 0) {
    // The probe asks about the updated network: re-evaluate Q(s) with the new weights first.
    const ForwardContext ctx{seed_, t, Pass::kAct, b};
    Forward(layout_, online_view_, states, b, ws_target_, ctx);
    out.causal_sensitivity = CausalSensitivity(layout_, online_view_, states, ws_target_.q(), b, causal_features_,
                                               ws_probe_, probe_states_, probe_per_feature_.data(), ctx);
    // The block keeps the first kMaxCausalFeatures features one by one; the mean covers all.
    const size_t kept = std::min(causal_features_.size(), static_cast<size_t>(kMaxCausalFeatures));
    out.causal_features = static_cast<int32_t>(kept);
    std::copy(probe_per_feature_.begin(), probe_per_feature_.begin() + static_cast<std::ptrdiff_t>(kept),
              out.causal_per_feature);
    out.causal_step = t;
  }
}

void CpuLearner::greedy(const float* states, int64_t rows, int32_t* actions) {
  GreedyActions(layout_, online_view_, states, rows, ws_act_, actions, {seed_, steps_, Pass::kAct, 0});
}

}  // namespace dqn
