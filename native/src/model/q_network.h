// Forward and backward passes of the Q-network (DESIGN section 4): an MLP trunk with ReLU and the
// run's heads on its features (model/head.h; the main head's Q-values are what the network acts
// with), over a batch of rows, f32, on the CPU. The trunk and each head are separate steps, so
// the learner can run the heads' losses and backward one budget part at a time.
//
// Usage:
//   ParamLayout layout(NetConfig{4, 2, {64, 64}, true});
//   std::vector<float> params(layout.size()), grads(layout.size());
//   Rng rng(1); InitParams(layout, params.data(), rng);
//   ParamView p(layout, params.data()), g(layout, grads.data());
//   Workspace ws(layout, 32);
//   Forward(layout, p, states, 32, ws);          // ws.q(): [32 x 2]
//   Backward(layout, p, states, 32, ws, dq, g);  // grads of sum(dq * Q)
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "model/head.h"
#include "model/param_layout.h"

namespace dqn {

/// Activations of one forward pass over up to max_rows rows (kept for the backward pass): the
/// trunk's, every head's state, and the main head's Q-values; and the backward pass's scratch.
/// Allocated once; no allocation per pass.
class Workspace {
 public:
  Workspace(const ParamLayout& layout, int64_t max_rows);
  int64_t max_rows() const { return max_rows_; }
  float* hidden(size_t layer) { return hidden_[layer].data(); }  ///< [rows x width], after ReLU
  const float* hidden(size_t layer) const { return hidden_[layer].data(); }
  float* features() { return hidden_.back().data(); }            ///< trunk output [rows x F]
  HeadState& head(size_t k) { return *heads_[k]; }               ///< head k's state
  const HeadState& head(size_t k) const { return *heads_[k]; }
  float* q() { return q_.data(); }                               ///< [rows x A] main head's Q-values (Forward)
  const float* q() const { return q_.data(); }
  float* grad_a() { return grad_a_.data(); }  ///< [rows x max_width] backward scratch
  float* grad_b() { return grad_b_.data(); }  ///< [rows x max_width] backward scratch

 private:
  int64_t max_rows_;
  std::vector<std::vector<float>> hidden_;
  std::vector<std::unique_ptr<HeadState>> heads_;
  std::vector<float> q_, grad_a_, grad_b_;
};

/// Trunk: ws.hidden(l) = relu(ws.hidden(l-1)·W_l + b_l), with ws.hidden(-1) = states [rows x D].
void TrunkForward(const ParamView& p, const float* states, int64_t rows, Workspace& ws);

/// Every head's forward on the trunk features of the last TrunkForward, into ws.head(k).
void HeadsForward(const ParamLayout& layout, const ParamView& p, int64_t rows, const ForwardContext& ctx, Workspace& ws);

/// Trunk and heads over `rows` states [rows x D], then the main head's Q-values into ws.q()
/// [rows x n_actions]. rows must be <= ws.max_rows() (checked by the callers that size the
/// workspace).
void Forward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws,
             const ForwardContext& ctx = {});

/// Trunk backward from dL/dfeatures (overwritten as scratch) to the trunk's gradients in g.
void TrunkBackward(const ParamView& p, const float* states, int64_t rows, Workspace& ws, float* d_features,
                   ParamView& g);

/// Backward of the heads numbered in `heads` (each from the output gradient its state holds:
/// Head::loss, q_gradient or a test), their dL/dfeatures summed, then the trunk, over the first
/// `rows` rows of the last forward of states [rows x D]. Writes (not adds) the gradients of those
/// heads and of the trunk into g; the other heads' slots of g are left as they are.
void HeadsBackward(const ParamLayout& layout, const ParamView& p, std::span<const size_t> heads, const float* states,
                   int64_t rows, Workspace& ws, ParamView& g);

/// Greedy actions argmax_a Q(s, a) of the main head (first index on ties) for states [rows x D],
/// in chunks of ws.max_rows() rows.
void GreedyActions(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws,
                   int32_t* actions, const ForwardContext& ctx = {});

/// Gradients of L = sum(dq ⊙ Q) with Q the main head's Q-values (dq [rows x A]) with respect to
/// the main head's and the trunk's parameters, written (not added) into g, using the activations
/// of the last Forward over the same first `rows` states (Head::q_gradient, then HeadsBackward).
void Backward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws,
              const float* dq, ParamView& g);

}  // namespace dqn
