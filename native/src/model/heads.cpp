// The heads factory and the heads description (see heads.h).
#include "model/heads.h"

#include <charconv>
#include <stdexcept>

#include "model/c51_head.h"
#include "model/ensemble_head.h"
#include "model/iqn_head.h"
#include "model/q_head.h"
#include "rules/head_rules.h"

namespace dqn {
namespace {

/// The combinations no head can train, and the shares' ranges (common/config.ts headsProblems
/// says the same to the editor; this is the native guard for callers that skip the schema).
void CheckHeads(const HeadsConfig& h) {
  if (h.cql() && h.main == MainHead::kIqn)
    throw std::invalid_argument(
        "CQL needs a main head with deterministic Q-values: set heads.main to 'q' or 'c51', or heads.cql.alpha to 0");
  if (h.iqn_auxiliary && h.main == MainHead::kIqn)
    throw std::invalid_argument(
        "an auxiliary IQN head goes beside a q or c51 main head: set heads.iqn.auxiliary to false or heads.main to 'q' or 'c51'");
  const std::pair<const char*, rules::BudgetShare> shares[] = {{"heads.iqn.share", {h.iqn_auxiliary, h.iqn_share}},
                                                               {"heads.ensemble.share", {h.ensemble(), h.ensemble_share}},
                                                               {"heads.cql.share", {h.cql(), h.cql_share}}};
  double sum = 0;
  for (const auto& [name, s] : shares) {
    if (!s.enabled) continue;
    if (!(s.share >= 0 && s.share < 1))
      throw std::invalid_argument(std::string(name) + " must be in [0, 1), got " + FieldText(s.share));
    sum += s.share;
  }
  if (!(sum < 1))
    throw std::invalid_argument("the enabled parts' gradient-budget shares must sum to below 1 (the main head keeps the rest), got " +
                                FieldText(sum) + "; lower them");
}

}  // namespace

std::vector<std::shared_ptr<const Head>> MakeHeads(const NetConfig& net) {
  const HeadsConfig& h = net.heads;
  CheckHeads(h);
  const int f = net.hidden.empty() ? 0 : net.hidden.back();
  std::vector<std::shared_ptr<const Head>> heads;
  // The main head: it acts, and its loss is the main part of the budget.
  switch (h.main) {
    case MainHead::kQ: heads.push_back(std::make_shared<QHead>(f, net.n_actions, net.dueling)); break;
    case MainHead::kC51: heads.push_back(std::make_shared<C51Head>(f, net.n_actions, net.dueling, h.c51)); break;
    case MainHead::kIqn: heads.push_back(std::make_shared<IqnHead>(f, net.n_actions, net.dueling, h.iqn, PartKind::kMain)); break;
  }
  // The auxiliary heads, one line each (an auxiliary head trains as the budget part its
  // Head::part() names, train/loss_parts.h).
  if (h.iqn_auxiliary)  // IQN beside the main head (Dabney et al. 2018)
    heads.push_back(std::make_shared<IqnHead>(f, net.n_actions, net.dueling, h.iqn, PartKind::kIqn, h.iqn_share));
  if (h.ensemble())  // the bootstrapped ensemble (Osband et al. 2016)
    heads.push_back(std::make_shared<EnsembleHead>(f, net.n_actions, net.dueling, h));
  return heads;
}

std::vector<ConfigField> DescribeHeads(const NetConfig& net) {
  std::vector<ConfigField> out;
  for (const auto& head : MakeHeads(net))
    for (ConfigField& f : head->fields()) out.push_back(std::move(f));
  const HeadsConfig& h = net.heads;
  if (h.cql()) {
    out.push_back({"heads.cql.alpha", FieldText(h.cql_alpha)});
    out.push_back({"heads.cql.share", FieldText(h.cql_share)});
  }
  if (h.spectral()) {
    out.push_back({"heads.spectral.sigma_max", FieldText(h.sigma_max)});
    out.push_back({"heads.spectral.trunk", h.spectral_trunk ? "true" : "false"});
    out.push_back({"heads.spectral.heads", h.spectral_heads ? "true" : "false"});
  }
  return out;
}

std::string FieldText(double x) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, r.ptr);
}

}  // namespace dqn
