// The seed group's lockstep loop (see trainer_group.h).
#include "train/trainer_group.h"

#include <exception>
#include <stdexcept>

namespace dqn {

TrainerGroup::TrainerGroup(const TrainerConfig& config, const std::vector<uint64_t>& seeds) {
  if (seeds.empty()) throw std::invalid_argument("a seed group needs at least one seed");
  // The first member's trainer derives the shapes (from its environment) and builds the whole
  // group's learners; every member then takes its own.
  for (size_t s = 0; s < seeds.size(); ++s) {
    TrainerConfig c = config;
    c.seed = c.env.seed = seeds[s];  // every random stream of a trainer derives from its seed
    const LearnerFactory make = [&, s](const NetConfig& net, const LearnerConfig& lc, uint64_t, std::vector<FeatureGroup> features) {
      if (!learners_) learners_ = MakeLearnerGroup(config.compute, net, lc, seeds, features);
      return MemberOf(learners_, static_cast<int>(s));
    };
    members_.push_back(std::make_shared<Trainer>(c, make));
  }
  active_.assign(seeds.size(), true);
  retired_ = std::vector<std::atomic<bool>>(seeds.size());
}

void TrainerGroup::request_stop() noexcept {
  for (auto& m : members_) m->request_stop();
}

void TrainerGroup::clear_stop() noexcept {
  for (auto& m : members_) m->clear_stop();
}

std::vector<MemberRun> TrainerGroup::run(int64_t steps) {
  const size_t n = members_.size();
  std::vector<MemberRun> out(n);
  // A member's own error retires it; a group launch's error propagates.
  const auto guarded = [&](size_t s, auto&& f) {
    try {
      f();
    } catch (const DeviceLost&) {
      throw;
    } catch (const std::exception& e) {
      out[s].error = e.what();
      active_[s] = false;
    }
  };
  // Retirements asked meanwhile take effect at a step boundary; true while any member trains.
  const auto take_retirements = [&] {
    bool any = false;
    for (size_t s = 0; s < n; ++s) {
      if (retired_[s].load(std::memory_order_relaxed)) active_[s] = false;
      any = any || active_[s];
    }
    return any;
  };
  take_retirements();
  for (size_t s = 0; s < n; ++s)
    if (active_[s]) guarded(s, [&] { members_[s]->begin_run(steps); });
  std::vector<Replay*> replays(n);
  std::vector<ScalarBlock*> outs(n);
  for (size_t s = 0; s < n; ++s) replays[s] = &members_[s]->replay(), outs[s] = &members_[s]->scalars();
  std::vector<uint32_t> flags;
  for (int64_t i = 0; i < steps; ++i) {
    bool stopped = false;
    for (size_t s = 0; s < n; ++s)
      if (active_[s]) guarded(s, [&] { stopped = !members_[s]->collect_until_due(out[s].stats) || stopped; });
    if (!take_retirements() || stopped) break;
    learners_->train(replays, outs, active_, flags);
    for (size_t s = 0; s < n; ++s)
      if (active_[s]) guarded(s, [&] { members_[s]->after_train(flags[s], out[s].stats); });
  }
  for (size_t s = 0; s < n; ++s)
    if (active_[s]) guarded(s, [&] { members_[s]->end_run(steps, out[s].stats); });
  return out;
}

}  // namespace dqn
