// Binding: the JS class Trainer over dqn::Trainer (train/trainer.h). Trainer.build() (building
// allocates the replay buffer and the networks: up to gigabytes), run() and evaluate() are
// AsyncWorkers returning promises; one operation at a time per trainer (a second one throws).
// `scalars` is an ArrayBuffer over the trainer's live ScalarBlock: external memory that keeps
// the trainer alive, or, where the runtime refuses external buffers (Electron's V8 sandbox),
// a JS-owned buffer that the trainer writes into instead. close() frees the trainer at once:
// it detaches `scalars` first (JS then reads a zero-length buffer, never freed pinned memory),
// and every later call throws.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "addon/bindings.h"
#include "addon/build_worker.h"
#include "addon/check.h"
#include "addon/run_config.h"
#include "train/trainer.h"

namespace dqn::addon {
namespace {

/// Runs one trainer operation on a worker thread and settles a promise with its result.
template <typename Result>
class TrainerWorker : public Napi::AsyncWorker {
 public:
  using Work = std::function<Result(Trainer&)>;
  using Convert = std::function<Napi::Value(Napi::Env, const Result&)>;
  TrainerWorker(const Napi::Object& self, std::shared_ptr<Trainer> trainer, std::atomic<bool>& busy, Work work,
                Convert convert)
      : Napi::AsyncWorker(self.Env(), "dqn.Trainer"),
        self_(Napi::Persistent(self)),
        deferred_(Napi::Promise::Deferred::New(self.Env())),
        trainer_(std::move(trainer)),
        busy_(busy),
        work_(std::move(work)),
        convert_(std::move(convert)) {}
  Napi::Promise promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      result_ = work_(*trainer_);
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnOK() override {
    busy_ = false;
    deferred_.Resolve(convert_(Env(), result_));
  }
  void OnError(const Napi::Error& e) override {
    busy_ = false;
    deferred_.Reject(e.Value());
  }

 private:
  Napi::ObjectReference self_;  // keeps the JS trainer (and its scalar block) alive meanwhile
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<Trainer> trainer_;
  std::atomic<bool>& busy_;
  Work work_;
  Convert convert_;
  Result result_{};
};

/// A trainer built elsewhere that a constructor call on this thread adopts instead of parsing
/// arguments (set only for the duration of the `new` in Trainer.build or WrapGroupMember, on
/// the JS thread). `busy`, when set, is the flag the wrapper shares with its seed group.
struct Adopted {
  std::shared_ptr<Trainer>* trainer = nullptr;
  std::shared_ptr<std::atomic<bool>> busy;
};
thread_local Adopted t_built;

/// Trainer.build's worker: constructs the trainer (environments, replay buffer, networks) off
/// the JS thread, then wraps it in a JS Trainer.
class TrainerBuildWorker : public BuildWorker {
 public:
  TrainerBuildWorker(Napi::Env env, TrainerConfig config, std::optional<NanInjection> inject)
      : BuildWorker(env, "dqn.Trainer.build", "building the trainer"), config_(std::move(config)), inject_(inject) {}

 protected:
  void Build() override {
    trainer_ = std::make_shared<Trainer>(config_);
    if (inject_) trainer_->learner().inject_nan(inject_->flag, inject_->step);
  }
  void OnOK() override {
    Napi::Env env = Env();
    t_built = {&trainer_, nullptr};
    try {
      Napi::Object wrapped = Data(env).trainer.New({});
      t_built = {};
      deferred_.Resolve(wrapped);
    } catch (const Napi::Error& e) {
      t_built = {};
      deferred_.Reject(e.Value());
    }
  }

 private:
  TrainerConfig config_;
  std::optional<NanInjection> inject_;
  std::shared_ptr<Trainer> trainer_;
};

class TrainerWrap : public Napi::ObjectWrap<TrainerWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Trainer", {
      StaticMethod<&TrainerWrap::Build>("build"),
      InstanceMethod<&TrainerWrap::Close>("close"),
      InstanceAccessor<&TrainerWrap::Closed>("closed"),
      InstanceMethod<&TrainerWrap::Run>("run"),
      InstanceMethod<&TrainerWrap::Stop>("stop"),
      InstanceMethod<&TrainerWrap::Evaluate>("evaluate"),
      InstanceMethod<&TrainerWrap::SaveState>("saveState"),
      InstanceMethod<&TrainerWrap::LoadState>("loadState"),
      InstanceAccessor<&TrainerWrap::Info>("info"),
      InstanceAccessor<&TrainerWrap::Scalars>("scalars"),
    });
  }

  /// new Trainer(config: RunConfig, market: MarketArrays | undefined, backend: 'cpu' | 'cuda',
  ///             testing?: { injectNan?: { tensor, step } }): builds on the JS thread (tests,
  ///             small configs); Trainer.build does the same off it.
  explicit TrainerWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<TrainerWrap>(info) {
    Napi::Env env = info.Env();
    if (t_built.trainer && info.Length() == 0) {
      trainer_ = std::move(*t_built.trainer);  // Trainer.build's worker or a seed group built it
      if (t_built.busy) busy_ = t_built.busy, group_member_ = true;
    } else {
      const Compute compute = OneOf(info[2], "backend", {"cpu", "cuda"}) == 1 ? Compute::kCuda : Compute::kCpu;
      const TrainerConfig config = ToTrainerConfig(info[0], info[1], compute);
      const std::optional<NanInjection> inject = ParseTesting(info[3]);
      trainer_ = CallNative(env, [&] { return std::make_shared<Trainer>(config); });
      if (inject) trainer_->learner().inject_nan(inject->flag, inject->step);
    }
    MakeScalars(env);
    reported_bytes_ = static_cast<int64_t>(5 * sizeof(float)) * trainer_->learner().layout().size() + trainer_->replay_host_bytes();
    Napi::MemoryManagement::AdjustExternalMemory(env, reported_bytes_);
  }

  void Finalize(Napi::Env env) override { Napi::MemoryManagement::AdjustExternalMemory(env, -reported_bytes_); }

 private:
  /// Trainer.build(config, market, backend, testing?) -> Promise<Trainer>: checks the arguments
  /// here (TypeError / RangeError thrown at once), builds on a worker thread; the promise
  /// rejects with RangeError for an invalid config the core refuses, Error otherwise.
  static Napi::Value Build(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const Compute compute = OneOf(info[2], "backend", {"cpu", "cuda"}) == 1 ? Compute::kCuda : Compute::kCpu;
    TrainerConfig config = ToTrainerConfig(info[0], info[1], compute);
    auto* w = new TrainerBuildWorker(env, std::move(config), ParseTesting(info[3]));
    w->Queue();
    return w->promise();
  }

  /// The trainer. @throws Error once close() has freed it.
  Trainer& Live(Napi::Env env, const char* what) const {
    if (!trainer_) throw Napi::Error::New(env, std::string(what) + ": this Trainer is closed (close() freed its memory): build a new one");
    return *trainer_;
  }

  /// close(): frees the trainer (replay buffer, networks, pinned memory) now instead of when the
  /// garbage collector gets to it. Idempotent. The scalar block is detached first, so JS can no
  /// longer read the memory being freed. @throws Error while run() or evaluate() is in progress.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!trainer_) return env.Undefined();
    if (*busy_) throw Napi::Error::New(env, "close: a run() or evaluate() is in progress: call stop() and await it first");
    Napi::ArrayBuffer block = scalars_.Value();
    block.Detach();
    if (keep_) keep_->reset();  // the detached buffer's finalizer no longer holds the trainer
    keep_ = nullptr;
    scalars_.Reset();
    trainer_.reset();
    Napi::MemoryManagement::AdjustExternalMemory(env, -reported_bytes_);
    reported_bytes_ = 0;
    return env.Undefined();
  }

  Napi::Value Closed(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), !trainer_); }

  void MakeScalars(Napi::Env env) {
    auto* keep = new std::shared_ptr<Trainer>(trainer_);
    Napi::ArrayBuffer ab;
    try {
      ab = Napi::ArrayBuffer::New(env, &trainer_->scalars(), sizeof(ScalarBlock),
                                  [](Napi::Env, void*, std::shared_ptr<Trainer>* hint) { delete hint; }, keep);
      keep_ = keep;  // owned by the buffer's finalizer; valid while scalars_ holds the buffer
    } catch (const Napi::Error&) {
      delete keep;  // external buffers refused: the trainer writes into a JS-owned block instead
      ab = Napi::ArrayBuffer::New(env, sizeof(ScalarBlock));
      trainer_->redirect_scalars(static_cast<ScalarBlock*>(ab.Data()));
    }
    scalars_ = Napi::Persistent(ab);
  }

  void Claim(Napi::Env env, const char* what) {
    if (busy_->exchange(true))
      throw Napi::Error::New(env, std::string(what) + ": the trainer is busy (a run() or evaluate() is in progress)");
  }

  Napi::Value Run(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const int64_t steps = Integer(info[0], "steps", 0, 9007199254740992.0);
    Live(env, "run");
    if (group_member_) throw Napi::Error::New(env, "run: this Trainer is a member of a seed group: run the group (TrainerGroup.run)");
    Claim(env, "run");
    trainer_->clear_stop();
    auto* w = new TrainerWorker<RunStats>(
        Value(), trainer_, *busy_, [steps](Trainer& t) { return t.run(steps); },
        [](Napi::Env e, const RunStats& r) { return Napi::Value(RunStatsObject(e, r)); });
    w->Queue();
    return w->promise();
  }

  Napi::Value Stop(const Napi::CallbackInfo& info) {
    Live(info.Env(), "stop").request_stop();
    return info.Env().Undefined();
  }

  Napi::Value Evaluate(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const int episodes = static_cast<int>(Integer(info[0], "episodes", 1, 100000));
    const EnvRole span = info[1].IsUndefined() || OneOf(info[1], "span", {"validation", "test"}) == 0 ? EnvRole::kValidation : EnvRole::kTest;
    Live(env, "evaluate");
    Claim(env, "evaluate");
    trainer_->clear_stop();
    auto* w = new TrainerWorker<EvalStats>(
        Value(), trainer_, *busy_, [episodes, span](Trainer& t) { return t.evaluate(episodes, span); },
        [](Napi::Env e, const EvalStats& r) {
          Napi::Object o = Napi::Object::New(e);
          o.Set("stopped", r.stopped);
          o.Set("episodes", r.episodes);
          o.Set("meanReturn", r.mean_return);
          Napi::Array returns = Napi::Array::New(e, r.returns.size());
          for (uint32_t i = 0; i < r.returns.size(); ++i) returns.Set(i, r.returns[i]);
          o.Set("returns", returns);
          Napi::Object metrics = Napi::Object::New(e);
          for (const auto& [k, v] : r.metrics) metrics.Set(k, v);
          o.Set("metrics", metrics);
          Napi::Object series = Napi::Object::New(e);
          for (const auto& [k, v] : r.series) {
            Napi::Float64Array a = Napi::Float64Array::New(e, v.size());
            std::copy(v.begin(), v.end(), a.Data());
            series.Set(k, a);
          }
          o.Set("series", series);
          return Napi::Value(o);
        });
    w->Queue();
    return w->promise();
  }

  Napi::Value SaveState(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Live(env, "saveState");
    Claim(env, "saveState");
    std::vector<uint8_t> blob;
    try {
      blob = CallNative(env, [&] { return trainer_->save_state(); });
    } catch (...) {
      *busy_ = false;
      throw;
    }
    *busy_ = false;
    auto out = Napi::Uint8Array::New(env, blob.size());
    std::copy(blob.begin(), blob.end(), out.Data());
    return out;
  }

  Napi::Value LoadState(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const auto blob = Typed<uint8_t>(info[0], "state");
    Live(env, "loadState");
    Claim(env, "loadState");
    try {
      CallNative(env, [&] { trainer_->load_state(blob.Data(), blob.ElementLength()); });
    } catch (...) {
      *busy_ = false;
      throw;
    }
    *busy_ = false;
    return env.Undefined();
  }

  Napi::Value Info(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Live(env, "info");
    Napi::Object o = Napi::Object::New(env);
    o.Set("backend", trainer_->compute_backend());
    o.Set("replayBackend", trainer_->replay_backend());
    o.Set("replayFallbackReason", trainer_->replay_fallback_reason());
    o.Set("collector", trainer_->collector());
    o.Set("collectorReason", trainer_->collector_reason());
    o.Set("stateDim", trainer_->state_dim());
    o.Set("nActions", trainer_->n_actions());
    const auto names = trainer_->causal_feature_names();
    Napi::Array a = Napi::Array::New(env, names.size());
    for (uint32_t i = 0; i < names.size(); ++i) a.Set(i, names[i]);
    o.Set("causalFeatureNames", a);
    return o;
  }

  Napi::Value Scalars(const Napi::CallbackInfo& info) {
    Live(info.Env(), "scalars");
    return scalars_.Value();
  }

  std::shared_ptr<Trainer> trainer_;
  std::shared_ptr<Trainer>* keep_ = nullptr;  ///< the scalar buffer's finalizer hint (external buffer only)
  /// One operation at a time: a seed group's member shares this flag with the group, whose run
  /// claims every member's.
  std::shared_ptr<std::atomic<bool>> busy_ = std::make_shared<std::atomic<bool>>(false);
  bool group_member_ = false;  ///< built by a seed group: run() belongs to the group
  Napi::Reference<Napi::ArrayBuffer> scalars_;
  int64_t reported_bytes_ = 0;
};

}  // namespace

namespace {

uint32_t NanFlagOf(const Napi::Value& v, const std::string& what) {
  const size_t i = OneOf(v, what, {"q_online", "q_target", "loss", "gradients", "weights"});
  constexpr uint32_t kFlags[] = {kNanQOnline, kNanQTarget, kNanLoss, kNanGradients, kNanWeights};
  return kFlags[i];
}

}  // namespace

std::optional<NanInjection> ParseTesting(const Napi::Value& v) {
  if (v.IsUndefined()) return std::nullopt;
  if (!v.IsObject()) ThrowType(v.Env(), "testing options must be an object");
  const Napi::Object o = v.As<Napi::Object>();
  if (!o.Has("injectNan") || o.Get("injectNan").IsUndefined()) return std::nullopt;
  if (!o.Get("injectNan").IsObject()) ThrowType(v.Env(), "testing.injectNan must be an object {tensor, step}");
  const Napi::Object n = o.Get("injectNan").As<Napi::Object>();
  return NanInjection{NanFlagOf(Prop(n, "tensor", "testing.injectNan"), "testing.injectNan.tensor"),
                      Integer(Prop(n, "step", "testing.injectNan"), "testing.injectNan.step", 1, INT32_MAX)};
}

Napi::Object RunStatsObject(Napi::Env e, const RunStats& r) {
  Napi::Object o = Napi::Object::New(e);
  o.Set("steps", static_cast<double>(r.steps));
  o.Set("stopped", r.stopped);
  Napi::Array returns = Napi::Array::New(e, r.episode_returns.size());
  for (uint32_t i = 0; i < r.episode_returns.size(); ++i) returns.Set(i, r.episode_returns[i]);
  o.Set("episodeReturns", returns);
  Napi::Array ends = Napi::Array::New(e, r.episode_env_steps.size());
  for (uint32_t i = 0; i < r.episode_env_steps.size(); ++i) ends.Set(i, static_cast<double>(r.episode_env_steps[i]));
  o.Set("episodeEnvSteps", ends);
  return o;
}

Napi::Object WrapGroupMember(Napi::Env env, std::shared_ptr<Trainer> trainer, std::shared_ptr<std::atomic<bool>> busy) {
  t_built = {&trainer, std::move(busy)};
  try {
    Napi::Object wrapped = Data(env).trainer.New({});
    t_built = {};
    return wrapped;
  } catch (...) {
    t_built = {};
    throw;
  }
}

void InitTrainer(Napi::Env env, Napi::Object exports) {
  Napi::Function trainer = TrainerWrap::Define(env);
  Data(env).trainer = Napi::Persistent(trainer);
  exports.Set("Trainer", trainer);
}

}  // namespace dqn::addon
