// Where every tensor of the Q-network lives in its flat f32 parameter buffer (DESIGN section 4).
// One buffer per network (online, target); gradients and Adam's m and v use the same layout, so
// optimizer and target updates are single loops over the flat buffer. The trunk (hidden layers)
// and the head are kept apart so extra heads (C51, IQN, ensembles; DESIGN section 10) can be
// appended after the existing tensors without moving them.
#pragma once
#include <cstdint>
#include <vector>

#include "model/heads_config.h"

namespace dqn {

class Rng;

/// Shape of the Q-network: state_dim -> hidden[0] -> ... -> head.
struct NetConfig {
  int state_dim = 4;
  int n_actions = 2;
  std::vector<int> hidden = {256, 256};
  /// Dueling head Q = V + A - mean(A) (Wang et al. 2016, eq. 9); false: one linear Q layer.
  bool dueling = true;
  /// The heads on the trunk and their losses (default: one Q head, as before heads existed).
  HeadsConfig heads;
};

/// A dense layer's tensors in a flat buffer: W [in x out] row-major at w, then b [out] at b.
/// y = x·W + b for a row x of `in` floats.
struct DenseSlot {
  int64_t w = 0;  ///< offset of W, floats
  int64_t b = 0;  ///< offset of b, floats
  int in = 0;
  int out = 0;
};

/// Offsets of all tensors, in order: trunk layers, then the head (dueling: value [h -> 1] then
/// advantage [h -> n_actions]; plain: q [h -> n_actions], held in `advantage`).
class ParamLayout {
 public:
  /// @throws std::invalid_argument if a dimension is < 1 or there is no hidden layer.
  explicit ParamLayout(const NetConfig& config);
  const NetConfig& config() const { return config_; }
  const std::vector<DenseSlot>& trunk() const { return trunk_; }
  /// Dueling only: the state-value stream V(s).
  const DenseSlot& value() const { return value_; }
  /// Dueling: the advantage stream A(s, a); plain: the Q layer.
  const DenseSlot& advantage() const { return advantage_; }
  int64_t size() const { return size_; }  ///< floats in one buffer
  int feature_dim() const { return trunk_.back().out; }  ///< width of the trunk's output
  int max_width() const;  ///< widest layer output (workspace sizing)

 private:
  DenseSlot Append(int in, int out);
  NetConfig config_;
  std::vector<DenseSlot> trunk_;
  DenseSlot value_, advantage_;
  int64_t size_ = 0;
};

/// A dense layer's tensors resolved to pointers in one buffer.
struct DenseView {
  float* w = nullptr;
  float* b = nullptr;
  int in = 0;
  int out = 0;
};

/// Every tensor of one buffer (online, target or gradient) as pointers, computed once.
struct ParamView {
  ParamView() = default;
  ParamView(const ParamLayout& layout, float* base);
  std::vector<DenseView> trunk;
  DenseView value;      ///< dueling only
  DenseView advantage;  ///< dueling: A stream; plain: Q layer
};

/// He/Kaiming uniform init (He et al. 2015): W ~ U(-g·sqrt(3/in), g·sqrt(3/in)) with gain
/// g = sqrt(2) for the ReLU trunk layers and g = 1 for the linear head layers; biases 0.
/// Draws from `rng` in tensor order, so a seed fixes the weights.
void InitParams(const ParamLayout& layout, float* params, Rng& rng);

}  // namespace dqn
