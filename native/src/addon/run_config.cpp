// RunConfig -> TrainerConfig conversion (see run_config.h).
#include "addon/run_config.h"

#include <cfloat>
#include <string>

#include "addon/check.h"
#include "addon/env_spec.h"
#include "train/scalar_block.h"

namespace dqn::addon {
namespace {

/// A nested object property, checked, with its path for messages.
struct Section {
  Napi::Object o;
  std::string path;
  Napi::Value get(const char* key) const { return Prop(o, key, path); }
  std::string at(const char* key) const { return path + "." + key; }
  double num(const char* key, double lo, double hi) const { return Number(get(key), at(key), lo, hi); }
  int64_t integer(const char* key, int64_t lo, int64_t hi) const { return Integer(get(key), at(key), lo, hi); }
  bool flag(const char* key) const {
    const Napi::Value v = get(key);
    if (!v.IsBoolean()) ThrowType(o.Env(), at(key) + " must be a boolean");
    return v.As<Napi::Boolean>().Value();
  }
  size_t choice(const char* key, std::initializer_list<const char*> choices) const {
    return OneOf(get(key), at(key), choices);
  }
  /// A gradient-budget share: a number in [0, 1).
  double share(const char* key) const {
    const double x = num(key, 0, 1);
    if (x == 1) ThrowRange(o.Env(), at(key) + " must be below 1 (the main head keeps the rest of the budget), got 1");
    return x;
  }
  Section sub(const char* key) const {
    const Napi::Value v = get(key);
    if (!v.IsObject() || v.IsArray()) ThrowType(o.Env(), at(key) + " must be an object");
    return {v.As<Napi::Object>(), at(key)};
  }
};

/// The `heads` section (common/config.ts HeadsSchema) -> HeadsConfig, every field range-checked.
/// Cross-field rules (v_min < v_max, the shares' sum, CQL's main head) are the schema's; the
/// support's order is checked again here because a reversed support breaks the projection.
HeadsConfig ParseHeads(const Section& heads) {
  HeadsConfig h;
  constexpr MainHead kMains[] = {MainHead::kQ, MainHead::kC51, MainHead::kIqn};
  h.main = kMains[heads.choice("main", {"q", "c51", "iqn"})];
  const Section c51 = heads.sub("c51");
  h.c51.atoms = static_cast<int>(c51.integer("atoms", 2, kMaxAtoms));
  h.c51.v_min = c51.num("v_min", -1e6, 1e6);
  h.c51.v_max = c51.num("v_max", -1e6, 1e6);
  if (h.c51.v_min >= h.c51.v_max)
    ThrowRange(heads.o.Env(), c51.at("v_min") + " must be below " + c51.at("v_max") + ", got " + Show(h.c51.v_min) + " >= " + Show(h.c51.v_max));
  const Section iqn = heads.sub("iqn");
  h.iqn.n = static_cast<int>(iqn.integer("n", 1, 256));
  h.iqn.n_prime = static_cast<int>(iqn.integer("n_prime", 1, 256));
  h.iqn.k = static_cast<int>(iqn.integer("k", 1, 1024));
  h.iqn.embedding = static_cast<int>(iqn.integer("embedding", 1, 1024));
  h.iqn.kappa = iqn.num("kappa", DBL_MIN, 1e6);
  h.iqn_auxiliary = iqn.flag("auxiliary");
  h.iqn_share = iqn.share("share");
  const Section ensemble = heads.sub("ensemble");
  h.ensemble_heads = static_cast<int>(ensemble.integer("heads", 0, 32));
  h.ensemble_p = ensemble.num("bootstrap_p", DBL_MIN, 1);
  h.ensemble_share = ensemble.share("share");
  const Section cql = heads.sub("cql");
  h.cql_alpha = cql.num("alpha", 0, 1e6);
  h.cql_share = cql.share("share");
  const Section spectral = heads.sub("spectral");
  h.sigma_max = spectral.num("sigma_max", 0, 1e6);
  h.spectral_trunk = spectral.flag("trunk");
  h.spectral_heads = spectral.flag("heads");
  return h;
}

}  // namespace

HeadsConfig ToHeadsConfig(const Napi::Value& heads, const std::string& path) {
  if (!heads.IsObject() || heads.IsArray()) ThrowType(heads.Env(), path + " must be an object");
  return ParseHeads({heads.As<Napi::Object>(), path});
}

TrainerConfig ToTrainerConfig(const Napi::Value& config, const Napi::Value& market, Compute compute) {
  if (!config.IsObject()) ThrowType(config.Env(), "config must be a RunConfig object (from parseRunConfig)");
  const Section root{config.As<Napi::Object>(), "config"};
  TrainerConfig c;
  c.seed = static_cast<uint64_t>(root.integer("seed", 0, 2147483647));
  c.env = ParseEnvSpec(root.sub("env").o, market, c.seed);
  constexpr Collector kCollectors[] = {Collector::kAuto, Collector::kHost, Collector::kDevice};
  c.collector = kCollectors[root.sub("env").choice("collector", {"auto", "host", "device"})];
  c.simulate_collector_oom = root.sub("env").flag("simulate_collector_oom");

  const Section net = root.sub("network");
  const Napi::Value hidden = net.get("hidden");
  if (!hidden.IsArray()) ThrowType(config.Env(), "config.network.hidden must be an array of layer widths");
  const auto widths = hidden.As<Napi::Array>();
  if (widths.Length() < 1 || widths.Length() > 8)
    ThrowRange(config.Env(), "config.network.hidden must have 1 to 8 layers, got " + std::to_string(widths.Length()));
  c.net.hidden.clear();
  for (uint32_t i = 0; i < widths.Length(); ++i)
    c.net.hidden.push_back(static_cast<int>(Integer(widths.Get(i), "config.network.hidden[" + std::to_string(i) + "]", 1, 4096)));
  c.net.dueling = net.flag("dueling");
  c.net.heads = ParseHeads(root.sub("heads"));
  constexpr Precision kPrecisions[] = {Precision::kTF32, Precision::kBF16, Precision::kFP32};
  c.learner.precision = kPrecisions[net.choice("precision", {"tf32", "bf16", "fp32"})];
  c.compute = compute;

  const Section replay = root.sub("replay");
  c.replay.capacity = replay.integer("capacity", 64, 100000000);
  constexpr Sampler kSamplers[] = {Sampler::kProportional, Sampler::kRank, Sampler::kUniform};
  c.replay.sampler = kSamplers[replay.choice("sampler", {"proportional", "rank", "uniform"})];
  c.replay.alpha = replay.num("alpha", 0, 1);
  c.replay.beta0 = replay.num("beta0", 0, 1);
  c.replay.beta_steps = replay.integer("beta_steps", 1, 1000000000000);
  c.replay.eps = replay.num("eps", 0, 1);
  c.replay.p_clip = replay.num("p_clip", 1e-6, 1e12);
  c.replay.is_normalization =
      replay.choice("is_normalization", {"buffer", "batch"}) == 0 ? IsNormalization::kBuffer : IsNormalization::kBatch;
  c.replay.rank_sort_interval = replay.integer("rank_sort_interval", 1, 1000000);
  // replay.device 'auto' follows the compute backend.
  const ReplayDevice automatic = compute == Compute::kCuda ? ReplayDevice::kCuda : ReplayDevice::kCpu;
  const ReplayDevice kDevices[] = {automatic, ReplayDevice::kCpu, ReplayDevice::kCuda};
  c.replay_placement.device = kDevices[replay.choice("device", {"auto", "cpu", "cuda"})];
  c.replay_placement.state_bf16 = replay.choice("state_dtype", {"f32", "bf16"}) == 1;
  c.replay_placement.simulate_oom = replay.flag("simulate_oom");

  const Section optim = root.sub("optim");
  c.learner.adam.lr = optim.num("lr", DBL_MIN, 1);
  c.learner.adam.eps = optim.num("adam_eps", 1e-12, 1);
  c.learner.lr_decay_steps = optim.integer("lr_decay_steps", 0, 1000000000000);
  const Napi::Value lr_end = optim.o.Get("lr_end");
  c.learner.lr_end = lr_end.IsUndefined() ? c.learner.adam.lr : Number(lr_end, optim.at("lr_end"), DBL_MIN, 1);
  c.learner.grad_clip = optim.num("grad_clip", 0, 1e6);
  c.learner.batch_size = optim.integer("batch_size", 1, 65536);
  c.gamma = optim.num("gamma", 0, 1);
  c.n_step = static_cast<int>(optim.integer("n_step", 1, 32));
  c.learner.double_dqn = optim.flag("double_dqn");
  c.learner.huber_delta = optim.num("huber_delta", 1e-6, 1e6);
  const Section target = optim.sub("target_update");
  if (target.choice("kind", {"hard", "polyak"}) == 0) {
    c.learner.target_update = TargetUpdate::kHard;
    c.learner.target_interval = target.integer("interval", 1, 10000000);
  } else {
    c.learner.target_update = TargetUpdate::kPolyak;
    c.learner.tau = target.num("tau", 1e-6, 1);
  }

  const Section explore = root.sub("exploration");
  c.exploration.eps_start = explore.num("eps_start", 0, 1);
  c.exploration.eps_end = explore.num("eps_end", 0, 1);
  c.exploration.eps_decay_steps = explore.integer("eps_decay_steps", 1, 1000000000000);

  const Section schedule = root.sub("schedule");
  c.learning_starts = schedule.integer("learning_starts", 0, 1000000000);
  c.train_every = schedule.integer("train_every", 1, 1024);
  c.learner.q_stats_interval = schedule.integer("q_stats_interval", 1, 1000000000);
  c.learner.causal_interval = schedule.integer("causal_interval", 1, 1000000000);
  c.learner.actor_sync_interval = schedule.integer("actor_sync_interval", 1, 1000000000);
  c.learner.deterministic = schedule.flag("deterministic");
  return c;
}

}  // namespace dqn::addon
