// The native Trainer's collection, training and evaluation loops (see trainer.h); its
// checkpoint format is in trainer_state.cpp.
#include "train/trainer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "train/make_collection.h"

namespace dqn {
namespace {

/// The evaluation env's spec: a trading copy walks the whole (deterministic) validation span, so
/// one copy does the work of all; CartPole evaluates episodes on all copies in parallel.
EnvSpec EvalSpec(EnvSpec spec) {
  if (spec.kind == "trading") spec.num_envs = 1;
  return spec;
}

bool HasTestSpan(const EnvSpec& spec) { return spec.kind == "trading" && spec.test_fraction > 0; }

}  // namespace

namespace {

constexpr uint64_t kExploreStream = 1;  // Rng stream ids derived from the run seed
constexpr uint64_t kReplayStream = 2;

bool AllFinite(const float* x, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

const TrainerConfig& Checked(const TrainerConfig& c) {
  const auto& e = c.exploration;
  if (!(e.eps_start >= 0 && e.eps_start <= 1 && e.eps_end >= 0 && e.eps_end <= e.eps_start))
    throw std::invalid_argument("epsilon schedule needs 0 <= eps_end <= eps_start <= 1, got eps_start " +
                                std::to_string(e.eps_start) + ", eps_end " + std::to_string(e.eps_end));
  if (e.eps_decay_steps < 1)
    throw std::invalid_argument("eps_decay_steps must be >= 1, got " + std::to_string(e.eps_decay_steps));
  if (c.learning_starts < 0)
    throw std::invalid_argument("learning_starts must be >= 0, got " + std::to_string(c.learning_starts));
  if (c.train_every < 1) throw std::invalid_argument("train_every must be >= 1, got " + std::to_string(c.train_every));
  if (c.learner.batch_size > c.replay.capacity)
    throw std::invalid_argument("batch_size (" + std::to_string(c.learner.batch_size) +
                                ") must not exceed replay capacity (" + std::to_string(c.replay.capacity) + ")");
  return c;
}

}  // namespace

Trainer::Trainer(const TrainerConfig& config, const LearnerFactory& make)
    : config_(Checked(config)),
      env_(MakeEnv(config.env, EnvRole::kTrain)),
      eval_env_(MakeEnv(EvalSpec(config.env), EnvRole::kValidation)),
      test_env_(HasTestSpan(config.env) ? MakeEnv(EvalSpec(config.env), EnvRole::kTest) : nullptr),
      n_step_(env_->num_envs(), env_->obs_dim(), config.n_step, config.gamma),
      staging_(env_->obs_dim()),
      explore_rng_(config.seed, kExploreStream) {
  const auto e = static_cast<size_t>(env_->num_envs()), d = static_cast<size_t>(env_->obs_dim());
  config_.net.state_dim = env_->obs_dim();
  config_.net.n_actions = env_->num_actions();
  config_.replay.state_dim = env_->obs_dim();
  config_.replay.seed = Rng(config.seed, kReplayStream).next();
  config_.learner.act_rows = std::max(env_->num_envs(), eval_env_->num_envs());
  ReplayChoice choice = MakeReplay(config_.replay, config_.replay_placement);
  replay_ = std::move(choice.replay);
  replay_fallback_ = std::move(choice.fallback_reason);
  replay_runtime_fallback_ = std::move(choice.runtime_fallback_reason);
  learner_ = make ? make(config_.net, config_.learner, config.seed, env_->causal_features())
                 : MakeLearner(config_.compute, config_.net, config_.learner, config.seed, env_->causal_features());
  if (ScalarBlock* pinned = learner_->host_block()) {  // the CUDA learner's pinned block is the live block
    *pinned = *scalars_;
    scalars_ = pinned;
  }

  obs_.resize(e * d);
  next_obs_.resize(e * d);
  final_obs_.resize(e * d);
  rewards_.resize(e);
  actions_.resize(e);
  greedy_.resize(e);
  terminated_.resize(e);
  truncated_.resize(e);
  ep_return_.assign(e, 0.0);
  ep_length_.assign(e, 0);
  env_->reset(obs_.data());

  scalars_->epsilon = config_.exploration.eps_start;
  scalars_->beta = replay_->beta();
  CollectionChoice collection = MakeCollection(config_, *learner_, *replay_);
  device_ = std::move(collection.device);
  collector_reason_ = std::move(collection.reason);
  if (device_ && config_.env.kind == "trading") {
    EvaluationChoice eval = MakeEvaluation(config_, *learner_, *replay_);
    device_eval_ = std::move(eval.eval);
    collector_reason_ = TradingDeviceNote(eval.reason);
  }
}

double Trainer::epsilon() const {
  const auto& x = config_.exploration;
  const double frac = std::min(1.0, static_cast<double>(scalars_->env_steps) / static_cast<double>(x.eps_decay_steps));
  return x.eps_start + (x.eps_end - x.eps_start) * frac;
}

void Trainer::redirect_scalars(ScalarBlock* dst) {
  *dst = *scalars_;
  scalars_ = dst;
}

std::string Trainer::replay_fallback_reason() const {
  std::string later = replay_runtime_fallback_();
  return later.empty() ? replay_fallback_ : later;
}

std::vector<std::string> Trainer::causal_feature_names() const {
  std::vector<std::string> names;
  for (const FeatureGroup& g : env_->causal_features()) names.push_back(g.name);
  return names;
}

void Trainer::halt(uint32_t flags, int64_t step) {
  scalars_->nan_flags |= flags;
  std::string name = "unknown tensor";
  for (size_t bit = 0; bit < std::size(kNanFlagNames); ++bit)
    if (flags & (1u << bit)) {
      name = kNanFlagNames[bit];
      break;
    }
  halted_ = "NaN in " + name + " at step " + std::to_string(step);
  throw std::runtime_error(halted_);
}

// One step of every env copy: epsilon-greedy actions, env step, n-step transitions into replay.
void Trainer::collect(bool random_actions, RunStats& stats) {
  const int e = env_->num_envs(), d = env_->obs_dim(), a = env_->num_actions();
  const double eps = random_actions ? 1.0 : epsilon();
  bool any_greedy = false;
  for (int i = 0; i < e; ++i) {
    const bool explore = explore_rng_.uniform() < eps;
    actions_[static_cast<size_t>(i)] = explore ? static_cast<int32_t>(explore_rng_.below(a)) : -1;
    any_greedy = any_greedy || !explore;
  }
  if (any_greedy) {
    learner_->greedy(obs_.data(), e, greedy_.data());
    for (size_t i = 0; i < static_cast<size_t>(e); ++i)
      if (actions_[i] < 0) actions_[i] = greedy_[i];
  }
  env_->step(actions_.data(), next_obs_.data(), rewards_.data(), terminated_.data(), truncated_.data(),
             final_obs_.data());
  if (!AllFinite(rewards_.data(), rewards_.size())) halt(kNanReward, learner_->steps() + 1);
  if (!AllFinite(next_obs_.data(), next_obs_.size()) || !AllFinite(final_obs_.data(), final_obs_.size()))
    halt(kNanObservation, learner_->steps() + 1);

  for (int i = 0; i < e; ++i) {
    const auto u = static_cast<size_t>(i);
    const bool term = terminated_[u] != 0, trunc = truncated_[u] != 0;
    // final_obs is the true s' (also at a truncation), never the next episode's reset state.
    n_step_.push(i, &obs_[u * d], actions_[u], rewards_[u], &final_obs_[u * d], term, trunc, staging_);
    ep_return_[u] += rewards_[u];
    ++ep_length_[u];
    if (term || trunc) {
      scalars_->episodic_return = ep_return_[u];
      scalars_->episode_length = static_cast<double>(ep_length_[u]);
      ++scalars_->episodes;
      stats.episode_returns.push_back(ep_return_[u]);
      stats.episode_env_steps.push_back(scalars_->env_steps + i + 1);  // env_steps advances by e after the loop
      ep_return_[u] = 0;
      ep_length_[u] = 0;
    }
  }
  if (staging_.count() > 0) {
    learner_->insert(*replay_, staging_.batch());
    staging_.clear();
  }
  obs_.swap(next_obs_);
  count_vector_step(random_actions);
}

void Trainer::count_vector_step(bool random_actions) {
  scalars_->env_steps += env_->num_envs();
  scalars_->epsilon = random_actions ? 1.0 : epsilon();
}

void Trainer::begin_run(int64_t steps) {
  if (!halted_.empty()) throw std::runtime_error(halted_);
  if (steps < 0) throw std::invalid_argument("steps must be >= 0, got " + std::to_string(steps));
  if (!device_) return;
  // Before the first gradient step the replay must hold a transition (every copy emits one once
  // its n-step window is full: n vector steps) and, after a load_state, refill_ of them.
  const int64_t e = device_->num_envs(), size = replay_->size();
  const int64_t wanted = std::max<int64_t>(refill_, 1);
  device_fill_until_ = scalars_->env_steps + (size >= wanted ? 0 : (config_.n_step - 1 + (wanted - size + e - 1) / e) * e);
  device_->begin(scalars_->env_steps);
}

bool Trainer::queue_until_due(int64_t needed, RunStats& stats) {
  while ((scalars_->env_steps < needed || scalars_->env_steps < device_fill_until_) && !stop_.load(std::memory_order_relaxed)) {
    const bool random_actions = scalars_->env_steps < config_.learning_starts;
    if (!device_->queue_step()) return false;
    count_vector_step(random_actions);
  }
  // The replay's host count lags the device's inserts: made exact once before a first sample
  // (the drain that does it reports the episodes ended so far).
  if (replay_->size() == 0) drain_device(stats);
  return true;
}

bool Trainer::collect_until_due(RunStats& stats) {
  const auto stopping = [&] { return stop_.load(std::memory_order_relaxed); };
  // Random actions for the first learning_starts env steps, then train_every env steps (all
  // copies together) per gradient step.
  const int64_t needed = config_.learning_starts + (learner_->steps() + 1) * config_.train_every;
  if (device_) {
    if (queue_until_due(needed, stats)) return !stopping();
    drain_device(stats);  // the device stopped collecting: its episodes so far, then the host (evaluation walks too)
    collector_reason_ = device_->reason();
    device_.reset();
    device_eval_.reset();
  }
  while ((scalars_->env_steps < needed || replay_->size() == 0 || replay_->size() < refill_) && !stopping())
    collect(scalars_->env_steps < config_.learning_starts, stats);
  return !stopping();
}

// A flagged step changes no parameter, so the flagged one is the step after the last counted.
void Trainer::after_train(uint32_t flags, RunStats& stats) {
  if (flags) halt(flags, scalars_->step + 1);
  ++stats.steps;
}

void Trainer::end_run(int64_t steps, RunStats& stats) {
  // The epoch boundary: the one place the CUDA learner waits for the device.
  if (const uint32_t flags = learner_->finish(*scalars_)) halt(flags, scalars_->step + 1);
  if (device_) drain_device(stats);
  stats.stopped = stats.steps < steps;
}

void Trainer::drain_device(RunStats& stats) {
  int64_t dropped = 0;
  const std::vector<EndedEpisode> ended = device_->drain(&dropped);
  for (const EndedEpisode& x : ended) {
    stats.episode_returns.push_back(x.ret);
    stats.episode_env_steps.push_back(x.env_step);
  }
  scalars_->episodes += static_cast<int64_t>(ended.size()) + dropped;
  if (!ended.empty()) {
    scalars_->episodic_return = ended.back().ret;
    scalars_->episode_length = static_cast<double>(ended.back().length);
  }
}

RunStats Trainer::run(int64_t steps) {
  begin_run(steps);
  RunStats stats;
  // One gradient step at a time: sample, learn, write the TD errors back as priorities
  // (queued on CUDA).
  while (stats.steps < steps && collect_until_due(stats)) after_train(learner_->train(*replay_, *scalars_), stats);
  end_run(steps, stats);
  return stats;
}

EvalStats Trainer::evaluate(int episodes, EnvRole span) {
  if (episodes < 1) throw std::invalid_argument("episodes must be >= 1, got " + std::to_string(episodes));
  if (span == EnvRole::kTrain) throw std::invalid_argument("evaluate: the span must be validation or test");
  if (span == EnvRole::kTest && !test_env_)
    throw std::invalid_argument("evaluate: this run has no test span (env.test_fraction is 0)");
  if (device_eval_) {
    try {
      return evaluate_on_device(episodes, span);
    } catch (const DeviceLost&) {
      throw;
    } catch (const std::runtime_error& e) {  // a launch or the read failed: this walk and the later ones on the host
      device_eval_.reset();
      collector_reason_ = TradingDeviceNote(std::string("a GPU walk failed (") + e.what() + "), so they went on on the host");
    }
  }
  VecEnv& walk = span == EnvRole::kTest ? *test_env_ : *eval_env_;
  const int e = walk.num_envs();
  const auto n = static_cast<size_t>(e), d = static_cast<size_t>(walk.obs_dim());
  std::vector<float> obs(n * d), next(n * d), final_obs(n * d), rewards(n);
  std::vector<int32_t> actions(n);
  std::vector<uint8_t> term(n), trunc(n);
  std::vector<double> ret(n, 0.0);
  std::vector<bool> counted(n);
  walk.reset(obs.data());
  // A copy's episode counts only if it started while fewer than `episodes` had been started.
  int started = 0;
  for (size_t i = 0; i < n; ++i) counted[i] = started < episodes && ++started;
  EvalStats out;
  learner_->refresh_actor();  // evaluation uses the current weights
  while (static_cast<int>(out.returns.size()) < episodes) {
    if (stop_.load(std::memory_order_relaxed)) {
      out.stopped = true;
      break;
    }
    learner_->greedy(obs.data(), e, actions.data());
    walk.step(actions.data(), next.data(), rewards.data(), term.data(), trunc.data(), final_obs.data());
    for (size_t i = 0; i < n; ++i) {
      if (!counted[i]) continue;
      ret[i] += rewards[i];
      if (term[i] || trunc[i]) {
        out.returns.push_back(ret[i]);
        ret[i] = 0;
        counted[i] = started < episodes && ++started;
      }
    }
    obs.swap(next);
  }
  out.episodes = static_cast<int>(out.returns.size());
  double sum = 0;
  for (double r : out.returns) sum += r;
  out.mean_return = out.episodes ? sum / out.episodes : 0.0;
  out.metrics = walk.episode_metrics();
  out.series = walk.episode_series();
  return out;
}

EvalStats Trainer::evaluate_on_device(int episodes, EnvRole span) {
  EvalStats out;
  if (stop_.load(std::memory_order_relaxed)) {
    out.stopped = true;
    return out;
  }
  DeviceWalk w = device_eval_->walk(span);
  // Every walk of a span from the same weights is the same walk: `episodes` of them, their
  // figures averaged as the host's env averages its finished episodes (summed, then divided).
  out.episodes = episodes;
  out.returns.assign(static_cast<size_t>(episodes), w.ret);
  double sum = 0;
  for (double r : out.returns) sum += r;
  out.mean_return = sum / episodes;
  for (const auto& [k, v] : w.report.metrics) {
    double total = 0;
    for (int i = 0; i < episodes; ++i) total += v;
    out.metrics[k] = total / episodes;
  }
  out.series = std::move(w.report.series);
  return out;
}

}  // namespace dqn
