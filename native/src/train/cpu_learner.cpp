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
#include "train/td_loss.h"

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
      online_(static_cast<size_t>(layout_.size())),
      target_(online_.size()),
      grad_(online_.size()),
      m_(online_.size()),
      v_(online_.size()),
      online_view_(layout_, online_.data()),
      target_view_(layout_, target_.data()),
      grad_view_(layout_, grad_.data()),
      ws_online_(layout_, 2 * config_.batch_size),
      ws_target_(layout_, config_.batch_size),
      ws_probe_(layout_, config_.batch_size),
      ws_act_(layout_, config_.act_rows),
      inputs_(static_cast<size_t>(2 * config_.batch_size * net.state_dim)),
      td_dq_(static_cast<size_t>(config_.batch_size * net.n_actions)),
      batch_(config_.batch_size, net.state_dim),
      td_(static_cast<size_t>(config_.batch_size)) {
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
  const int d = layout_.config().state_dim, a = layout_.config().n_actions;
  const int64_t t = steps_ + 1;  // this step's number (Adam's t)

  // 1. Online Q-values of s and s' as one forward pass over 2B rows.
  std::copy(batch.states, batch.states + b * d, inputs_.begin());
  std::copy(batch.next_states, batch.next_states + b * d, inputs_.begin() + b * d);
  Forward(layout_, online_view_, inputs_.data(), 2 * b, ws_online_);
  const float* q = ws_online_.q();                 // Q_online(s)   [B x A]
  const float* q_next_online = q + b * a;          // Q_online(s')  [B x A]

  // 2. Bootstrap values come from the TARGET network, evaluated at s'.
  Forward(layout_, target_view_, batch.next_states, b, ws_target_);
  poison(kNanQOnline, t, ws_online_.q());
  poison(kNanQTarget, t, ws_target_.q());
  uint32_t flags = 0;
  if (!AllFinite(q, 2 * b * a)) flags |= kNanQOnline;
  if (!AllFinite(ws_target_.q(), b * a)) flags |= kNanQTarget;
  if (flags) return flags;

  // 3. Double DQN target y = r + discount * Q_target(s', argmax_a Q_online(s', a)), where the
  //    stored discount is gamma^k for a k-step transition and 0 at a terminal (no bootstrap);
  // 4. IS-weighted Huber loss on td = y - Q(s, a), and dL/dQ.
  const TdInputs in{q, q_next_online, ws_target_.q(), batch.actions, batch.rewards, batch.discounts,
                    batch.weights, b, a};
  TdLoss loss = ComputeTdLoss(in, config_.double_dqn, config_.huber_delta, td_errors, td_dq_.data());
  if (inject_flag_ == kNanLoss && inject_step_ == t) loss.loss = std::numeric_limits<double>::quiet_NaN();
  out.loss = loss.loss;
  out.td_mse = loss.td_mse;
  if (!std::isfinite(loss.loss)) return kNanLoss;

  // 5. Backpropagate through the online network (the first B rows: the states s).
  Backward(layout_, online_view_, inputs_.data(), b, ws_online_, td_dq_.data(), grad_view_);

  // 6. Global gradient-norm clipping, then Adam.
  poison(kNanGradients, t, grad_.data());
  const double norm = GlobalNorm(grad_.data(), layout_.size());
  out.grad_norm = norm;
  if (!std::isfinite(norm)) return kNanGradients;
  const auto scale = static_cast<float>(rules::ClipCoefficient(norm, config_.grad_clip));
  AdamConfig adam = config_.adam;
  adam.lr = rules::LearningRateAt(config_.adam.lr, config_.lr_end, config_.lr_decay_steps, t);
  AdamUpdate(adam, t, scale, grad_.data(), online_.data(), m_.data(), v_.data(), layout_.size());
  poison(kNanWeights, t, online_.data());
  if (!AllFinite(online_.data(), layout_.size())) return kNanWeights;
  steps_ = t;
  out.step = t;
  out.loss_sum += out.loss;
  out.td_mse_sum += out.td_mse;
  out.grad_norm_sum += norm;
  ++out.sum_steps;

  // 7. Target network: hard copy every C steps, or Polyak averaging every step.
  update_target(t);

  // 8. Diagnostics on their own schedules (Q of the batch before this update).
  probes(t, batch.states, out);
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
}

void CpuLearner::load_params(const LearnerTensors& in) {
  CheckTensorSizes(in, layout_.size());
  // In place: the views computed at construction stay valid.
  std::copy(in.online.begin(), in.online.end(), online_.begin());
  std::copy(in.target.begin(), in.target.end(), target_.begin());
  std::copy(in.adam_m.begin(), in.adam_m.end(), m_.begin());
  std::copy(in.adam_v.begin(), in.adam_v.end(), v_.begin());
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
    Forward(layout_, online_view_, states, b, ws_target_);
    out.causal_sensitivity = CausalSensitivity(layout_, online_view_, states, ws_target_.q(), b, causal_features_,
                                               ws_probe_, probe_states_, probe_per_feature_.data());
    // The block keeps the first kMaxCausalFeatures features one by one; the mean covers all.
    const size_t kept = std::min(causal_features_.size(), static_cast<size_t>(kMaxCausalFeatures));
    out.causal_features = static_cast<int32_t>(kept);
    std::copy(probe_per_feature_.begin(), probe_per_feature_.begin() + static_cast<std::ptrdiff_t>(kept),
              out.causal_per_feature);
    out.causal_step = t;
  }
}

void CpuLearner::greedy(const float* states, int64_t rows, int32_t* actions) {
  GreedyActions(layout_, online_view_, states, rows, ws_act_, actions);
}

}  // namespace dqn
