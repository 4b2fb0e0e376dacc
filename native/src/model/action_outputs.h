// A head's output layer: n values per action (n = 1 for Q-values; n = atoms for C51's logits),
// plain (one dense layer [F -> A x n]) or dueling (a value stream [F -> n] and an advantage stream
// [F -> A x n] combined per output j as out_{a,j} = V_j + A_{a,j} - mean_a' A_{a',j}; Wang,
// Schaul, Hessel, van Hasselt, Lanctot and de Freitas 2016, eq. 9, per atom as in Rainbow, Hessel
// et al. 2018), with its forward and backward. f32, row-major; shared by the heads (q_head.cpp,
// c51_head.cpp), which add their losses.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/head.h"

namespace dqn {

/// The output layer of a head on F features for A actions.
class ActionOutputs {
 public:
  /// plain_name: the name of the one layer of the plain form ("q", "logits").
  ActionOutputs(int features, int n_actions, int per_action, bool dueling, std::string plain_name);

  /// Activations and gradients for up to max_rows rows.
  struct Buffers {
    Buffers(const ActionOutputs& o, int64_t max_rows);
    std::vector<float> out;         ///< [rows x A x n] the outputs
    std::vector<float> grad;        ///< [rows x A x n] dL/dout, backward's input
    std::vector<float> value;       ///< [rows x n] V (dueling)
    std::vector<float> advantage;   ///< [rows x A x n] A (dueling)
    std::vector<float> grad_value;  ///< [rows x n] dL/dV (dueling)
    std::vector<float> grad_adv;    ///< [rows x A x n] dL/dA (dueling)
  };

  /// Dueling: "value" [F -> n] then "advantage" [F -> A x n]; plain: plain_name [F -> A x n]. Gain 1.
  std::vector<LayerSpec> layers() const;
  int width() const { return n_actions_ * per_action_; }  ///< A x n, outputs per row
  /// b.out [rows x A x n] from features [rows x F] (the mean over actions summed in action order,
  /// then divided by A, in f32; rules::DuelingQ).
  void forward(std::span<const DenseView> p, const float* features, int64_t rows, Buffers& b) const;
  /// From b.grad: dL/dV_j = sum_a dout_{a,j}, dL/dA_{a,j} = dout_{a,j} - dL/dV_j / A (dueling),
  /// then the dense layers: their gradients into g, dL/dfeatures into d_features (added when
  /// accumulate).
  void backward(Buffers& b, std::span<const DenseView> p, const float* features, int64_t rows,
                std::span<const DenseView> g, float* d_features, bool accumulate) const;

 private:
  int features_, n_actions_, per_action_;
  bool dueling_;
  std::string plain_name_;
};

}  // namespace dqn
