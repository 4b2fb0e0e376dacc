// The loss parts and the gradient budget (see loss_parts.h).
#include "train/loss_parts.h"

#include <cmath>

#include "rules/step_rules.h"
#include "train/adam.h"

namespace dqn {
namespace {

/// A head's own loss (Head::loss) and its gradient through that head and the trunk.
class HeadPart final : public LossPart {
 public:
  HeadPart(size_t head, PartKind kind) : head_(head), kind_(kind) {}
  PartKind kind() const override { return kind_; }
  HeadLoss loss(const ParamLayout& layout, const LossBatch& batch, Workspace& online, Workspace& target,
                float* td) override {
    return layout.heads()[head_]->loss(batch, online.head(head_), target.head(head_), td);
  }
  void backward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& online,
                ParamView& g) override {
    const size_t heads[] = {head_};
    HeadsBackward(layout, p, heads, states, rows, online, g);
  }

 private:
  size_t head_;
  PartKind kind_;
};

/// CQL(H) on the main head's Q-values of the batch's states s (Kumar, Zhou, Tucker and Levine
/// 2020, eq. 4, in the discrete-action form of their Atari experiments): alpha times the mean
/// over the batch of logsumexp_a Q(s, a) - Q(s, a_data) (rules::CqlValue). Its gradient
/// (rules::CqlGrad) reaches the main head's layers through Head::q_gradient, then the trunk.
class CqlPart final : public LossPart {
 public:
  CqlPart(double alpha, int n_actions, int64_t batch)
      : alpha_(alpha), n_actions_(n_actions), q_(static_cast<size_t>(batch * n_actions)), dq_(q_.size()),
        grad_(static_cast<size_t>(n_actions)) {}
  PartKind kind() const override { return PartKind::kCql; }
  HeadLoss loss(const ParamLayout& layout, const LossBatch& batch, Workspace& online, Workspace&, float*) override {
    const int a = n_actions_;
    layout.main_head().q_values(online.head(0), batch.batch, q_.data());
    const double scale = alpha_ / static_cast<double>(batch.batch);
    double sum = 0;
    for (int64_t i = 0; i < batch.batch; ++i) {
      const float* q = q_.data() + i * a;
      sum += rules::CqlValue(q, a, batch.actions[i]);
      rules::CqlGrad(q, a, batch.actions[i], grad_.data());
      for (int j = 0; j < a; ++j) dq_[static_cast<size_t>(i * a + j)] = static_cast<float>(scale * grad_[static_cast<size_t>(j)]);
    }
    return {scale * sum, 0};
  }
  void backward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& online,
                ParamView& g) override {
    layout.main_head().q_gradient(online.head(0), dq_.data(), rows);
    const size_t main[] = {0};
    HeadsBackward(layout, p, main, states, rows, online, g);
  }

 private:
  double alpha_;
  int n_actions_;
  std::vector<float> q_, dq_;   // [B x A] the main head's Q(s, .), and alpha dCQL/dQ / B
  std::vector<double> grad_;    // [A] one state's CqlGrad
};

}  // namespace

std::vector<std::unique_ptr<LossPart>> MakeLossParts(const ParamLayout& layout, int64_t batch_size) {
  std::vector<std::unique_ptr<LossPart>> parts;
  for (size_t k = 0; k < layout.heads().size(); ++k) parts.push_back(std::make_unique<HeadPart>(k, layout.heads()[k]->part()));
  // CQL after the main head's own part: it overwrites the main head's output gradient.
  const NetConfig& net = layout.config();
  if (net.heads.cql()) parts.push_back(std::make_unique<CqlPart>(net.heads.cql_alpha, net.n_actions, batch_size));
  return parts;
}

double PartBudget(const rules::GradientBudget& budget, PartKind kind) {
  switch (kind) {
    case PartKind::kMain: return budget.main;
    case PartKind::kIqn: return budget.iqn;
    case PartKind::kEnsemble: return budget.ensemble;
    case PartKind::kCql: return budget.cql;
  }
  return budget.main;
}

rules::GradientBudget BudgetOf(const HeadsConfig& h, double grad_clip) {
  return rules::SplitGradientBudget(grad_clip, {h.iqn_auxiliary, h.iqn_share}, {h.ensemble(), h.ensemble_share},
                                    {h.cql(), h.cql_share});
}

PartFields PartScalars(ScalarBlock& out, PartKind kind) {
  switch (kind) {
    case PartKind::kMain: return {&out.main_loss, &out.main_grad_norm, &out.main_grad_clipped};
    case PartKind::kIqn: return {&out.iqn_loss, &out.iqn_grad_norm, &out.iqn_grad_clipped};
    case PartKind::kEnsemble: return {&out.ensemble_loss, &out.ensemble_grad_norm, &out.ensemble_grad_clipped};
    case PartKind::kCql: return {&out.cql_loss, &out.cql_grad_norm, &out.cql_grad_clipped};
  }
  return {&out.main_loss, &out.main_grad_norm, &out.main_grad_clipped};
}

double ClipToBudgets(std::span<const float* const> grads, std::span<const double> budgets, int64_t n, float* sum,
                     std::span<PartNorm> norms) {
  std::vector<float> coefficient(grads.size());
  for (size_t k = 0; k < grads.size(); ++k) {
    const double norm = GlobalNorm(grads[k], n);
    coefficient[k] = static_cast<float>(rules::ClipCoefficient(norm, budgets[k]));
    norms[k] = {norm, norm * coefficient[k]};
  }
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    double unclipped = 0;
    float clipped = 0;
    for (size_t k = 0; k < grads.size(); ++k) {
      unclipped += grads[k][i];
      clipped = rules::AddF(clipped, rules::MulF(coefficient[k], grads[k][i]));
    }
    sum[i] = clipped;
    total += unclipped * unclipped;
  }
  return std::sqrt(total);
}

}  // namespace dqn
