// Binding: `learnerTesting`, the learner's building blocks exposed one by one so tests can
// check them against independent references (a float64 forward pass, hand-worked batches,
// Gymnasium's equations) and benchmarks can time them: matrix products, the Q-network's
// forward/backward, each head's raw outputs, loss and backward (model/head.h), the TD loss,
// Adam, gradient clipping, n-step accumulation, the probes, a Learner on caller-given batches,
// and CartPole with settable state. Arguments are checked here; the logic is the same code the
// Trainer runs.
#include <napi.h>

#include <algorithm>
#include <cfloat>
#include <memory>
#include <string>
#include <vector>

#include "addon/bindings.h"
#include "addon/check.h"
#include "addon/run_config.h"
#include "addon/vec_env_calls.h"
#include "cpu/matmul.h"
#include "cpu/rng.h"
#include "env/cartpole.h"
#include "model/q_network.h"
#include "rules/step_rules.h"
#include "train/adam.h"
#include "train/cpu_learner.h"
#include "train/loss_parts.h"
#include "train/n_step.h"
#include "train/q_probes.h"
#include "model/td_loss.h"

namespace dqn::addon {
namespace {

template <typename T>
Napi::TypedArrayOf<T> Copy(Napi::Env env, const T* data, size_t n) {
  CheckOutputBytes(env, static_cast<double>(n) * sizeof(T), "the result");
  auto out = Napi::TypedArrayOf<T>::New(env, n);
  std::copy(data, data + n, out.Data());
  return out;
}

/// {stateDim, nActions, hidden: number[], dueling, heads?} (heads: the config's `heads` section,
/// defaults filled in; absent: the plain Q head).
NetConfig ToNet(const Napi::Value& v) {
  const Napi::Object o = Obj(v, "net");
  NetConfig c;
  c.state_dim = static_cast<int>(Integer(Prop(o, "stateDim", "net"), "net.stateDim", 1, 65536));
  c.n_actions = static_cast<int>(Integer(Prop(o, "nActions", "net"), "net.nActions", 1, 65536));
  const Napi::Value h = Prop(o, "hidden", "net");
  if (!h.IsArray()) ThrowType(v.Env(), "net.hidden must be an array");
  c.hidden.clear();
  for (uint32_t i = 0; i < h.As<Napi::Array>().Length(); ++i)
    c.hidden.push_back(static_cast<int>(Integer(h.As<Napi::Array>().Get(i), "net.hidden[i]", 1, 4096)));
  c.dueling = Bool(Prop(o, "dueling", "net"), "net.dueling");
  if (o.Has("heads") && !o.Get("heads").IsUndefined()) c.heads = ToHeadsConfig(o.Get("heads"), "net.heads");
  return c;
}

/// PartKind's names, in enum order (common/heads.ts LossPart).
constexpr const char* kPartNames[] = {"main", "iqn", "ensemble", "cql"};

Napi::Object SlotObject(Napi::Env env, const DenseSlot& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("w", static_cast<double>(s.w));
  o.Set("b", static_cast<double>(s.b));
  o.Set("in", s.in);
  o.Set("out", s.out);
  return o;
}

/// [{name, layers: [{name, w, b, in, out}]}]: every head's slots, in layout order.
Napi::Array HeadsLayout(Napi::Env env, const ParamLayout& layout) {
  Napi::Array heads = Napi::Array::New(env, layout.heads().size());
  for (uint32_t k = 0; k < layout.heads().size(); ++k) {
    const std::vector<LayerSpec> specs = layout.heads()[k]->layers();
    Napi::Array layers = Napi::Array::New(env, specs.size());
    for (uint32_t l = 0; l < specs.size(); ++l) {
      Napi::Object slot = SlotObject(env, layout.head_slots(k)[l]);
      slot.Set("name", specs[l].name);
      layers.Set(l, slot);
    }
    Napi::Object h = Napi::Object::New(env);
    h.Set("name", layout.heads()[k]->name());
    h.Set("part", kPartNames[static_cast<int>(layout.heads()[k]->part())]);
    h.Set("layers", layers);
    heads.Set(k, h);
  }
  return heads;
}

/// matmul(op: 'nn' | 'nt' | 'tn', impl: 'auto' | 'portable', m, n, k, a, b) -> C [m x n]:
/// nn: A [m x k]·B [k x n]; nt: A [m x k]·Bᵀ with B [n x k]; tn: Aᵀ·B with A [k x m], B [k x n].
Napi::Value MatMulFn(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const size_t op = OneOf(info[0], "op", {"nn", "nt", "tn"});
  const auto impl = OneOf(info[1], "impl", {"auto", "portable"}) == 0 ? cpu::GemmImpl::kAuto : cpu::GemmImpl::kPortable;
  const int64_t m = Integer(info[2], "m", 1, 1 << 20), n = Integer(info[3], "n", 1, 1 << 20), k = Integer(info[4], "k", 1, 1 << 20);
  CheckOutputBytes(env, static_cast<double>(m) * static_cast<double>(n) * 4, "C [m x n]");
  const auto a = Typed<float>(info[5], "a", m * k);
  const auto b = Typed<float>(info[6], "b", k * n);
  auto c = Napi::Float32Array::New(env, static_cast<size_t>(m * n));
  if (op == 0) cpu::MatMul(m, n, k, a.Data(), b.Data(), c.Data(), false, impl);
  if (op == 1) cpu::MatMulBT(m, n, k, a.Data(), b.Data(), c.Data(), false, impl);
  if (op == 2) cpu::MatMulAT(m, n, k, a.Data(), b.Data(), c.Data(), false, impl);
  return c;
}

/// netInit(net, seed) -> {params: Float32Array, layout: {size, trunk, heads, value?, advantage?}}
/// (value and advantage: the main Q head's layers, as the CUDA learner reads them).
Napi::Value NetInit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const NetConfig net = ToNet(info[0]);
  const auto seed = static_cast<uint64_t>(Integer(info[1], "seed", 0, 9007199254740992.0));
  const ParamLayout layout = CallNative(env, [&] { return ParamLayout(net); });
  CheckOutputBytes(env, static_cast<double>(layout.size()) * 4, "the parameters of this network");
  std::vector<float> params(static_cast<size_t>(layout.size()));
  Rng rng(seed, 0);
  InitParams(layout, params.data(), rng);
  Napi::Object l = Napi::Object::New(env);
  l.Set("size", static_cast<double>(layout.size()));
  Napi::Array trunk = Napi::Array::New(env, layout.trunk().size());
  for (uint32_t i = 0; i < layout.trunk().size(); ++i) trunk.Set(i, SlotObject(env, layout.trunk()[i]));
  l.Set("trunk", trunk);
  l.Set("heads", HeadsLayout(env, layout));
  if (layout.value().out > 0) l.Set("value", SlotObject(env, layout.value()));
  if (layout.advantage().out > 0) l.Set("advantage", SlotObject(env, layout.advantage()));
  Napi::Object o = Napi::Object::New(env);
  o.Set("params", Copy(env, params.data(), params.size()));
  o.Set("layout", l);
  return o;
}

/// Floats per row of a Workspace of `layout` and of the heads' states (their outputs and output
/// gradients; an IQN head's per fraction), for bounding a call's scratch before allocating it.
double WorkspaceFloatsPerRow(const ParamLayout& layout) {
  const NetConfig& net = layout.config();
  double floats = net.n_actions + 2.0 * layout.max_width();
  for (const DenseSlot& s : layout.trunk()) floats += s.out;
  const IqnConfig& iqn = net.heads.iqn;
  const double fractions = std::max({iqn.n, iqn.n_prime, iqn.k});
  for (size_t k = 0; k < layout.heads().size(); ++k) {
    const double per = layout.heads()[k]->name() == "iqn" ? fractions * (iqn.embedding + layout.feature_dim()) : 1.0;
    for (const DenseSlot& s : layout.head_slots(k)) floats += 2.0 * per * s.out;
  }
  return floats;
}

/// A network with caller-given parameters, for the forward/backward/probe functions. Built in
/// two steps: the constructor reads the network (info[0]); the function then reads the rest of
/// its caller-controlled values (getters run), and Check checks params (info[1]) and states
/// (info[2]): no caller code runs between the arrays' checks and their use.
struct NetCall {
  explicit NetCall(const Napi::CallbackInfo& info)
      : layout(CallNative(info.Env(), [&] { return ParamLayout(ToNet(info[0])); })) {}
  /// @throws RangeError when `passes` workspaces over the rows would need more than 1 GiB.
  void Check(const Napi::CallbackInfo& info, int passes = 1) {
    params = Typed<float>(info[1], "params", layout.size());
    const auto s = Typed<float>(info[2], "states");
    const int d = layout.config().state_dim;
    if (s.ElementLength() == 0 || s.ElementLength() % static_cast<size_t>(d) != 0)
      ThrowRange(info.Env(), "states must hold a positive multiple of stateDim = " + std::to_string(d) + " floats");
    rows = static_cast<int64_t>(s.ElementLength()) / d;
    CheckOutputBytes(info.Env(), passes * static_cast<double>(rows) * WorkspaceFloatsPerRow(layout) * 4,
                     "the activations of " + std::to_string(rows) + " rows", "use");
    states = s.Data();
  }
  ParamLayout layout;
  Napi::Float32Array params;
  const float* states = nullptr;
  int64_t rows = 0;
};

/// netForward(net, params, states, act?: {seed, step}) -> Q [rows x nActions], the main head's
/// Q-values of an acting pass at `step` of the run seeded `seed` (default 0 and 0)
Napi::Value NetForward(const Napi::CallbackInfo& info) {
  NetCall c(info);
  ForwardContext ctx;
  if (!info[3].IsUndefined()) {
    const Fields act(Obj(info[3], "act"), {"seed", "step"}, "act");
    ctx.seed = static_cast<uint64_t>(Integer(act.required("seed"), "act.seed", 0, 9007199254740992.0));
    ctx.step = Integer(act.required("step"), "act.step", 0, 9007199254740992.0);
  }
  c.Check(info);
  const std::vector<float> q = CallNative(info.Env(), [&] {
    ParamView p(c.layout, c.params.Data());
    Workspace ws(c.layout, c.rows);
    Forward(c.layout, p, c.states, c.rows, ws, ctx);
    return std::vector<float>(ws.q(), ws.q() + c.rows * c.layout.config().n_actions);
  });
  return Copy(info.Env(), q.data(), q.size());
}

/// netBackward(net, params, states, dq) -> gradients of sum(dq ⊙ Q) [params.length]; throws an Error for a
/// main head without deterministic Q-values (IQN)
Napi::Value NetBackward(const Napi::CallbackInfo& info) {
  NetCall c(info);
  c.Check(info);
  const auto dq = Typed<float>(info[3], "dq", c.rows * c.layout.config().n_actions);
  const std::vector<float> grads = CallNative(info.Env(), [&] {  // IQN: std::logic_error
    std::vector<float> out(static_cast<size_t>(c.layout.size()));
    ParamView p(c.layout, c.params.Data()), g(c.layout, out.data());
    Workspace ws(c.layout, c.rows);
    Forward(c.layout, p, c.states, c.rows, ws);
    Backward(c.layout, p, c.states, c.rows, ws, dq.Data(), g);
    return out;
  });
  return Copy(info.Env(), grads.data(), grads.size());
}

/// headOutputs(net, params, states) -> Float32Array[]: each head's raw outputs (Head::outputs) of
/// an acting forward, in layout order.
Napi::Value HeadOutputs(const Napi::CallbackInfo& info) {
  NetCall c(info);
  c.Check(info);
  const int64_t rows = c.rows;
  const std::vector<std::vector<float>> outputs = CallNative(info.Env(), [&] {
    ParamView p(c.layout, c.params.Data());
    Workspace ws(c.layout, rows);
    Forward(c.layout, p, c.states, rows, ws);
    std::vector<std::vector<float>> out;
    for (size_t k = 0; k < c.layout.heads().size(); ++k) {
      const std::span<float> y = c.layout.heads()[k]->outputs(ws.head(k), rows);
      out.emplace_back(y.begin(), y.end());
    }
    return out;
  });
  Napi::Array out = Napi::Array::New(info.Env(), outputs.size());
  for (uint32_t k = 0; k < outputs.size(); ++k) out.Set(k, Copy(info.Env(), outputs[k].data(), outputs[k].size()));
  return out;
}

/// headBackward(net, params, states, dOutputs: Float32Array[]) -> gradients [params.length] of
/// sum_k sum(dOutputs[k] ⊙ outputs_k), each dOutputs[k] shaped as headOutputs()[k].
Napi::Value HeadBackwardFn(const Napi::CallbackInfo& info) {
  NetCall c(info);
  const size_t n_heads = c.layout.heads().size();
  if (!info[3].IsArray() || info[3].As<Napi::Array>().Length() != n_heads)
    ThrowType(info.Env(), "dOutputs must be an array of one Float32Array per head (" + std::to_string(n_heads) + ")");
  std::vector<Napi::Value> elements;  // every element read (index getters run) before any is checked
  for (uint32_t k = 0; k < n_heads; ++k) elements.push_back(info[3].As<Napi::Array>().Get(k));
  c.Check(info);
  const int64_t rows = c.rows;
  std::vector<Napi::Float32Array> given;
  for (uint32_t k = 0; k < n_heads; ++k) given.push_back(Typed<float>(elements[k], "dOutputs[" + std::to_string(k) + "]"));
  const std::vector<float> grads = CallNative(info.Env(), [&] {
    ParamView p(c.layout, c.params.Data());
    Workspace ws(c.layout, rows);
    Forward(c.layout, p, c.states, rows, ws);
    std::vector<size_t> all;
    for (size_t k = 0; k < n_heads; ++k) {
      const std::span<float> d = c.layout.heads()[k]->output_gradient(ws.head(k), rows);
      if (given[k].ElementLength() != d.size())
        throw std::invalid_argument("dOutputs[" + std::to_string(k) + "] must be a Float32Array of length " +
                                    std::to_string(d.size()) + " (head '" + c.layout.heads()[k]->name() + "'s outputs), got length " +
                                    std::to_string(given[k].ElementLength()));
      std::copy(given[k].Data(), given[k].Data() + d.size(), d.begin());
      all.push_back(k);
    }
    std::vector<float> out(static_cast<size_t>(c.layout.size()));
    ParamView g(c.layout, out.data());
    HeadsBackward(c.layout, p, all, c.states, rows, ws, g);
    return out;
  });
  return Copy(info.Env(), grads.data(), grads.size());
}

/// The fields of a caller-given batch, read (getters run) before anything of the call is checked.
Fields BatchFields(const Napi::Value& v) {
  return Fields(Obj(v, "batch"), {"actions", "slots", "generations", "states", "rewards", "nextStates", "discounts", "weights"}, "batch");
}

/// A batch of caller-given transitions (BatchFields), checked against the network: {states,
/// actions, rewards, nextStates, discounts, weights, slots?, generations?} (slots default to
/// 0..B-1, generations to 0). batch < 0: B is the length of `actions`.
struct BatchCall {
  BatchCall(const Fields& f, int64_t batch, const NetConfig& net) {
    Napi::Env env = f.env();
    auto a = Typed<int32_t>(f.required("actions"), "actions", batch);
    b = static_cast<int64_t>(a.ElementLength());
    if (b < 1 || b > 65536) ThrowRange(env, "actions must hold 1 to 65536 transitions, got " + std::to_string(b));
    for (size_t i = 0; i < a.ElementLength(); ++i)
      if (a[i] < 0 || a[i] >= net.n_actions) ThrowRange(env, "actions must be in [0, nActions)");
    slots.resize(static_cast<size_t>(b));
    generations.resize(static_cast<size_t>(b));
    if (const Napi::Value given = f.optional("slots"); !given.IsUndefined()) {
      const auto x = Typed<int32_t>(given, "slots", b);
      for (int64_t i = 0; i < b; ++i)
        if (x[static_cast<size_t>(i)] < 0) ThrowRange(env, "slots must be replay slots, >= 0");
      std::copy(x.Data(), x.Data() + b, slots.begin());
    } else {
      for (int64_t i = 0; i < b; ++i) slots[static_cast<size_t>(i)] = static_cast<int32_t>(i);
    }
    if (const Napi::Value given = f.optional("generations"); !given.IsUndefined()) {
      const auto x = Typed<uint32_t>(given, "generations", b);
      std::copy(x.Data(), x.Data() + b, generations.begin());
    }
    s.indices = slots.data();
    s.generations = generations.data();
    s.states = Typed<float>(f.required("states"), "states", b * net.state_dim).Data();
    s.actions = a.Data();
    s.rewards = Typed<float>(f.required("rewards"), "rewards", b).Data();
    s.next_states = Typed<float>(f.required("nextStates"), "nextStates", b * net.state_dim).Data();
    s.discounts = Typed<float>(f.required("discounts"), "discounts", b).Data();
    s.weights = Typed<float>(f.required("weights"), "weights", b).Data();
  }
  int64_t b = 0;
  std::vector<int32_t> slots;
  std::vector<uint32_t> generations;
  SampleBatch s;
};

/// headLoss(net, online, target, batch, {doubleDqn, huberDelta, step?, seed?}) -> {loss, tdMse,
/// td, dOutputs, grads}: the main head's loss on the batch (Head::loss: online pass over s and
/// s', target pass over s'), its TD signal td [B], its gradient wrt its outputs of the s rows
/// (dOutputs, shaped as headOutputs()[0] for B rows) and wrt every online parameter (grads; 0 for
/// the other heads), as the learner's main part computes them.
Napi::Value HeadLossFn(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ParamLayout layout = CallNative(env, [&] { return ParamLayout(ToNet(info[0])); });
  const Fields batch_fields = BatchFields(info[3]);
  const Fields o(Obj(info[4], "headLoss options"), {"step", "seed", "doubleDqn", "huberDelta"}, "options");
  const auto opt = [&](const char* key, int64_t fallback, int64_t lo, int64_t hi) {
    const Napi::Value v = o.optional(key);
    return v.IsUndefined() ? fallback : Integer(v, key, lo, hi);
  };
  const int64_t step = opt("step", 1, 1, INT32_MAX);
  const auto seed = static_cast<uint64_t>(opt("seed", 0, 0, int64_t{1} << 53));
  const bool double_dqn = Bool(o.required("doubleDqn"), "doubleDqn");
  const double huber_delta = Number(o.required("huberDelta"), "huberDelta", 1e-12, 1e12);
  auto online = Typed<float>(info[1], "online", layout.size());
  auto target = Typed<float>(info[2], "target", layout.size());
  const BatchCall batch(batch_fields, -1, layout.config());
  const int64_t b = batch.b, d = layout.config().state_dim;
  const LossBatch lb{batch.s.actions, batch.s.rewards, batch.s.discounts, batch.s.weights, batch.s.indices,
                     batch.s.generations, b, double_dqn, huber_delta, step, seed};
  struct Result {
    HeadLoss loss;
    std::vector<float> td, d_outputs, grads;
  };
  const Result res = CallNative(env, [&] {
    ParamView on(layout, online.Data()), tg(layout, target.Data());
    Workspace ws_on(layout, 2 * b), ws_tg(layout, b);
    std::vector<float> inputs(batch.s.states, batch.s.states + b * d);
    inputs.insert(inputs.end(), batch.s.next_states, batch.s.next_states + b * d);
    TrunkForward(on, inputs.data(), 2 * b, ws_on);
    HeadsForward(layout, on, 2 * b, {seed, step, Pass::kOnline, b}, ws_on);
    TrunkForward(tg, batch.s.next_states, b, ws_tg);
    HeadsForward(layout, tg, b, {seed, step, Pass::kTarget, b}, ws_tg);
    Result r;
    r.td.resize(static_cast<size_t>(b));
    r.loss = layout.main_head().loss(lb, ws_on.head(0), ws_tg.head(0), r.td.data());
    const std::span<float> d_out = layout.main_head().output_gradient(ws_on.head(0), b);
    r.d_outputs.assign(d_out.begin(), d_out.end());
    r.grads.resize(static_cast<size_t>(layout.size()));
    ParamView g(layout, r.grads.data());
    const size_t main[] = {0};
    HeadsBackward(layout, on, main, inputs.data(), b, ws_on, g);
    return r;
  });
  Napi::Object r = Napi::Object::New(env);
  r.Set("loss", res.loss.loss);
  r.Set("tdMse", res.loss.td_mse);
  r.Set("td", Copy(env, res.td.data(), res.td.size()));
  r.Set("dOutputs", Copy(env, res.d_outputs.data(), res.d_outputs.size()));
  r.Set("grads", Copy(env, res.grads.data(), res.grads.size()));
  return r;
}

/// causalSensitivity(net, params, states, features: Int32Array) -> {mean, perFeature}
Napi::Value Causal(const Napi::CallbackInfo& info) {
  NetCall c(info);
  c.Check(info, 2);  // the batch's pass and the probe's
  const int64_t rows = c.rows;
  const auto f = Typed<int32_t>(info[3], "features");
  std::vector<FeatureGroup> features;  // one single-column group per index
  for (size_t i = 0; i < f.ElementLength(); ++i) {
    const int x = f[i];
    if (x < 0 || x >= c.layout.config().state_dim) ThrowRange(info.Env(), "features must be observation indices");
    features.push_back({"obs[" + std::to_string(x) + "]", {x}});
  }
  std::vector<double> per(features.size());
  const double mean = CallNative(info.Env(), [&] {
    ParamView p(c.layout, c.params.Data());
    Workspace ws(c.layout, rows), probe(c.layout, rows);
    Forward(c.layout, p, c.states, rows, ws);
    std::vector<float> scratch;
    return CausalSensitivity(c.layout, p, c.states, ws.q(), rows, features, probe, scratch, per.data());
  });
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("mean", mean);
  o.Set("perFeature", Copy(info.Env(), per.data(), per.size()));
  return o;
}

/// qStats(q, nActions) -> {mean, min, max, var, meanMax}
Napi::Value QStatsFn(const Napi::CallbackInfo& info) {
  const int a = static_cast<int>(Integer(info[1], "nActions", 1, 65536));
  const auto q = Typed<float>(info[0], "q");
  if (q.ElementLength() % static_cast<size_t>(a) != 0) ThrowRange(info.Env(), "q length must be a multiple of nActions");
  const QStats s = ComputeQStats(q.Data(), static_cast<int64_t>(q.ElementLength()) / a, a);
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("mean", s.mean);
  o.Set("min", s.min);
  o.Set("max", s.max);
  o.Set("var", s.var);
  o.Set("meanMax", s.mean_max);
  return o;
}

/// tdLoss({q, qNextOnline, qNextTarget, actions, rewards, discounts, weights, nActions,
///         doubleDqn, huberDelta}) -> {loss, tdMse, td, dq}
Napi::Value TdLossFn(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const Fields f(Obj(info[0], "tdLoss input"),
                 {"nActions", "actions", "q", "qNextOnline", "qNextTarget", "rewards", "discounts", "weights", "doubleDqn", "huberDelta"}, "input");
  const int a = static_cast<int>(Integer(f.required("nActions"), "nActions", 1, 65536));
  const bool double_dqn = Bool(f.required("doubleDqn"), "doubleDqn");
  const double huber_delta = Number(f.required("huberDelta"), "huberDelta", 1e-12, 1e12);
  const auto actions = Typed<int32_t>(f.required("actions"), "actions");
  const int64_t b = static_cast<int64_t>(actions.ElementLength());
  for (size_t i = 0; i < actions.ElementLength(); ++i)
    if (actions[i] < 0 || actions[i] >= a) ThrowRange(env, "actions must be in [0, nActions)");
  TdInputs in{Typed<float>(f.required("q"), "q", b * a).Data(),
              Typed<float>(f.required("qNextOnline"), "qNextOnline", b * a).Data(),
              Typed<float>(f.required("qNextTarget"), "qNextTarget", b * a).Data(),
              actions.Data(),
              Typed<float>(f.required("rewards"), "rewards", b).Data(),
              Typed<float>(f.required("discounts"), "discounts", b).Data(),
              Typed<float>(f.required("weights"), "weights", b).Data(),
              b,
              a};
  std::vector<float> td(static_cast<size_t>(b)), dq(static_cast<size_t>(b * a));
  const TdLoss l = ComputeTdLoss(in, double_dqn, huber_delta, td.data(), dq.data());
  Napi::Object r = Napi::Object::New(env);
  r.Set("loss", l.loss);
  r.Set("tdMse", l.td_mse);
  r.Set("td", Copy(env, td.data(), td.size()));
  r.Set("dq", Copy(env, dq.data(), dq.size()));
  return r;
}

/// adamUpdate({t, lr, beta1, beta2, eps, gradScale, g, w, m, v}): updates w, m, v in place.
Napi::Value AdamFn(const Napi::CallbackInfo& info) {
  const Fields f(Obj(info[0], "adamUpdate input"), {"g", "lr", "beta1", "beta2", "eps", "t", "gradScale", "w", "m", "v"}, "input");
  AdamConfig c;
  c.lr = Number(f.required("lr"), "lr", 0, 1e6);
  c.beta1 = Number(f.required("beta1"), "beta1", 0, 1);
  c.beta2 = Number(f.required("beta2"), "beta2", 0, 1);
  c.eps = Number(f.required("eps"), "eps", 0, 1);
  const int64_t t = Integer(f.required("t"), "t", 1, INT32_MAX);
  const auto grad_scale = static_cast<float>(Number(f.required("gradScale"), "gradScale", 0, 1e6));
  const auto g = Typed<float>(f.required("g"), "g");
  const int64_t n = static_cast<int64_t>(g.ElementLength());
  float* w = Typed<float>(f.required("w"), "w", n).Data();
  float* m = Typed<float>(f.required("m"), "m", n).Data();
  float* v = Typed<float>(f.required("v"), "v", n).Data();
  AdamUpdate(c, t, grad_scale, g.Data(), w, m, v, n);
  return info.Env().Undefined();
}

/// scheduledLearningRate(lr, lrEnd, decaySteps, t) -> the learning rate of step t
Napi::Value LrFn(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), rules::LearningRateAt(Number(info[0], "lr", 0, 1e6), Number(info[1], "lrEnd", 0, 1e6),
                                                              Integer(info[2], "decaySteps", 0, INT32_MAX),
                                                              Integer(info[3], "t", 1, INT32_MAX)));
}

/// clipGradients(g: Float32Array, maxNorm) -> {norm, coefficient}
Napi::Value ClipFn(const Napi::CallbackInfo& info) {
  const auto g = Typed<float>(info[0], "g");
  const double norm = GlobalNorm(g.Data(), static_cast<int64_t>(g.ElementLength()));
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("norm", norm);
  o.Set("coefficient", rules::ClipCoefficient(norm, Number(info[1], "maxNorm", 0, 1e12)));
  return o;
}

/// nStep({numEnvs, stateDim, n, gamma}, steps: {env, s, a, r, sNext, terminated, truncated}[])
///   -> {states, actions, rewards, nextStates, dones, discounts, pending: number[]}
Napi::Value NStepFn(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const Napi::Object o = Obj(info[0], "nStep options");
  const int e = static_cast<int>(Integer(Prop(o, "numEnvs", "options"), "numEnvs", 1, 4096));
  const int d = static_cast<int>(Integer(Prop(o, "stateDim", "options"), "stateDim", 1, 65536));
  NStepAccumulator acc(e, d, static_cast<int>(Integer(Prop(o, "n", "options"), "n", 1, 32)),
                       Number(Prop(o, "gamma", "options"), "gamma", 0, 1));
  TransitionStaging out(d);
  if (!info[1].IsArray()) ThrowType(env, "steps must be an array");
  const auto steps = info[1].As<Napi::Array>();
  for (uint32_t i = 0; i < steps.Length(); ++i) {
    const Fields f(Obj(steps.Get(i), "steps[i]"), {"env", "s", "a", "r", "sNext", "terminated", "truncated"}, "step");
    const int env_index = static_cast<int>(Integer(f.required("env"), "step.env", 0, e - 1));
    const auto a = static_cast<int32_t>(Integer(f.required("a"), "step.a", 0, INT32_MAX));
    const auto r = static_cast<float>(Number(f.required("r"), "step.r", -1e30, 1e30));
    const bool terminated = Bool(f.required("terminated"), "step.terminated"), truncated = Bool(f.required("truncated"), "step.truncated");
    const float* s = Typed<float>(f.required("s"), "step.s", d).Data();
    const float* s_next = Typed<float>(f.required("sNext"), "step.sNext", d).Data();
    acc.push(env_index, s, a, r, s_next, terminated, truncated, out);
  }
  Napi::Object r = Napi::Object::New(env);
  r.Set("states", Copy(env, out.states().data(), out.states().size()));
  r.Set("actions", Copy(env, out.actions().data(), out.actions().size()));
  r.Set("rewards", Copy(env, out.rewards().data(), out.rewards().size()));
  r.Set("nextStates", Copy(env, out.next_states().data(), out.next_states().size()));
  r.Set("dones", Copy(env, out.dones().data(), out.dones().size()));
  r.Set("discounts", Copy(env, out.discounts().data(), out.discounts().size()));
  Napi::Array pending = Napi::Array::New(env, static_cast<size_t>(e));
  for (int i = 0; i < e; ++i) pending.Set(static_cast<uint32_t>(i), acc.pending(i));
  r.Set("pending", pending);
  return r;
}

/// new CartPole(numEnvs, seed, maxEpisodeSteps): reset(), step(actions), setState(env, state, elapsed), state(env)
class CartPoleWrap : public Napi::ObjectWrap<CartPoleWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "CartPole", {InstanceMethod<&CartPoleWrap::Reset>("reset"),
                                         InstanceMethod<&CartPoleWrap::Step>("step"),
                                         InstanceMethod<&CartPoleWrap::SetState>("setState"),
                                         InstanceMethod<&CartPoleWrap::State>("state")});
  }
  explicit CartPoleWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CartPoleWrap>(info) {
    env_ = std::make_unique<CartPoleVecEnv>(static_cast<int>(Integer(info[0], "numEnvs", 1, 4096)),
                                            static_cast<uint64_t>(Integer(info[1], "seed", 0, 9007199254740992.0)),
                                            static_cast<int>(Integer(info[2], "maxEpisodeSteps", 1, 1 << 30)));
  }

 private:
  Napi::Value Reset(const Napi::CallbackInfo& info) { return ResetVecEnv(info.Env(), *env_); }
  Napi::Value Step(const Napi::CallbackInfo& info) { return StepVecEnv(info.Env(), *env_, info[0]); }
  Napi::Value SetState(const Napi::CallbackInfo& info) {
    const int e = static_cast<int>(Integer(info[0], "env", 0, env_->num_envs() - 1));
    const auto s = Typed<double>(info[1], "state", 4);
    env_->set_state(e, {s[0], s[1], s[2], s[3]}, static_cast<int>(Integer(info[2], "elapsedSteps", 0, 1 << 30)));
    return info.Env().Undefined();
  }
  Napi::Value State(const Napi::CallbackInfo& info) {
    const auto& s = env_->state(static_cast<int>(Integer(info[0], "env", 0, env_->num_envs() - 1)));
    return Copy(info.Env(), s.data(), 4);
  }
  std::unique_ptr<CartPoleVecEnv> env_;
};

/// new Learner(net, {lr, adamEps, gradClip, batchSize, doubleDqn, huberDelta, target: {kind,
/// interval | tau}, qStatsInterval?, causalInterval?}, seed): step(batch) -> {loss, tdMse, gradNorm,
/// qMean, causal, ensembleDisagreement, flags, td, parts: {main, iqn, ensemble, cql: {loss,
/// gradNorm, clipped, gradient?}}, sigmaMaxSeen, c51GreedyDist} (0 for a part that is off; the
/// unclipped gradient of each part the run has), online(), target(), setParams(online, target)
/// (Adam's moments kept), greedy(states). The batch's slots [B] and generations [B] (for the
/// ensemble's masks) default to 0..B-1 and 0.
class LearnerWrap : public Napi::ObjectWrap<LearnerWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Learner", {InstanceMethod<&LearnerWrap::Step>("step"),
                                        InstanceMethod<&LearnerWrap::Online>("online"),
                                        InstanceMethod<&LearnerWrap::Target>("target"),
                                        InstanceMethod<&LearnerWrap::SetParams>("setParams"),
                                        InstanceMethod<&LearnerWrap::Greedy>("greedy")});
  }
  explicit LearnerWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<LearnerWrap>(info) {
    Napi::Env env = info.Env();
    const NetConfig net = ToNet(info[0]);
    const Napi::Object o = Obj(info[1], "learner options");
    LearnerConfig c;
    c.adam.lr = Number(Prop(o, "lr", "options"), "lr", 1e-12, 1e3);
    c.adam.eps = Number(Prop(o, "adamEps", "options"), "adamEps", 1e-12, 1);
    c.grad_clip = Number(Prop(o, "gradClip", "options"), "gradClip", 0, 1e12);
    c.batch_size = Integer(Prop(o, "batchSize", "options"), "batchSize", 1, 65536);
    c.double_dqn = Bool(Prop(o, "doubleDqn", "options"), "doubleDqn");
    c.huber_delta = Number(Prop(o, "huberDelta", "options"), "huberDelta", 1e-12, 1e12);
    const Napi::Object t = Obj(Prop(o, "target", "options"), "options.target");
    if (OneOf(Prop(t, "kind", "target"), "target.kind", {"hard", "polyak"}) == 0) {
      c.target_interval = Integer(Prop(t, "interval", "target"), "target.interval", 1, INT32_MAX);
    } else {
      c.target_update = TargetUpdate::kPolyak;
      c.tau = Number(Prop(t, "tau", "target"), "target.tau", 1e-12, 1);
    }
    // Probes run every step unless asked otherwise (tests read them; benchmarks space them out).
    const auto interval = [&](const char* key) {
      return o.Has(key) && !o.Get(key).IsUndefined() ? Integer(o.Get(key), key, 1, INT32_MAX) : int64_t{1};
    };
    c.q_stats_interval = interval("qStatsInterval");
    c.causal_interval = interval("causalInterval");
    c.act_rows = 64;
    std::vector<FeatureGroup> features;  // one group per observation index
    for (int i = 0; i < net.state_dim; ++i) features.push_back({"obs[" + std::to_string(i) + "]", {i}});
    learner_ = CallNative(env, [&] {
      return std::make_unique<CpuLearner>(net, c, static_cast<uint64_t>(Integer(info[2], "seed", 0, 9007199254740992.0)), features);
    });
  }

 private:
  Napi::Value Step(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const BatchCall batch(BatchFields(info[0]), learner_->config().batch_size, learner_->layout().config());
    std::vector<float> td(static_cast<size_t>(batch.b));
    ScalarBlock scalars;
    const uint32_t flags = learner_->step(batch.s, td.data(), scalars);
    Napi::Object r = Napi::Object::New(env);
    r.Set("loss", scalars.loss);
    r.Set("tdMse", scalars.td_mse);
    r.Set("gradNorm", scalars.grad_norm);
    r.Set("qMean", scalars.q_mean);
    r.Set("causal", scalars.causal_sensitivity);
    r.Set("ensembleDisagreement", scalars.ensemble_disagreement);
    r.Set("flags", flags);
    r.Set("td", Copy(env, td.data(), td.size()));
    // Each part's loss and gradient norms (0 while a part is off), spectral normalisation's
    // largest estimate, and the C51 probe.
    Napi::Object parts = Napi::Object::New(env);
    for (int kind = 0; kind < static_cast<int>(std::size(kPartNames)); ++kind) {
      const PartFields f = PartScalars(scalars, static_cast<PartKind>(kind));
      Napi::Object part = Napi::Object::New(env);
      part.Set("loss", *f.loss);
      part.Set("gradNorm", *f.grad_norm);
      part.Set("clipped", *f.grad_clipped);
      parts.Set(kPartNames[kind], part);
    }
    // The unclipped gradient of each part the run has, under its kind's name.
    for (size_t k = 0; k < learner_->parts().size(); ++k)
      parts.Get(kPartNames[static_cast<int>(learner_->parts()[k]->kind())]).As<Napi::Object>().Set(
          "gradient", Copy(env, learner_->part_gradient(k).data(), learner_->part_gradient(k).size()));
    r.Set("parts", parts);
    r.Set("sigmaMaxSeen", scalars.sigma_max_seen);
    r.Set("c51GreedyDist", Copy(env, scalars.c51_greedy_dist, static_cast<size_t>(scalars.c51_atoms)));
    return r;
  }
  Napi::Value SetParams(const Napi::CallbackInfo& info) {
    const auto n = static_cast<int64_t>(learner_->online().size());
    const auto online = Typed<float>(info[0], "online", n), target = Typed<float>(info[1], "target", n);
    std::copy(online.Data(), online.Data() + n, learner_->online().begin());
    std::copy(target.Data(), target.Data() + n, learner_->target().begin());
    return info.Env().Undefined();
  }
  Napi::Value Online(const Napi::CallbackInfo& info) {
    return Copy(info.Env(), learner_->online().data(), learner_->online().size());
  }
  Napi::Value Target(const Napi::CallbackInfo& info) {
    return Copy(info.Env(), learner_->target().data(), learner_->target().size());
  }
  Napi::Value Greedy(const Napi::CallbackInfo& info) {
    const int d = learner_->layout().config().state_dim;
    const auto s = Typed<float>(info[0], "states");
    if (s.ElementLength() % static_cast<size_t>(d) != 0) ThrowRange(info.Env(), "states must hold rows of stateDim floats");
    const size_t rows = s.ElementLength() / static_cast<size_t>(d);
    auto out = Napi::Int32Array::New(info.Env(), rows);
    learner_->greedy(s.Data(), static_cast<int64_t>(rows), out.Data());
    return out;
  }
  std::unique_ptr<CpuLearner> learner_;
};

}  // namespace

void InitLearnerTesting(Napi::Env env, Napi::Object exports) {
  Napi::Object t = Napi::Object::New(env);
  t.Set("gemmBackend", cpu::GemmBackendName());
  t.Set("matmul", Napi::Function::New(env, MatMulFn, "matmul"));
  t.Set("netInit", Napi::Function::New(env, NetInit, "netInit"));
  t.Set("netForward", Napi::Function::New(env, NetForward, "netForward"));
  t.Set("netBackward", Napi::Function::New(env, NetBackward, "netBackward"));
  t.Set("headOutputs", Napi::Function::New(env, HeadOutputs, "headOutputs"));
  t.Set("headBackward", Napi::Function::New(env, HeadBackwardFn, "headBackward"));
  t.Set("headLoss", Napi::Function::New(env, HeadLossFn, "headLoss"));
  t.Set("causalSensitivity", Napi::Function::New(env, Causal, "causalSensitivity"));
  t.Set("qStats", Napi::Function::New(env, QStatsFn, "qStats"));
  t.Set("tdLoss", Napi::Function::New(env, TdLossFn, "tdLoss"));
  t.Set("adamUpdate", Napi::Function::New(env, AdamFn, "adamUpdate"));
  t.Set("clipGradients", Napi::Function::New(env, ClipFn, "clipGradients"));
  t.Set("scheduledLearningRate", Napi::Function::New(env, LrFn, "scheduledLearningRate"));
  t.Set("nStep", Napi::Function::New(env, NStepFn, "nStep"));
  t.Set("CartPole", CartPoleWrap::Define(env));
  t.Set("Learner", LearnerWrap::Define(env));
  exports.Set("learnerTesting", t);
}

}  // namespace dqn::addon
