// Binding: TrainerGroup.build(config, market, backend, seeds) -> Promise<group>, a seed group
// of trainers trained in lockstep (train/trainer_group.h). The group object has
//   members: Trainer[]          one JS Trainer per seed (evaluate, saveState, loadState, scalars,
//                               info, close as any Trainer; run() belongs to the group)
//   run(steps) -> Promise<[{ steps, stopped, episodeReturns, episodeEnvSteps, error }]>
//                               `steps` gradient steps of every active member; error is "" or
//                               why that member halted (it is then left out of later runs)
//   stop()                      makes a running run() return after the current step
//   retire(s)                   leaves member s out of later runs
// run() claims every member (their evaluate / saveState / loadState throw "busy" meanwhile)
// and throws when any member is busy.
#include <napi.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "addon/bindings.h"
#include "addon/build_worker.h"
#include "addon/check.h"
#include "addon/run_config.h"
#include "train/trainer_group.h"

namespace dqn::addon {
namespace {

/// Most seeds in one group (the CPU group's bound; a CUDA group allows 16).
constexpr double kMaxSeeds = 100;

/// The native group and its members' shared busy flags.
struct GroupState {
  std::shared_ptr<TrainerGroup> group;
  std::vector<std::shared_ptr<std::atomic<bool>>> busy;
};

/// Runs TrainerGroup::run on a worker thread; releases every member's busy flag when done.
class GroupRunWorker : public Napi::AsyncWorker {
 public:
  GroupRunWorker(Napi::Env env, std::shared_ptr<GroupState> state, int64_t steps)
      : Napi::AsyncWorker(env, "dqn.TrainerGroup.run"), deferred_(Napi::Promise::Deferred::New(env)), state_(std::move(state)),
        steps_(steps) {}
  Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      result_ = state_->group->run(steps_);
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnOK() override {
    release();
    Napi::Env env = Env();
    Napi::Array out = Napi::Array::New(env, result_.size());
    for (uint32_t s = 0; s < result_.size(); ++s) {
      Napi::Object o = RunStatsObject(env, result_[s].stats);
      o.Set("error", result_[s].error);
      out.Set(s, o);
    }
    deferred_.Resolve(out);
  }
  void OnError(const Napi::Error& e) override {
    release();
    deferred_.Reject(e.Value());
  }

 private:
  void release() {
    for (auto& b : state_->busy) *b = false;
  }
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<GroupState> state_;
  int64_t steps_;
  std::vector<MemberRun> result_;
};

/// The group's JS object over `state` (members wrapped as Trainers).
Napi::Object GroupObject(Napi::Env env, const std::shared_ptr<GroupState>& state) {
  Napi::Object o = Napi::Object::New(env);
  const int n = state->group->size();
  Napi::Array members = Napi::Array::New(env, static_cast<size_t>(n));
  for (int s = 0; s < n; ++s)
    members.Set(static_cast<uint32_t>(s), WrapGroupMember(env, state->group->shared_member(s), state->busy[static_cast<size_t>(s)]));
  o.Set("members", members);
  o.Set("run", Napi::Function::New(env, [state](const Napi::CallbackInfo& info) -> Napi::Value {
          Napi::Env e = info.Env();
          const int64_t steps = Integer(info[0], "steps", 0, 9007199254740992.0);
          for (size_t s = 0; s < state->busy.size(); ++s)
            if (state->busy[s]->exchange(true)) {
              for (size_t k = 0; k < s; ++k) *state->busy[k] = false;
              throw Napi::Error::New(e, "run: member " + std::to_string(s) + " of the seed group is busy (an evaluate() or a run() is in progress)");
            }
          state->group->clear_stop();
          auto* w = new GroupRunWorker(e, state, steps);
          w->Queue();
          return w->promise();
        }, "run"));
  o.Set("stop", Napi::Function::New(env, [state](const Napi::CallbackInfo& info) -> Napi::Value {
          state->group->request_stop();
          return info.Env().Undefined();
        }, "stop"));
  o.Set("retire", Napi::Function::New(env, [state](const Napi::CallbackInfo& info) -> Napi::Value {
          const auto s = static_cast<int>(Integer(info[0], "member", 0, state->group->size() - 1));
          state->group->retire(s);
          return info.Env().Undefined();
        }, "retire"));
  return o;
}

/// Builds the group off the JS thread (environments, replay buffers, the learners' one
/// allocation), then wraps it.
class GroupBuildWorker : public BuildWorker {
 public:
  GroupBuildWorker(Napi::Env env, TrainerConfig config, std::vector<uint64_t> seeds, std::optional<NanInjection> inject,
                   int inject_member)
      : BuildWorker(env, "dqn.TrainerGroup.build", "building the seed group"), config_(std::move(config)), seeds_(std::move(seeds)),
        inject_(inject), inject_member_(inject_member) {}

 protected:
  void Build() override {
    group_ = std::make_shared<TrainerGroup>(config_, seeds_);
    if (inject_) group_->member(inject_member_).learner().inject_nan(inject_->flag, inject_->step);
  }
  void OnOK() override {
    auto state = std::make_shared<GroupState>();
    state->group = group_;
    for (int s = 0; s < group_->size(); ++s) state->busy.push_back(std::make_shared<std::atomic<bool>>(false));
    try {
      deferred_.Resolve(GroupObject(Env(), state));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    }
  }

 private:
  TrainerConfig config_;
  std::vector<uint64_t> seeds_;
  std::optional<NanInjection> inject_;
  int inject_member_;
  std::shared_ptr<TrainerGroup> group_;
};

/// TrainerGroup.build(config, market, backend, seeds: number[], testing?: { injectNan?: { tensor,
/// step }, member?: number }): the test switch poisons one member (default 0). Checks the arguments at once
/// (TypeError / RangeError), builds on a worker thread; the promise rejects with RangeError for
/// a config the core refuses, Error otherwise (for example out of GPU memory).
Napi::Value Build(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const Compute compute = OneOf(info[2], "backend", {"cpu", "cuda"}) == 1 ? Compute::kCuda : Compute::kCpu;
  TrainerConfig config = ToTrainerConfig(info[0], info[1], compute);
  if (!info[3].IsArray()) ThrowType(env, "seeds must be an array of seeds");
  const Napi::Array a = info[3].As<Napi::Array>();
  if (a.Length() < 1 || a.Length() > kMaxSeeds)
    throw Napi::RangeError::New(env, "seeds must hold 1 to 100 seeds, got " + std::to_string(a.Length()));
  std::vector<uint64_t> seeds;
  for (uint32_t i = 0; i < a.Length(); ++i)
    seeds.push_back(static_cast<uint64_t>(Integer(a.Get(i), "seeds[" + std::to_string(i) + "]", 0, 2147483647)));
  const std::optional<NanInjection> inject = ParseTesting(info[4]);
  int member = 0;
  if (inject && info[4].As<Napi::Object>().Has("member"))
    member = static_cast<int>(Integer(info[4].As<Napi::Object>().Get("member"), "testing.member", 0, static_cast<int64_t>(seeds.size()) - 1));
  auto* w = new GroupBuildWorker(env, std::move(config), std::move(seeds), inject, member);
  w->Queue();
  return w->promise();
}

}  // namespace

void InitTrainerGroup(Napi::Env env, Napi::Object exports) {
  Napi::Object group = Napi::Object::New(env);
  group.Set("build", Napi::Function::New(env, Build, "build"));
  exports.Set("TrainerGroup", group);
}

}  // namespace dqn::addon
