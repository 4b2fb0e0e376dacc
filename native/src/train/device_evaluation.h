// A trading run's evaluation walks on the device as the Trainer sees them (issue 24 item 1;
// DESIGN sections 4 and 7): the walk acts from the online weights as they are on the GPU and
// records its steps there; the host reads the record once at the end and reports the walk with
// the host env's own code (env/trading_report.h). The CUDA implementation is
// cuda/device_evaluation.cpp; MakeEvaluation (train/make_collection.h) builds it beside the
// device collector of a trading run, or says why the walks stay on the host.
#pragma once
#include <memory>
#include <string>

#include "env/make_env.h"
#include "env/trading_report.h"

namespace dqn {

/// One evaluation walk on the device: its return and its report.
struct DeviceWalk {
  double ret = 0;     ///< the walk's rewards summed in f64 (the episode return Trainer::evaluate reports)
  WalkReport report;  ///< the walk's figures and series, as the host's evaluation env reports them
};

class DeviceEvaluation {
 public:
  virtual ~DeviceEvaluation() = default;
  /// Walks `span` (kValidation, or kTest where the run has a test span) once, greedily, from the
  /// learner's online weights after every step queued so far. Synchronizes once (the epoch
  /// boundary), counted.
  /// @throws CudaError when a launch or the read fails (the trainer then walks on the host);
  ///   DeviceLost when the context is lost; std::invalid_argument for a span it does not walk.
  virtual DeviceWalk walk(EnvRole span) = 0;
};

/// A trading run's evaluation on the device, or null with the reason its walks step on the host.
struct EvaluationChoice {
  std::unique_ptr<DeviceEvaluation> eval;
  std::string reason;  ///< why not ("" when eval is set)
};

}  // namespace dqn
