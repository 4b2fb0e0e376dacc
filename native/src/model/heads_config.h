// Which heads hang off the trunk and how they are trained (DESIGN section 4, "Heads"; issue 23).
// Plain data: the parameter layout, the CPU step, the checkpoint and the scalar list are built
// from it, and it travels unchanged into device code. Defaults and ranges are those of the
// `heads` section of common/config.ts, which validates a run's config before it gets here.
#pragma once

namespace dqn {

/// The head that acts (greedy actions, evaluation, Q-stats) and whose loss is the main loss.
enum class MainHead : int {
  kQ = 0,    ///< expected Q-values, plain or dueling (Mnih et al. 2015; Wang et al. 2016)
  kC51 = 1,  ///< categorical return distribution on a fixed support (Bellemare et al. 2017)
  kIqn = 2,  ///< implicit quantile network (Dabney et al. 2018)
};

/// C51: the return distribution on `atoms` evenly spaced values in [v_min, v_max].
struct C51Config {
  int atoms = 51;
  double v_min = -10;
  double v_max = 10;
};

/// IQN: quantile fractions tau ~ U(0, 1) embedded by cos(pi i tau), i = 0..embedding-1
/// (Dabney et al. 2018, eq. 4), multiplied into the trunk's features.
struct IqnConfig {
  int n = 8;           ///< N: fractions for the online quantiles of s
  int n_prime = 8;     ///< N': fractions for the target quantiles of s'
  int k = 32;          ///< K: fractions averaged to act
  int embedding = 64;  ///< cosine embedding size (the paper's n = 64)
  double kappa = 1;    ///< quantile Huber threshold (eq. 3)
};

/// Every head and auxiliary part of a run. The gradient budget: each enabled auxiliary part
/// (IQN beside another main head, the ensemble, CQL) has `share` of optim.grad_clip; the main
/// head gets 1 minus the enabled shares (all of grad_clip when none is enabled).
struct HeadsConfig {
  MainHead main = MainHead::kQ;
  C51Config c51;
  IqnConfig iqn;
  bool iqn_auxiliary = false;  ///< an IQN head trained beside a Q or C51 main head
  double iqn_share = 0.2;
  int ensemble_heads = 0;      ///< K extra Q heads (Osband et al. 2016); 0 = off
  double ensemble_p = 0.5;     ///< Bernoulli p of each transition's bootstrap mask, per head
  double ensemble_share = 0.1;
  double cql_alpha = 0;        ///< CQL(H) weight (Kumar et al. 2020); 0 = off
  double cql_share = 0.1;
  double sigma_max = 0;        ///< spectral normalisation bound (Miyato et al. 2018); 0 = off
  bool spectral_trunk = true;  ///< normalise the trunk's weight matrices (when sigma_max > 0)
  bool spectral_heads = false; ///< normalise the heads' weight matrices (when sigma_max > 0)

  bool ensemble() const { return ensemble_heads > 0; }
  bool cql() const { return cql_alpha > 0; }
  bool spectral() const { return sigma_max > 0; }
  /// True when only today's Q head is on: the layout, step and checkpoint of version 1.
  bool plain_q() const { return main == MainHead::kQ && !iqn_auxiliary && !ensemble() && !cql() && !spectral(); }
};

}  // namespace dqn
