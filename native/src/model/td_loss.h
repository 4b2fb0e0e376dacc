// The Q head's loss (model/q_head.h) on a sampled batch: Double DQN targets (van Hasselt et al.
// 2016, eq. 4) with the per-transition bootstrap discount stored in the replay buffer, and the
// Huber loss weighted by the IS weights of prioritized replay (Schaul et al. 2016, Algorithm 1,
// line 12).
#pragma once
#include <cstdint>

namespace dqn {

/// One batch's inputs to the loss; every array has `batch` rows.
struct TdInputs {
  const float* q = nullptr;              ///< [B x A] online Q(s, .)
  const float* q_next_online = nullptr;  ///< [B x A] online Q(s', .) (selects a* for Double DQN)
  const float* q_next_target = nullptr;  ///< [B x A] target Q(s', .) (evaluates a*)
  const int32_t* actions = nullptr;      ///< [B]
  const float* rewards = nullptr;        ///< [B] (n-step discounted sums)
  const float* discounts = nullptr;      ///< [B] gamma^k, 0 at a terminal
  const float* weights = nullptr;        ///< [B] IS weights
  int64_t batch = 0;
  int n_actions = 0;
};

/// Loss of the batch and its mean squared TD error.
struct TdLoss {
  double loss = 0;    ///< (1/B) sum_i w_i huber(td_i)
  double td_mse = 0;  ///< (1/B) sum_i td_i^2
};

/// Computes the target y_i = r_i + discount_i * Q_target(s'_i, a*_i) with
/// a* = argmax_a Q_online(s', a) (double_dqn) or argmax_a Q_target(s', a) (classic DQN; first
/// index on ties), the TD error td_i = y_i - Q(s_i, a_i) [B], the IS-weighted Huber loss with
/// threshold delta (huber(x) = x^2/2 for |x| <= delta, delta (|x| - delta/2) otherwise), and its
/// gradient dL/dQ [B x A], nonzero only at the taken actions: -w_i clamp(td_i, -delta, delta) / B.
TdLoss ComputeTdLoss(const TdInputs& in, bool double_dqn, double huber_delta, float* td, float* dq);

}  // namespace dqn
