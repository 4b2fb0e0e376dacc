// Where every tensor of the Q-network lives in its flat f32 parameter buffer (DESIGN section 4).
// One buffer per network (online, target); gradients and Adam's m and v use the same layout, so
// optimizer and target updates are single loops over the flat buffer. The trunk (hidden layers)
// comes first, then each of the run's heads (MakeHeads, model/heads.h) with its layers in the
// order the head lists them (Head::layers, model/head.h). The plain Q head alone gives the
// layout of version-1 checkpoints: dueling value [F -> 1] then advantage [F -> A], or one q
// layer [F -> A].
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/heads_config.h"

namespace dqn {

class Rng;
class Head;

/// Shape of the Q-network: state_dim -> hidden[0] -> ... -> head.
struct NetConfig {
  int state_dim = 4;
  int n_actions = 2;
  std::vector<int> hidden = {256, 256};
  /// Dueling heads: V and A streams combined as V + A - mean_a(A) (Wang et al. 2016, eq. 9; per
  /// atom for C51, as in Rainbow, Hessel et al. 2018); false: one linear output layer.
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

/// Offsets of all tensors, in order: the trunk's layers, then each head's layers (heads in
/// MakeHeads order, main head first). Copies share the immutable heads.
class ParamLayout {
 public:
  /// Builds the heads with MakeHeads(config). @throws std::invalid_argument if a dimension is
  /// < 1, there is no hidden layer, or the heads config is refused (MakeHeads).
  explicit ParamLayout(const NetConfig& config);
  const NetConfig& config() const { return config_; }
  const std::vector<DenseSlot>& trunk() const { return trunk_; }
  /// The run's heads, main head first.
  const std::vector<std::shared_ptr<const Head>>& heads() const { return heads_; }
  /// The head that acts (greedy actions, Q-stats, the causal probe).
  const Head& main_head() const { return *heads_.front(); }
  /// Slots of head k's layers, in Head::layers() order.
  const std::vector<DenseSlot>& head_slots(size_t k) const { return head_slots_[k]; }
  /// He-uniform init gains of head k's layers (LayerSpec::gain), in the same order.
  const std::vector<double>& head_gains(size_t k) const { return head_gains_[k]; }
  /// The main Q head's state-value stream V(s) (dueling only). value() and advantage() exist for
  /// the CUDA learner, which trains only the plain Q head (HeadsConfig::plain_q()) and reads its
  /// slots directly; with another main head they are empty slots.
  const DenseSlot& value() const { return value_; }
  /// The main Q head's advantage stream A(s, a) (dueling) or its Q layer (plain); see value().
  const DenseSlot& advantage() const { return advantage_; }
  int64_t size() const { return size_; }  ///< floats in one buffer
  int feature_dim() const { return trunk_.back().out; }  ///< width of the trunk's output
  int max_width() const;  ///< widest trunk layer output or n_actions (workspace sizing)

 private:
  DenseSlot Append(int in, int out);
  NetConfig config_;
  std::vector<DenseSlot> trunk_;
  std::vector<std::shared_ptr<const Head>> heads_;
  std::vector<std::vector<DenseSlot>> head_slots_;
  std::vector<std::vector<double>> head_gains_;
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
  std::vector<std::vector<DenseView>> heads;  ///< per head, its layers in Head::layers() order
  DenseView value;      ///< the main Q head's V stream (dueling; for the CUDA learner, see ParamLayout::value)
  DenseView advantage;  ///< the main Q head's A stream (dueling) or Q layer (plain)
};

/// He/Kaiming uniform init (He et al. 2015): W ~ U(-g·sqrt(3/in), g·sqrt(3/in)) with gain
/// g = sqrt(2) for the ReLU trunk layers and each head layer's LayerSpec::gain (1 for the linear
/// Q head layers); biases 0. Draws from `rng` in tensor order, so a seed fixes the weights.
void InitParams(const ParamLayout& layout, float* params, Rng& rng);

}  // namespace dqn
