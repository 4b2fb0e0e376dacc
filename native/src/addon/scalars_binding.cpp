// Binding: exports the scalar block's layout (byte offset and type of every field) and the
// NaN flag names, so JavaScript reads the block without hard-coded offsets.
#include <napi.h>

#include "addon/bindings.h"
#include "train/scalar_block.h"

namespace dqn::addon {
namespace {

void Field(Napi::Object& fields, const char* name, size_t offset, const char* type, int length = 1) {
  Napi::Env env = fields.Env();
  Napi::Object f = Napi::Object::New(env);
  f.Set("offset", static_cast<double>(offset));
  f.Set("type", type);
  f.Set("length", length);
  fields.Set(name, f);
}

}  // namespace

void InitScalars(Napi::Env env, Napi::Object exports) {
  Napi::Object layout = Napi::Object::New(env);
  Napi::Object fields = Napi::Object::New(env);
#define DQN_I64(name) Field(fields, #name, offsetof(ScalarBlock, name), "i64")
#define DQN_F64(name) Field(fields, #name, offsetof(ScalarBlock, name), "f64")
  DQN_I64(step); DQN_I64(env_steps); DQN_I64(episodes);
  DQN_F64(loss); DQN_F64(td_mse); DQN_F64(grad_norm);
  DQN_F64(loss_sum); DQN_F64(td_mse_sum); DQN_F64(grad_norm_sum); DQN_I64(sum_steps);
  DQN_F64(q_mean); DQN_F64(q_min); DQN_F64(q_max); DQN_F64(q_var); DQN_F64(mean_max_q);
  DQN_I64(q_stats_step); DQN_F64(causal_sensitivity); DQN_I64(causal_step);
  Field(fields, "causal_features", offsetof(ScalarBlock, causal_features), "i32");
  Field(fields, "nan_flags", offsetof(ScalarBlock, nan_flags), "u32");
  DQN_I64(nan_td_rejected);
  DQN_F64(per_total); DQN_F64(per_max_priority); DQN_F64(is_weight_mean); DQN_F64(beta); DQN_F64(epsilon);
  DQN_F64(episodic_return); DQN_F64(episode_length);
  Field(fields, "causal_per_feature", offsetof(ScalarBlock, causal_per_feature), "f64", kMaxCausalFeatures);
  DQN_F64(main_loss); DQN_F64(main_grad_norm); DQN_F64(main_grad_clipped);
  DQN_F64(iqn_loss); DQN_F64(iqn_grad_norm); DQN_F64(iqn_grad_clipped);
  DQN_F64(ensemble_loss); DQN_F64(ensemble_grad_norm); DQN_F64(ensemble_grad_clipped);
  DQN_F64(cql_loss); DQN_F64(cql_grad_norm); DQN_F64(cql_grad_clipped);
  DQN_F64(ensemble_disagreement); DQN_F64(sigma_max_seen);
  Field(fields, "c51_atoms", offsetof(ScalarBlock, c51_atoms), "i32");
  Field(fields, "c51_greedy_dist", offsetof(ScalarBlock, c51_greedy_dist), "f64", kMaxAtoms);
#undef DQN_I64
#undef DQN_F64
  layout.Set("size", static_cast<double>(sizeof(ScalarBlock)));
  layout.Set("fields", fields);
  Napi::Array names = Napi::Array::New(env);
  for (uint32_t i = 0; i < sizeof(kNanFlagNames) / sizeof(kNanFlagNames[0]); ++i) names.Set(i, kNanFlagNames[i]);
  layout.Set("nanFlagNames", names);
  exports.Set("scalarLayout", layout);
}

}  // namespace dqn::addon
