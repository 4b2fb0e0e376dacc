// The parts of the training loss and their gradient budget (DESIGN section 4, "Heads" and
// "Gradient budget"; issue 23): the main head's loss, each auxiliary head's loss (one part per
// head, named by Head::part()) and CQL on the main head's Q-values. Each part's gradient is taken
// in its own buffer, clipped to its share of optim.grad_clip (rules::SplitGradientBudget), and the
// clipped gradients are summed for Adam (ClipToBudgets). The CPU learner runs them in list order.
//
// Usage (train/cpu_learner.cpp):
//   auto parts = MakeLossParts(layout, B);
//   for (auto& part : parts) loss += part->loss(layout, batch, ws_online, ws_target, td).loss;
//   for (k ...) parts[k]->backward(layout, online, states, B, ws_online, grads[k]);
//   grad_norm = ClipToBudgets(grads, budgets, n, sum, norms);
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "model/head.h"
#include "model/heads_config.h"
#include "model/q_network.h"
#include "rules/head_rules.h"
#include "train/scalar_block.h"

namespace dqn {

/// One term of the loss with its own gradient and budget share.
class LossPart {
 public:
  virtual ~LossPart() = default;
  /// Which budget share clips it and which ScalarBlock fields report it.
  virtual PartKind kind() const = 0;
  /// Its loss on `batch` from the online pass (2B rows: s, then s') and the target pass (B rows
  /// of s'), f64; writes its per-transition TD signal into td [B] (the main part's feeds the
  /// priority update). Keeps what backward needs.
  virtual HeadLoss loss(const ParamLayout& layout, const LossBatch& batch, Workspace& online, Workspace& target,
                        float* td) = 0;
  /// Its gradient through the heads it trains and the trunk, over the first `rows` rows (the
  /// states s [rows x D]) of the online pass, written (not added) into g. Runs after every
  /// earlier part's backward: a part that sets another head's output gradient (CQL, on the main
  /// head) comes after that head's own part in the list.
  virtual void backward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows,
                        Workspace& online, ParamView& g) = 0;
};

/// The parts of a run's loss: one per head of `layout` in head order (the main part first), then
/// CQL when heads.cql_alpha > 0. batch_size: B, for the parts' buffers.
std::vector<std::unique_ptr<LossPart>> MakeLossParts(const ParamLayout& layout, int64_t batch_size);

/// The max norm (ClipCoefficient's max_norm) of part `kind` under `budget`.
double PartBudget(const rules::GradientBudget& budget, PartKind kind);

/// The budget of a run: rules::SplitGradientBudget of grad_clip between the main head and the
/// auxiliary parts that `heads` enables.
rules::GradientBudget BudgetOf(const HeadsConfig& heads, double grad_clip);

/// A part's ScalarBlock fields: its loss, its gradient's L2 norm before and after its budget clip.
struct PartFields {
  double* loss;
  double* grad_norm;
  double* grad_clipped;
};
/// The fields of part `kind` in `out` (main_*, iqn_*, ensemble_* or cql_*).
PartFields PartScalars(ScalarBlock& out, PartKind kind);

/// A part's gradient norms (f64): before its clip, and after (norm times its coefficient).
struct PartNorm {
  double norm = 0;
  double clipped = 0;
};

/// Clips each part's gradient grads[k] [n] (f32) to budgets[k] (ClipCoefficient: 0 = unclipped)
/// and writes their sum into sum [n] (f32: coefficient rounded to f32, then one MulF and AddF
/// per part and element, parts in order). Writes each part's norms into norms[k] and returns the
/// L2 norm of the unclipped gradients' sum (f64). NaN/Inf propagate into the norms (the caller
/// checks them before using `sum`).
double ClipToBudgets(std::span<const float* const> grads, std::span<const double> budgets, int64_t n, float* sum,
                     std::span<PartNorm> norms);

}  // namespace dqn
