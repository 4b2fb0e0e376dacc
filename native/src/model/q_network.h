// Forward and backward passes of the Q-network (DESIGN section 4): an MLP trunk with ReLU and a
// dueling head Q = V + A - mean_a(A) (Wang et al. 2016, eq. 9) or a plain linear Q head, over a
// batch of rows, f32, on the CPU. Trunk and head are separate steps so that other heads can
// reuse the trunk's features (DESIGN section 10).
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
#include <vector>

#include "model/param_layout.h"

namespace dqn {

/// Activations of one forward pass over up to max_rows rows (kept for the backward pass), and
/// the backward pass's scratch. Allocated once; no allocation per pass.
class Workspace {
 public:
  Workspace(const ParamLayout& layout, int64_t max_rows);
  int64_t max_rows() const { return max_rows_; }
  float* hidden(size_t layer) { return hidden_[layer].data(); }  ///< [rows x width], after ReLU
  const float* hidden(size_t layer) const { return hidden_[layer].data(); }
  float* features() { return hidden_.back().data(); }            ///< trunk output
  float* value() { return value_.data(); }                       ///< [rows] (dueling)
  float* advantage() { return advantage_.data(); }               ///< [rows x A] (dueling)
  float* q() { return q_.data(); }                               ///< [rows x A]
  const float* q() const { return q_.data(); }
  float* grad_a() { return grad_a_.data(); }  ///< [rows x max_width] backward scratch
  float* grad_b() { return grad_b_.data(); }  ///< [rows x max_width] backward scratch
  float* grad_value() { return grad_value_.data(); }  ///< [rows]
  float* grad_adv() { return grad_adv_.data(); }      ///< [rows x A]

 private:
  int64_t max_rows_;
  std::vector<std::vector<float>> hidden_;
  std::vector<float> value_, advantage_, q_, grad_a_, grad_b_, grad_value_, grad_adv_;
};

/// Trunk: ws.hidden(l) = relu(ws.hidden(l-1)·W_l + b_l), with ws.hidden(-1) = states [rows x D].
void TrunkForward(const ParamView& p, const float* states, int64_t rows, Workspace& ws);

/// Head on the trunk features: ws.q() = V + A - mean(A) (dueling) or features·W_q + b_q.
void HeadForward(const ParamLayout& layout, const ParamView& p, int64_t rows, Workspace& ws);

/// Q-values of `rows` states [rows x D] into ws.q() [rows x n_actions].
/// rows must be <= ws.max_rows() (checked by the callers that size the workspace).
void Forward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws);

/// Head backward: from dQ [rows x A] writes the head's gradients into g and dL/dfeatures into
/// d_features [rows x feature_dim] (added to it when accumulate is true).
void HeadBackward(const ParamLayout& layout, const ParamView& p, const float* dq, int64_t rows, Workspace& ws,
                  ParamView& g, float* d_features, bool accumulate);

/// Trunk backward from dL/dfeatures (overwritten as scratch) to the trunk's gradients in g.
void TrunkBackward(const ParamView& p, const float* states, int64_t rows, Workspace& ws, float* d_features,
                   ParamView& g);

/// Greedy actions argmax_a Q(s, a) (first index on ties) for states [rows x D], in chunks of
/// ws.max_rows() rows.
void GreedyActions(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws,
                   int32_t* actions);

/// Gradients of L = sum(dq ⊙ Q) with respect to every parameter, written (not added) into g,
/// using the activations of the last Forward over the same first `rows` states.
void Backward(const ParamLayout& layout, const ParamView& p, const float* states, int64_t rows, Workspace& ws,
              const float* dq, ParamView& g);

}  // namespace dqn
