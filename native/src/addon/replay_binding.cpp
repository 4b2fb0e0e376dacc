// Binding: the JS class ReplayBuffer over a Replay backend (replay/replay.h) placed by
// MakeReplay (replay/make_replay.h: CPU, or CUDA with the fallback reason), plus two
// functions that expose the reference algorithms for cross-checks (tests, the CUDA backend's
// tests): philox4x32_10 and sumTreeFind.
// Only argument checks and conversions live here; value checks (NaN states, negative actions,
// out-of-range indices) and config ranges are the core's, mapped to RangeError by CallNative.
#include <napi.h>

#include <algorithm>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "addon/bindings.h"
#include "addon/check.h"
#include "replay/make_replay.h"
#include "replay/philox.h"
#include "replay/replay.h"
#include "replay/replay_config.h"
#include "replay/sum_tree.h"
#ifdef DQN_WITH_CUDA
#include "cuda/fallback_replay.h"
#endif

namespace dqn::addon {
namespace {

/// Largest batch one sample() call draws (the CUDA replay's update takes as many entries).
constexpr int64_t kMaxSampleBatch = int64_t{1} << 20;

constexpr double kMaxSafeInteger = 9007199254740992.0;  // 2^53

/// options[key] when present and not undefined.
bool Has(const Napi::Object& o, const char* key) { return o.Has(key) && !o.Get(key).IsUndefined(); }

ReplayConfig ParseConfig(const Napi::Object& o) {
  ReplayConfig c;
  c.capacity = Integer(Prop(o, "capacity", "options"), "options.capacity", -kMaxSafeInteger, kMaxSafeInteger);
  c.state_dim = static_cast<int>(Integer(Prop(o, "stateDim", "options"), "options.stateDim", INT32_MIN, INT32_MAX));
  if (Has(o, "sampler")) {
    constexpr Sampler kSamplers[] = {Sampler::kProportional, Sampler::kRank, Sampler::kUniform};
    c.sampler = kSamplers[OneOf(o.Get("sampler"), "options.sampler", {"proportional", "rank", "uniform"})];
  }
  const auto real = [&o](const char* key, double& field) {
    if (Has(o, key)) field = Number(o.Get(key), std::string("options.") + key, -DBL_MAX, DBL_MAX);
  };
  const auto integer = [&o](const char* key, int64_t& field) {
    if (Has(o, key)) field = Integer(o.Get(key), std::string("options.") + key, -kMaxSafeInteger, kMaxSafeInteger);
  };
  real("alpha", c.alpha);
  real("beta0", c.beta0);
  integer("betaSteps", c.beta_steps);
  real("eps", c.eps);
  real("pClip", c.p_clip);
  integer("rankSortInterval", c.rank_sort_interval);
  if (Has(o, "isNormalization")) {
    c.is_normalization = OneOf(o.Get("isNormalization"), "options.isNormalization", {"buffer", "batch"}) == 0
                             ? IsNormalization::kBuffer
                             : IsNormalization::kBatch;
  }
  if (Has(o, "seed")) c.seed = static_cast<uint64_t>(Integer(o.Get("seed"), "options.seed", 0, kMaxSafeInteger));
  return c;
}

ReplayPlacement ParsePlacement(const Napi::Object& o) {
  ReplayPlacement p;
  if (Has(o, "device")) {
    constexpr ReplayDevice kDevices[] = {ReplayDevice::kCpu, ReplayDevice::kAuto, ReplayDevice::kCuda};
    p.device = kDevices[OneOf(o.Get("device"), "options.device", {"cpu", "auto", "cuda"})];
  }
  if (Has(o, "stateDtype")) p.state_bf16 = OneOf(o.Get("stateDtype"), "options.stateDtype", {"f32", "bf16"}) == 1;
  const auto flag = [&o](const char* key, bool& field) {
    if (!Has(o, key)) return;
    if (!o.Get(key).IsBoolean()) ThrowType(o.Env(), std::string("options.") + key + " must be a boolean");
    field = o.Get(key).As<Napi::Boolean>().Value();
  };
  flag("simulateOom", p.simulate_oom);
  flag("simulateKernelError", p.simulate_kernel_error);
  if (Has(o, "treeFanout")) {
    constexpr int kFanLogs[] = {1, 4, 5};
    p.fan_log = kFanLogs[OneOf(o.Get("treeFanout"), "options.treeFanout", {"2", "16", "32"})];
  }
  return p;
}

class ReplayBufferWrap : public Napi::ObjectWrap<ReplayBufferWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "ReplayBuffer", {
      InstanceMethod<&ReplayBufferWrap::InsertBatch>("insertBatch"),
      InstanceMethod<&ReplayBufferWrap::Sample>("sample"),
      InstanceMethod<&ReplayBufferWrap::UpdatePriorities>("updatePriorities"),
      InstanceMethod<&ReplayBufferWrap::LeafPriorities>("leafPriorities"),
      InstanceAccessor<&ReplayBufferWrap::Size>("size"),
      InstanceAccessor<&ReplayBufferWrap::Capacity>("capacity"),
      InstanceAccessor<&ReplayBufferWrap::StateDim>("stateDim"),
      InstanceAccessor<&ReplayBufferWrap::TotalPriority>("totalPriority"),
      InstanceAccessor<&ReplayBufferWrap::MaxPriority>("maxPriority"),
      InstanceAccessor<&ReplayBufferWrap::Beta>("beta"),
      InstanceAccessor<&ReplayBufferWrap::SampleSteps, &ReplayBufferWrap::SetSampleSteps>("sampleSteps"),
      InstanceAccessor<&ReplayBufferWrap::Backend>("backend"),
      InstanceAccessor<&ReplayBufferWrap::FallbackReason>("fallbackReason"),
      InstanceAccessor<&ReplayBufferWrap::GpuInfo>("gpuInfo"),
      InstanceMethod<&ReplayBufferWrap::CaptureStep>("captureStep"),
      InstanceMethod<&ReplayBufferWrap::Step>("step"),
      InstanceMethod<&ReplayBufferWrap::Close>("close"),
      InstanceAccessor<&ReplayBufferWrap::Closed>("closed"),
    });
  }

  explicit ReplayBufferWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ReplayBufferWrap>(info) {
    Napi::Env env = info.Env();
    if (!info[0].IsObject()) ThrowType(env, "ReplayBuffer options must be an object");
    const Napi::Object o = info[0].As<Napi::Object>();
    const ReplayConfig config = ParseConfig(o);
    const ReplayPlacement placement = ParsePlacement(o);
    ReplayChoice choice = CallNative(env, [&] { return MakeReplay(config, placement); });
    replay_ = std::move(choice.replay);
    fallback_reason_ = std::move(choice.fallback_reason);
    runtime_fallback_reason_ = std::move(choice.runtime_fallback_reason);
    reported_bytes_ = replay_->host_memory_bytes();
    Napi::MemoryManagement::AdjustExternalMemory(env, reported_bytes_);
  }

  void Finalize(Napi::Env env) override { Napi::MemoryManagement::AdjustExternalMemory(env, -reported_bytes_); }

 private:
  /// The buffer. @throws Error once close() has freed it.
  Replay& Live(const Napi::CallbackInfo& info) const {
    if (!replay_) throw Napi::Error::New(info.Env(), "this ReplayBuffer is closed (close() freed its memory): create a new one");
    return *replay_;
  }

  /// close(): frees the buffer's memory now (host and device), not when the garbage collector
  /// gets to it; idempotent. Every later call throws.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!replay_) return env.Undefined();
    replay_.reset();
    runtime_fallback_reason_ = nullptr;
    Napi::MemoryManagement::AdjustExternalMemory(env, -reported_bytes_);
    reported_bytes_ = 0;
    return env.Undefined();
  }

  Napi::Value Closed(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), !replay_); }

  Napi::Value InsertBatch(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsObject()) ThrowType(env, "insertBatch expects an object {states, actions, rewards, nextStates, dones, discounts?}");
    const Fields f(info[0].As<Napi::Object>(), {"actions", "states", "rewards", "nextStates", "dones", "discounts"}, "batch");
    const auto actions = Typed<int32_t>(f.required("actions"), "actions");
    const int64_t b = static_cast<int64_t>(actions.ElementLength());
    const int64_t bd = b * Live(info).state_dim();
    TransitionBatch batch;
    batch.count = b;
    batch.actions = actions.Data();
    batch.states = Typed<float>(f.required("states"), "states", bd).Data();
    batch.rewards = Typed<float>(f.required("rewards"), "rewards", b).Data();
    batch.next_states = Typed<float>(f.required("nextStates"), "nextStates", bd).Data();
    batch.dones = Typed<uint8_t>(f.required("dones"), "dones", b).Data();
    if (const Napi::Value d = f.optional("discounts"); !d.IsUndefined()) batch.discounts = Typed<float>(d, "discounts", b).Data();
    CallNative(env, [&] { Live(info).insert(batch); });
    return env.Undefined();
  }

  Napi::Value Sample(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    // Bounded before anything is allocated (V8 aborts the process, it does not throw, when an
    // ArrayBuffer cannot be had): at most kMaxSampleBatch rows and 1 GiB. A batch may exceed the
    // capacity (draws are with replacement; the tests of the weights use that).
    const int64_t b = Integer(info[0], "batchSize", 1, kMaxSampleBatch);
    // One ArrayBuffer holds all nine arrays (one backing store per call instead of nine):
    // the 4-byte fields first, the bytes of dones last, so every view is aligned.
    const size_t n = static_cast<size_t>(b), nd = n * static_cast<size_t>(Live(info).state_dim());
    CheckOutputBytes(env, static_cast<double>((6 * n + 2 * nd) * 4 + n), "a sample of " + std::to_string(b) + " transitions");
    auto buffer = Napi::ArrayBuffer::New(env, (6 * n + 2 * nd) * 4 + n);
    size_t offset = 0;
    const auto view = [&]<typename T>(size_t count, T) {
      auto a = Napi::TypedArrayOf<T>::New(env, count, buffer, offset);
      offset += count * sizeof(T);
      return a;
    };
    auto indices = view(n, int32_t{});
    auto generations = view(n, uint32_t{});
    auto weights = view(n, float{});
    auto actions = view(n, int32_t{});
    auto rewards = view(n, float{});
    auto discounts = view(n, float{});
    auto states = view(nd, float{});
    auto next_states = view(nd, float{});
    auto dones = view(n, uint8_t{});
    SampleBatch out{indices.Data(), generations.Data(), weights.Data(), states.Data(), actions.Data(),
                    rewards.Data(), next_states.Data(), dones.Data(), discounts.Data()};
    CallNative(env, [&] { Live(info).sample(b, out); });
    Napi::Object r = Napi::Object::New(env);
    r.Set("indices", indices);
    r.Set("generations", generations);
    r.Set("weights", weights);
    r.Set("states", states);
    r.Set("actions", actions);
    r.Set("rewards", rewards);
    r.Set("nextStates", next_states);
    r.Set("dones", dones);
    r.Set("discounts", discounts);
    return r;
  }

  Napi::Value UpdatePriorities(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const auto indices = Typed<int32_t>(info[0], "indices");
    const int64_t n = static_cast<int64_t>(indices.ElementLength());
    const auto generations = Typed<uint32_t>(info[1], "generations", n);
    const auto td = Typed<float>(info[2], "tdErrors", n);
    const UpdateResult u =
        CallNative(env, [&] { return Live(info).update_priorities(indices.Data(), generations.Data(), td.Data(), n); });
    Napi::Object r = Napi::Object::New(env);
    r.Set("applied", static_cast<double>(u.applied));
    r.Set("rejectedNonfinite", static_cast<double>(u.rejected_nonfinite));
    r.Set("stale", static_cast<double>(u.stale));
    r.Set("duplicates", static_cast<double>(u.duplicates));
    return r;
  }

  Napi::Value LeafPriorities(const Napi::CallbackInfo& info) {
    CheckOutputBytes(info.Env(), static_cast<double>(Live(info).size()) * 8, "leafPriorities() of " + std::to_string(Live(info).size()) + " slots");
    auto out = Napi::Float64Array::New(info.Env(), static_cast<size_t>(Live(info).size()));
    Live(info).leaf_priorities(out.Data());
    return out;
  }

  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(Live(info).size())); }
  Napi::Value Capacity(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(Live(info).capacity())); }
  Napi::Value StateDim(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Live(info).state_dim()); }
  Napi::Value TotalPriority(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Live(info).total_priority()); }
  Napi::Value MaxPriority(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Live(info).max_priority()); }
  Napi::Value Beta(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Live(info).beta()); }
  Napi::Value SampleSteps(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(Live(info).sample_steps())); }
  void SetSampleSteps(const Napi::CallbackInfo& info, const Napi::Value& value) {
    Live(info).set_sample_steps(Integer(value, "sampleSteps", 0, kMaxSafeInteger));
    (void)info;
  }
  Napi::Value Backend(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), Live(info).backend()); }
  Napi::Value FallbackReason(const Napi::CallbackInfo& info) {
    Live(info);
    const std::string runtime = runtime_fallback_reason_();
    return Napi::String::New(info.Env(), runtime.empty() ? fallback_reason_ : runtime);
  }

  // GPU-only surface (tests and benches): null / TypeError on the CPU backend.
#ifdef DQN_WITH_CUDA
  cuda::CudaReplay* Gpu() const {
    const auto* f = dynamic_cast<const cuda::FallbackReplay*>(replay_.get());
    return f ? f->gpu() : nullptr;
  }
#else
  void* Gpu() const { return nullptr; }
#endif

  Napi::Value GpuInfo(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Live(info);
#ifdef DQN_WITH_CUDA
    if (cuda::CudaReplay* g = Gpu()) {
      Napi::Object o = Napi::Object::New(env);
      o.Set("deviceBytes", static_cast<double>(g->device_bytes()));
      o.Set("bytesPerTransition", g->bytes_per_transition());
      o.Set("stateDtype", g->state_bf16() ? "bf16" : "f32");
      o.Set("treeFanout", 1 << g->fan_log());
      o.Set("l2PersistingBytes", static_cast<double>(g->l2_persisting_bytes()));
      return o;
    }
#endif
    return env.Null();
  }

  /// captureStep(batchSize): captures sample(batchSize) + updatePriorities(its indices and
  /// generations, the TD errors given to step()) as one CUDA graph.
  Napi::Value CaptureStep(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const int64_t b = Integer(info[0], "batchSize", 1, 65536);
    Live(info);
#ifdef DQN_WITH_CUDA
    if (cuda::CudaReplay* g = Gpu()) {
      CallNative(env, [&] { g->capture_step_graph(b); });
      return env.Undefined();
    }
#endif
    (void)b;
    throw Napi::TypeError::New(env, "captureStep needs the CUDA backend, this buffer is on the " + Live(info).backend());
  }

  /// step(tdErrors: Float32Array(B), useGraph: boolean) -> the batch sampled by this step, whose
  /// priorities were then updated from tdErrors (entry k for draw k), on the GPU in one go.
  Napi::Value Step(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const auto td = Typed<float>(info[0], "tdErrors");
    if (!info[1].IsBoolean()) ThrowType(env, "useGraph must be a boolean");
    const bool graph = info[1].As<Napi::Boolean>().Value();
    const int64_t b = static_cast<int64_t>(td.ElementLength());
    Live(info);
#ifdef DQN_WITH_CUDA
    if (cuda::CudaReplay* g = Gpu()) {
      const size_t n = static_cast<size_t>(b), nd = n * static_cast<size_t>(Live(info).state_dim());
      auto indices = Napi::Int32Array::New(env, n);
      auto generations = Napi::Uint32Array::New(env, n);
      auto weights = Napi::Float32Array::New(env, n);
      auto states = Napi::Float32Array::New(env, nd);
      if (graph && b != g->graph_batch())
        ThrowRange(env, "tdErrors must have the captured batch size " + std::to_string(g->graph_batch()) + ", got " +
                            std::to_string(b) + " (call captureStep first)");
      SampleBatch out{indices.Data(), generations.Data(), weights.Data(), states.Data()};
      CallNative(env, [&] {
        g->reserve_batch(b);
        g->set_batch_td(td.Data(), b);
        if (graph) g->launch_step_graph(); else g->run_step(b);
        g->read_batch(b, out);
      });
      Napi::Object r = Napi::Object::New(env);
      r.Set("indices", indices);
      r.Set("generations", generations);
      r.Set("weights", weights);
      r.Set("states", states);
      return r;
    }
#endif
    (void)graph;
    (void)b;
    throw Napi::TypeError::New(env, "step needs the CUDA backend, this buffer is on the " + Live(info).backend());
  }

  std::unique_ptr<Replay> replay_;
  std::string fallback_reason_;
  std::function<std::string()> runtime_fallback_reason_;
  int64_t reported_bytes_ = 0;
};

/// philox4x32_10(counter: Uint32Array(4), key: Uint32Array(2)) -> Uint32Array(4).
Napi::Value Philox(const Napi::CallbackInfo& info) {
  const auto c = Typed<uint32_t>(info[0], "counter", 4);
  const auto k = Typed<uint32_t>(info[1], "key", 2);
  const PhiloxCounter out = Philox4x32_10({c[0], c[1], c[2], c[3]}, {k[0], k[1]});
  auto r = Napi::Uint32Array::New(info.Env(), 4);
  for (size_t i = 0; i < 4; ++i) r[i] = out[i];
  return r;
}

/// sumTreeFind(leaves: Float64Array(n), masses: Float64Array(m)) -> Int32Array(m): builds a sum
/// tree over the leaves and descends it for each mass (detail::FindByMass).
Napi::Value SumTreeFind(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const auto leaves = Typed<double>(info[0], "leaves");
  const auto masses = Typed<double>(info[1], "masses");
  const int64_t n = static_cast<int64_t>(leaves.ElementLength()), m = static_cast<int64_t>(masses.ElementLength());
  if (n < 1 || n > kMaxReplayCapacity) ThrowRange(env, "leaves must have length in [1, 2^30], got " + std::to_string(n));
  std::vector<int64_t> slots(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (!(leaves[static_cast<size_t>(i)] >= 0.0) || !std::isfinite(leaves[static_cast<size_t>(i)]))
      ThrowRange(env, "leaves[" + std::to_string(i) + "] must be finite and >= 0");
    slots[static_cast<size_t>(i)] = i;
  }
  std::vector<double> mass(masses.Data(), masses.Data() + m);
  for (int64_t k = 0; k < m; ++k)
    if (!(mass[static_cast<size_t>(k)] >= 0.0)) ThrowRange(env, "masses[" + std::to_string(k) + "] must be >= 0");
  detail::SumTree tree(n);
  std::vector<int64_t> scratch;
  tree.assign(slots.data(), leaves.Data(), n, scratch);
  if (!(tree.root() > 0.0)) ThrowRange(env, "leaves must not all be zero");
  auto out = Napi::Int32Array::New(env, static_cast<size_t>(m));
  detail::FindByMass(tree, mass.data(), m, out.Data());
  return out;
}

}  // namespace

void InitReplay(Napi::Env env, Napi::Object exports) {
  exports.Set("ReplayBuffer", ReplayBufferWrap::Define(env));
  exports.Set("philox4x32_10", Napi::Function::New(env, Philox, "philox4x32_10"));
  exports.Set("sumTreeFind", Napi::Function::New(env, SumTreeFind, "sumTreeFind"));
}

}  // namespace dqn::addon
