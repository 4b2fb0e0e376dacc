// Binding: `rulesTesting`, the heads' scalar rules (rules/head_rules.h) and the CPU spectral
// normalisation (model/spectral_norm.h) one by one, so tests can check them against hand-worked
// cases, finite differences and float64 references written in the tests. Arguments are checked
// here (every size bounded before anything is allocated); the logic is the rules themselves.
#include <napi.h>

#include <string>
#include <vector>

#include "addon/bindings.h"
#include "addon/check.h"
#include "env/cartpole_dynamics.h"
#include "model/spectral_norm.h"
#include "rules/head_rules.h"

namespace dqn::addon {
namespace {

constexpr int64_t kMaxVector = 1 << 20;  ///< atoms, actions or matrix side one call may take
constexpr double kMaxSeed = 9007199254740992.0;

/// A typed array of 1..kMaxVector elements (atoms, logits, Q-values).
template <typename T>
Napi::TypedArrayOf<T> Vector(const Napi::Value& v, const std::string& what, int64_t min_length = 1) {
  const auto a = Typed<T>(v, what);
  if (static_cast<int64_t>(a.ElementLength()) < min_length || static_cast<int64_t>(a.ElementLength()) > kMaxVector)
    ThrowRange(v.Env(), what + " must hold " + std::to_string(min_length) + " to " + std::to_string(kMaxVector) +
                            " elements, got " + std::to_string(a.ElementLength()));
  return a;
}

/// C51's support bounds from info[first] (vMin) and info[first + 1] (vMax), vMin < vMax.
struct Support {
  Support(const Napi::CallbackInfo& info, size_t first)
      : v_min(Number(info[first], "vMin", -1e12, 1e12)), v_max(Number(info[first + 1], "vMax", -1e12, 1e12)) {
    if (!(v_max > v_min)) ThrowRange(info.Env(), "vMax must be greater than vMin");
  }
  double v_min, v_max;
};

Napi::Float64Array NewF64(Napi::Env env, size_t n) { return Napi::Float64Array::New(env, n); }

Napi::Object ValueAndGrad(Napi::Env env, double value, const Napi::Value& grad) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("value", value);
  o.Set("grad", grad);
  return o;
}

/// softmax(x: Float32Array) -> Float64Array
Napi::Value SoftmaxFn(const Napi::CallbackInfo& info) {
  const auto x = Vector<float>(info[0], "x");
  auto p = NewF64(info.Env(), x.ElementLength());
  rules::Softmax(x.Data(), static_cast<int>(x.ElementLength()), p.Data());
  return p;
}

/// categoricalProjection(p: Float64Array [atoms >= 2], vMin, vMax, reward, discount) -> m: Float64Array [atoms]
Napi::Value ProjectionFn(const Napi::CallbackInfo& info) {
  const auto p = Vector<double>(info[0], "p", 2);
  const Support z(info, 1);
  const auto reward = static_cast<float>(Number(info[3], "reward", -1e30, 1e30));
  const auto discount = static_cast<float>(Number(info[4], "discount", 0, 1));
  auto m = NewF64(info.Env(), p.ElementLength());
  rules::CategoricalProjection(p.Data(), static_cast<int>(p.ElementLength()), z.v_min, z.v_max, reward, discount, m.Data());
  return m;
}

/// categoricalCrossEntropy(logits: Float32Array, m: Float64Array of the same length) -> {value, grad}
Napi::Value CrossEntropyFn(const Napi::CallbackInfo& info) {
  const auto logits = Vector<float>(info[0], "logits");
  const int atoms = static_cast<int>(logits.ElementLength());
  const auto m = Typed<double>(info[1], "m", atoms);
  auto grad = NewF64(info.Env(), logits.ElementLength());
  rules::CategoricalCrossEntropyGrad(logits.Data(), m.Data(), atoms, grad.Data());
  return ValueAndGrad(info.Env(), rules::CategoricalCrossEntropy(logits.Data(), m.Data(), atoms), grad);
}

/// categoricalQ(logits: Float32Array [atoms >= 2], vMin, vMax) -> sum_j z_j softmax(logits)_j
Napi::Value CategoricalQFn(const Napi::CallbackInfo& info) {
  const auto logits = Vector<float>(info[0], "logits", 2);
  const Support z(info, 1);
  return Napi::Number::New(info.Env(),
                           rules::CategoricalQ(logits.Data(), static_cast<int>(logits.ElementLength()), z.v_min, z.v_max));
}

/// quantileHuber(u, tau, kappa) -> {value, grad}: the loss and its derivative wrt the prediction
Napi::Value QuantileHuberFn(const Napi::CallbackInfo& info) {
  const double u = Number(info[0], "u", -1e30, 1e30), tau = Number(info[1], "tau", 0, 1);
  const double kappa = Number(info[2], "kappa", 1e-12, 1e12);
  return ValueAndGrad(info.Env(), rules::QuantileHuberValue(u, tau, kappa),
                      Napi::Number::New(info.Env(), rules::QuantileHuberGrad(u, tau, kappa)));
}

/// iqnCosineFeature(i, tau) -> cos(pi i tau) as f32
Napi::Value CosineFn(const Napi::CallbackInfo& info) {
  const int i = static_cast<int>(Integer(info[0], "i", 0, 65536));
  return Napi::Number::New(info.Env(), rules::IqnCosineFeature(i, static_cast<float>(Number(info[1], "tau", 0, 1))));
}

/// quantileFractions(seed, stream: 'online' | 'target' | 'act', step, rows, count) -> Float32Array [rows x count]
Napi::Value FractionsFn(const Napi::CallbackInfo& info) {
  const auto seed = static_cast<uint64_t>(Integer(info[0], "seed", 0, kMaxSeed));
  constexpr rules::RandomStream kStreams[] = {rules::RandomStream::kIqnOnline, rules::RandomStream::kIqnTarget,
                                              rules::RandomStream::kIqnAct};
  const rules::RandomStream stream = kStreams[OneOf(info[1], "stream", {"online", "target", "act"})];
  const int64_t step = Integer(info[2], "step", 0, kMaxSeed);
  const int64_t rows = Integer(info[3], "rows", 1, kMaxVector), count = Integer(info[4], "count", 1, kMaxVector);
  CheckOutputBytes(info.Env(), static_cast<double>(rows) * static_cast<double>(count) * 4, "the fractions [rows x count]");
  auto tau = Napi::Float32Array::New(info.Env(), static_cast<size_t>(rows * count));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < count; ++k)
      tau[static_cast<size_t>(r * count + k)] =
          rules::QuantileFraction(seed, stream, step, static_cast<uint32_t>(r), static_cast<uint32_t>(k));
  return tau;
}

/// cql(q: Float32Array [nActions], action) -> {value, grad}
Napi::Value CqlFn(const Napi::CallbackInfo& info) {
  const auto q = Vector<float>(info[0], "q");
  const int n = static_cast<int>(q.ElementLength());
  const int action = static_cast<int>(Integer(info[1], "action", 0, n - 1));
  auto grad = NewF64(info.Env(), q.ElementLength());
  rules::CqlGrad(q.Data(), n, action, grad.Data());
  return ValueAndGrad(info.Env(), rules::CqlValue(q.Data(), n, action), grad);
}

/// parts[part] = {enabled: boolean, share: number in [0, 1]}
rules::BudgetShare Share(const Napi::Object& parts, const char* part) {
  const std::string where = std::string("parts.") + part;
  const Napi::Object o = Obj(Prop(parts, part, "parts"), where);
  return {Bool(Prop(o, "enabled", where), where + ".enabled"), Number(Prop(o, "share", where), where + ".share", 0, 1)};
}

/// gradientBudget(gradClip, parts: {iqn, ensemble, cql: {enabled, share}}, norms: Float64Array [4])
///   -> {budget: Float64Array [4], coefficient: Float64Array [4]}, each in the order main, iqn,
///   ensemble, cql; coefficient = ClipCoefficient(norm, budget).
Napi::Value BudgetFn(const Napi::CallbackInfo& info) {
  const double grad_clip = Number(info[0], "gradClip", 0, 1e12);
  const Napi::Object parts = Obj(info[1], "parts");
  const rules::GradientBudget b =
      rules::SplitGradientBudget(grad_clip, Share(parts, "iqn"), Share(parts, "ensemble"), Share(parts, "cql"));
  const auto norms = Typed<double>(info[2], "norms", 4);
  const double budgets[4] = {b.main, b.iqn, b.ensemble, b.cql};
  auto budget = NewF64(info.Env(), 4), coefficient = NewF64(info.Env(), 4);
  for (size_t k = 0; k < 4; ++k) {
    budget[k] = budgets[k];
    coefficient[k] = rules::ClipCoefficient(norms[k], budgets[k]);
  }
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("budget", budget);
  o.Set("coefficient", coefficient);
  return o;
}

/// bootstrapMasks(seed, slots: Uint32Array, generations: Uint32Array (same length), heads, p)
///   -> Uint8Array [slots x heads] of 0 / 1
Napi::Value MasksFn(const Napi::CallbackInfo& info) {
  const auto seed = static_cast<uint64_t>(Integer(info[0], "seed", 0, kMaxSeed));
  const auto slots = Typed<uint32_t>(info[1], "slots");
  const auto generations = Typed<uint32_t>(info[2], "generations", static_cast<int64_t>(slots.ElementLength()));
  const int64_t heads = Integer(info[3], "heads", 1, 1 << 16);
  const double p = Number(info[4], "p", 0, 1);
  const auto n = static_cast<int64_t>(slots.ElementLength());
  CheckOutputBytes(info.Env(), static_cast<double>(n) * static_cast<double>(heads), "the masks [slots x heads]");
  auto masks = Napi::Uint8Array::New(info.Env(), static_cast<size_t>(n * heads));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t h = 0; h < heads; ++h)
      masks[static_cast<size_t>(i * heads + h)] =
          rules::BootstrapMask(seed, slots[static_cast<size_t>(i)], generations[static_cast<size_t>(i)], static_cast<uint32_t>(h), p) ? 1 : 0;
  return masks;
}

/// powerIterationVector(out, seed, matrix) -> u: Float32Array [out], unit length
Napi::Value InitVectorFn(const Napi::CallbackInfo& info) {
  const int64_t out = Integer(info[0], "out", 1, kMaxVector);
  const auto seed = static_cast<uint64_t>(Integer(info[1], "seed", 0, kMaxSeed));
  const auto matrix = static_cast<uint32_t>(Integer(info[2], "matrix", 0, (1 << 24) - 1));
  auto u = Napi::Float32Array::New(info.Env(), static_cast<size_t>(out));
  InitPowerIterationVector(u.Data(), static_cast<int>(out), seed, matrix);
  return u;
}

/// spectralNormalize(w: Float32Array [in x out], in, out, u: Float32Array [out], sigmaMax, steps)
///   -> Float64Array [steps] of the sigma estimates; w and u are updated in place.
Napi::Value SpectralFn(const Napi::CallbackInfo& info) {
  const int64_t in = Integer(info[1], "in", 1, kMaxVector), out = Integer(info[2], "out", 1, kMaxVector);
  auto w = Typed<float>(info[0], "w", in * out);
  auto u = Typed<float>(info[3], "u", out);
  const double sigma_max = Number(info[4], "sigmaMax", 0, 1e12);
  const int64_t steps = Integer(info[5], "steps", 1, 100000);
  if (static_cast<double>(steps) * static_cast<double>(in * out) > 4294967296.0)
    ThrowRange(info.Env(), "steps x in x out must be at most 2^32 multiply-adds per call");
  std::vector<float> v(static_cast<size_t>(in));
  auto sigmas = NewF64(info.Env(), static_cast<size_t>(steps));
  for (int64_t s = 0; s < steps; ++s)
    sigmas[static_cast<size_t>(s)] =
        SpectralNormalize(w.Data(), static_cast<int>(in), static_cast<int>(out), u.Data(), sigma_max, v.data());
  return sigmas;
}

/// cartpoleSinCos(x: Float64Array) -> {sin, cos}: CartPole's sin and cos (cartpole::SinCos, the
/// host's and the device's alike) of each of 1 to 2^20 angles.
Napi::Value SinCosFn(const Napi::CallbackInfo& info) {
  const auto x = Vector<double>(info[0], "x");
  auto s = NewF64(info.Env(), x.ElementLength()), c = NewF64(info.Env(), x.ElementLength());
  for (size_t i = 0; i < x.ElementLength(); ++i) cartpole::SinCos(x[i], s[i], c[i]);
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("sin", s);
  o.Set("cos", c);
  return o;
}

}  // namespace

void InitRulesTesting(Napi::Env env, Napi::Object exports) {
  Napi::Object t = Napi::Object::New(env);
  t.Set("softmax", Napi::Function::New(env, SoftmaxFn, "softmax"));
  t.Set("categoricalProjection", Napi::Function::New(env, ProjectionFn, "categoricalProjection"));
  t.Set("categoricalCrossEntropy", Napi::Function::New(env, CrossEntropyFn, "categoricalCrossEntropy"));
  t.Set("categoricalQ", Napi::Function::New(env, CategoricalQFn, "categoricalQ"));
  t.Set("quantileHuber", Napi::Function::New(env, QuantileHuberFn, "quantileHuber"));
  t.Set("iqnCosineFeature", Napi::Function::New(env, CosineFn, "iqnCosineFeature"));
  t.Set("quantileFractions", Napi::Function::New(env, FractionsFn, "quantileFractions"));
  t.Set("cql", Napi::Function::New(env, CqlFn, "cql"));
  t.Set("gradientBudget", Napi::Function::New(env, BudgetFn, "gradientBudget"));
  t.Set("bootstrapMasks", Napi::Function::New(env, MasksFn, "bootstrapMasks"));
  t.Set("powerIterationVector", Napi::Function::New(env, InitVectorFn, "powerIterationVector"));
  t.Set("spectralNormalize", Napi::Function::New(env, SpectralFn, "spectralNormalize"));
  t.Set("cartpoleSinCos", Napi::Function::New(env, SinCosFn, "cartpoleSinCos"));
  exports.Set("rulesTesting", t);
}

}  // namespace dqn::addon
