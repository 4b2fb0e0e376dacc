// Double DQN targets and the IS-weighted Huber loss (see td_loss.h).
#include "model/td_loss.h"

#include <algorithm>

#include "rules/step_rules.h"

namespace dqn {
namespace {
int Argmax(const float* row, int n) {
  int best = 0;
  for (int j = 1; j < n; ++j)
    if (row[j] > row[best]) best = j;
  return best;
}
}  // namespace

TdLoss ComputeTdLoss(const TdInputs& in, bool double_dqn, double huber_delta, float* td, float* dq) {
  const int a = in.n_actions;
  const double inv_b = 1.0 / static_cast<double>(in.batch);
  std::fill(dq, dq + in.batch * a, 0.0f);
  double loss = 0, sq = 0;
  for (int64_t i = 0; i < in.batch; ++i) {
    const float* next_t = in.q_next_target + i * a;
    // The action is chosen by the online network and valued by the target network (Double DQN).
    const int a_star = Argmax(double_dqn ? in.q_next_online + i * a : next_t, a);
    // discount = gamma^k for a bootstrapped n-step transition and 0 at a terminal: no bootstrap.
    const double y = rules::BootstrapTarget(in.rewards[i], in.discounts[i], next_t[a_star]);
    const double err = y - static_cast<double>(in.q[i * a + in.actions[i]]);
    td[i] = static_cast<float>(err);
    const double w = in.weights[i];
    loss += w * rules::HuberValue(err, huber_delta);
    sq += err * err;
    dq[i * a + in.actions[i]] = static_cast<float>(rules::WeightedHuberGrad(err, huber_delta, w, inv_b));
  }
  return {loss * inv_b, sq * inv_b};
}

}  // namespace dqn
