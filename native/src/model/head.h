// The head seam (DESIGN section 4, "Heads"; issue 23): a head hangs off the trunk's features and
// is described once here: it owns its parameter slots (its dense layers, appended to the flat
// buffer after the trunk in head order), says what its forward produces (its raw outputs, and the
// Q-values it acts with), what its loss needs (a LossBatch, the online pass over s and s' and the
// target pass over s') and what its backward produces (its layers' gradients and dL/dfeatures).
// The parameter layout (model/param_layout.h), the CPU forward and backward (model/q_network.h),
// the checkpoint's heads description and the learner's loss parts (train/loss_parts.h) are built
// from the run's list of heads (MakeHeads, model/heads.h), never from branches on the head kind.
//
// Adding a head means: one file pair model/<name>_head.{h,cpp} implementing Head, its scalar
// rules in rules/head_rules.h, its config fields (model/heads_config.h, common/config.ts), one
// registration line in MakeHeads, and its tests. An auxiliary head (part() != kMain) then trains
// as its own part of the gradient budget with no further registration.
//
// Shapes: rows of f32, row-major; B = the batch size; A = the number of actions; F = the trunk's
// feature width. Every pointer is host memory.
//
// Usage (what the CPU learner does with the main head, model/q_network.h and train/cpu_learner.cpp):
//   const Head& h = layout.main_head();
//   std::unique_ptr<HeadState> on = h.make_state(2 * B), tg = h.make_state(B);
//   h.forward(online.heads[0], features_s_and_s_next, 2 * B, {seed, t, Pass::kOnline, B}, *on);
//   h.forward(target.heads[0], features_s_next, B, {seed, t, Pass::kTarget, B}, *tg);
//   const HeadLoss l = h.loss(batch, *on, *tg, td);   // leaves dL/d(outputs of the s rows) in *on
//   h.backward(*on, online.heads[0], features_s, B, grads.heads[0], d_features, false);
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/param_layout.h"

namespace dqn {

struct ScalarBlock;

/// One dense layer of a head: `name` (unique within the head; tests and messages use it), its
/// shape [in x out] and the gain of its He-uniform init (InitParams: g sqrt(3 / in)).
struct LayerSpec {
  std::string name;
  int in = 0;
  int out = 0;
  double gain = 1;
};

/// A config field a head (or part) depends on, as written into checkpoints: its path in the run
/// config ("heads.c51.atoms") and its value as text (numbers in shortest round-trip form).
struct ConfigField {
  std::string name;
  std::string value;
  bool operator==(const ConfigField&) const = default;
};

/// The parts of the gradient budget (DESIGN section 4, "Gradient budget"; rules::GradientBudget):
/// the main head's loss, and each auxiliary part's. Each part's gradient is clipped to its share
/// of optim.grad_clip and reported in its own ScalarBlock fields (main_*, iqn_*, ensemble_*, cql_*).
enum class PartKind : int {
  kMain = 0,      ///< the main head (Q, C51, IQN): the loss that acts
  kIqn = 1,       ///< an auxiliary IQN head beside a Q or C51 main head
  kEnsemble = 2,  ///< the bootstrapped ensemble's heads
  kCql = 3,       ///< CQL(H) on the main head's Q-values (not a head: train/loss_parts.h)
};

/// Which forward pass a head runs. Heads with random draws (IQN's quantile fractions) pick their
/// Philox stream from it; the others ignore it.
enum class Pass : int {
  kOnline = 0,  ///< the online network on a training batch: rows [0, batch) are s, [batch, 2 batch) s'
  kTarget = 1,  ///< the target network on the batch's s' (batch rows)
  kAct = 2,     ///< acting, evaluation and the probes (any rows)
};

/// What a forward pass is for.
struct ForwardContext {
  uint64_t seed = 0;   ///< the run's seed (the key of every Philox draw)
  int64_t step = 0;    ///< the training step (1-based) of kOnline / kTarget; kAct: the steps done
  Pass pass = Pass::kAct;
  int64_t batch = 0;   ///< kOnline and kTarget: B (kOnline's s rows come before its s' rows)
};

/// One sampled batch as a head's loss reads it; every array has `batch` entries.
struct LossBatch {
  const int32_t* actions = nullptr;       ///< a, in [0, A)
  const float* rewards = nullptr;         ///< n-step discounted reward sums, return units
  const float* discounts = nullptr;       ///< gamma^n for a bootstrapped transition, 0 at a terminal
  const float* weights = nullptr;         ///< prioritized replay's IS weights
  const int32_t* slots = nullptr;         ///< replay slots (bootstrap masks draw from slot and generation)
  const uint32_t* generations = nullptr;  ///< the slots' generations when sampled
  int64_t batch = 0;                      ///< B
  bool double_dqn = true;                 ///< a* from the online network at s' (else the target's)
  double huber_delta = 1;                 ///< optim.huber_delta, for Huber losses
  int64_t step = 0;                       ///< the training step (1-based)
  uint64_t seed = 0;                      ///< the run's seed
};

/// A head's loss on a batch (f64).
struct HeadLoss {
  double loss = 0;    ///< the head's loss, IS-weighted mean over the batch
  double td_mse = 0;  ///< mean over the batch of (target value - Q(s, a))^2, return units squared
};

/// A head's activations, outputs and scratch for up to max_rows rows, allocated once by
/// Head::make_state (no allocation per pass); each head defines its own subclass.
class HeadState {
 public:
  virtual ~HeadState() = default;
};

/// A head on the trunk's features. Heads are immutable (their config only); everything a pass
/// writes lives in a HeadState, so one Head serves the online and target networks and every
/// thread that holds its own states. `p` and `g` below are the head's layers in layers() order
/// (ParamView::heads[k] of the parameter and gradient buffers).
class Head {
 public:
  virtual ~Head() = default;
  /// Short name ("q", "c51"), used in messages and by the test binding.
  virtual std::string name() const = 0;
  /// The budget part its loss belongs to: kMain for the head that acts, else its auxiliary part.
  virtual PartKind part() const = 0;
  /// Its dense layers, in the order their tensors (and init draws) follow the trunk's.
  virtual std::vector<LayerSpec> layers() const = 0;
  /// The config fields its layout and step depend on (written into checkpoints, compared on load).
  virtual std::vector<ConfigField> fields() const = 0;
  /// A state for passes over up to max_rows rows.
  virtual std::unique_ptr<HeadState> make_state(int64_t max_rows) const = 0;

  /// Forward over features [rows x F] (the trunk's output, f32) into `s`. rows <= max_rows.
  virtual void forward(std::span<const DenseView> p, const float* features, int64_t rows, const ForwardContext& ctx,
                       HeadState& s) const = 0;
  /// Its raw outputs of the last forward's first `rows` rows (Q: Q [rows x A]; C51: logits
  /// [rows x A x atoms]), f32; the learner checks them for NaN (and tests inject one).
  virtual std::span<float> outputs(HeadState& s, int64_t rows) const = 0;
  /// The Q-values it acts with, q [rows x A] (f32), from the last forward (Q: Q; C51: the
  /// expected values sum_j z_j p_j); greedy actions, Q-stats and CQL read them.
  virtual void q_values(const HeadState& s, int64_t rows, float* q) const = 0;

  /// Its loss on `batch` from the online state (a kOnline forward over 2B rows: s, then s') and
  /// the target state (a kTarget forward over the B rows of s'). Writes the per-transition TD
  /// signal the priority update reads into td [B] (f32), and leaves dL/d(outputs) of the B rows
  /// of s in `online` (output_gradient) for backward.
  virtual HeadLoss loss(const LossBatch& batch, HeadState& online, const HeadState& target, float* td) const = 0;
  /// Sets the output gradient of the first `rows` rows from a gradient dq [rows x A] (f32) on
  /// its Q-values instead of its loss: afterwards backward gives the gradients of sum(dq ⊙ Q)
  /// (CQL uses it on the main head). @throws std::logic_error for a head without
  /// deterministic Q-values (IQN; the config refuses CQL with an IQN main head).
  virtual void q_gradient(HeadState& s, const float* dq, int64_t rows) const = 0;
  /// dL/d(outputs) of the first `rows` rows (outputs' shape), as loss or q_gradient left it; tests
  /// write it directly.
  virtual std::span<float> output_gradient(HeadState& s, int64_t rows) const = 0;
  /// Backward from output_gradient over the first `rows` rows of the last forward: writes its
  /// layers' gradients into g and dL/dfeatures [rows x F] into d_features (added to it when
  /// accumulate). `s` keeps the backward's scratch.
  virtual void backward(HeadState& s, std::span<const DenseView> p, const float* features, int64_t rows,
                        std::span<const DenseView> g, float* d_features, bool accumulate) const = 0;

  /// Its own scalars at the Q-stats probe, from the last forward over `rows` rows (C51: the
  /// greedy action's mean distribution). Default: none.
  virtual void probe(const HeadState& /*s*/, int64_t /*rows*/, ScalarBlock& /*out*/) const {}
  /// An auxiliary head's scalars at the Q-stats probe, from its last forward over `rows` rows
  /// and the main head's Q-values main_q [rows x A] (f32) of the same rows (the ensemble: its
  /// disagreement at the main head's greedy actions). Default: none.
  virtual void probe_auxiliary(const HeadState& /*s*/, int64_t /*rows*/, const float* /*main_q*/,
                               ScalarBlock& /*out*/) const {}
};

}  // namespace dqn
