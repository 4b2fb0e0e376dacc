// The CUDA learner's device-side data (plain structs shared by the host code in
// native/src/cuda/cuda_learner.* and the kernels) and the launchers that the host code calls.
// Compiles with a host C++ compiler: no device code here (that is in learner_*.cu).
//
// One training step (DESIGN section 4) is, after the replay's sample kernel:
//   1. LaunchGemm per trunk layer: online s and s' (2B rows) and target s' (B rows) in one
//      launch (two problems), bias and ReLU fused;
//   2. LaunchGemm for the head: V and A of both networks in one launch (four problems);
//   3. LaunchTdLoss: dueling combine, Double DQN target, IS-weighted Huber loss, TD errors into
//      the replay's update buffer, dL/dV and dL/dA, Q-stats on schedule, NaN checks;
//   4. LaunchGemm per layer, top down: the weight gradient (bias row included) and the input
//      gradient (ReLU mask fused) of a layer in one launch;
//   5. LaunchGradNorm (global norm, clip coefficient, schedules, scalars), LaunchAdam (Adam,
//      target network, weight NaN check);
// then the replay's priority update. Nothing here synchronizes, allocates or reads device
// values on the host: everything is capturable in a CUDA graph.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/replay_launch.cuh"
#include "train/scalar_block.h"

namespace dqn::cuda::detail {

/// Arithmetic of the matrix products: FP32 (SIMT, the reference), TF32 or BF16 tensor cores
/// (WMMA), FP32 accumulation always.
enum class Precision : int { kF32 = 0, kTF32 = 1, kBF16 = 2 };

/// A logical [rows x cols] f32 matrix read through strides: element (i, j) at ptr[i * rs + j * cs].
/// Row `ones_row` (when >= 0) is not in memory and reads as 1: the bias row of an extended
/// weight gradient [W; b] = [X, 1]^T · dY.
struct MatIn {
  const float* ptr = nullptr;
  int64_t rs = 0, cs = 1;
  int ones_row = -1;
};

/// One product C [m x n] = A [m x k] · B [k x n] with a fused epilogue, applied in this order:
/// + bias[j], + u[i] · v[j] (rank one), max(0, .) when relu, · (mask[i, j] > 0) when mask.
struct GemmProblem {
  int m = 0, n = 0, k = 0;
  MatIn a, b;
  float* c = nullptr;
  int64_t ldc = 0;
  const float* bias = nullptr;  ///< [n] or null
  const float* u = nullptr;     ///< [m] or null (with v)
  const float* v = nullptr;     ///< [n]
  bool relu = false;
  const float* mask = nullptr;  ///< [m x ldm] or null: the ReLU backward of a layer's input
  int64_t ldm = 0;
};

/// Scratch of split-K: partial output tiles and one arrival counter per output tile (zero
/// between launches; the last block of a tile resets it). Sized by GemmWorkspaceNeeded; one
/// workspace serves every launch of a stream (launches in a stream run one after another).
struct GemmWorkspace {
  float* partials = nullptr;
  uint32_t* counters = nullptr;
};
struct GemmWorkspaceSize {
  int64_t partial_floats = 0;
  int64_t counters = 0;
};

/// Most problems in one grouped launch (the head forward has four).
inline constexpr int kMaxGemmProblems = 4;

/// Problems computed by one launch; blocks are assigned to problems' output tiles in order, and
/// a long K range is split over several blocks per tile (split-K): each writes its partial
/// tile to `workspace`, and the last of a tile's blocks to finish sums them in split order
/// (deterministic) and applies the epilogue.
struct GemmBatch {
  GemmProblem p[kMaxGemmProblems];
  int count = 0;
  GemmWorkspace workspace;
  // Filled by LaunchGemm:
  int block_start[kMaxGemmProblems + 1] = {};  ///< first block of each problem
  int splits[kMaxGemmProblems] = {};           ///< K splits per output tile
  int tile_base[kMaxGemmProblems] = {};        ///< first counter of each problem in the workspace
  int64_t partial_base[kMaxGemmProblems] = {}; ///< first partial float of each problem in the workspace
};

/// Workspace size one GemmBatch needs: partial tiles and per-tile counters.
GemmWorkspaceSize GemmWorkspaceNeeded(const GemmBatch& batch);

/// Step-constant options of the learner, passed by value to the loss and optimizer kernels.
struct LearnerParams {
  int batch = 256;       ///< B
  int n_actions = 2;     ///< A
  bool dueling = true;
  bool double_dqn = true;
  double huber_delta = 1;
  double lr = 2.5e-4, lr_end = 2.5e-4;
  int64_t lr_decay_steps = 0;
  double beta1 = 0.9, beta2 = 0.999, adam_eps = 1e-8;
  double grad_clip = 10;
  bool target_hard = true;
  int64_t target_interval = 1000;
  double tau = 0.005;
  int64_t q_stats_interval = 100;
  int64_t n_params = 0;  ///< floats per network
};

/// Mutable learner state in device memory: graph replays read and advance it.
struct LearnerControl {
  int64_t t = 0;              ///< gradient steps done (Adam's t); advanced by a healthy step
  uint32_t loss_flags = 0;    ///< NanFlag bits found by the loss kernel in the current step
  uint32_t halted = 0;        ///< sticky NanFlag bits: once set, no step changes a parameter
  int32_t apply = 0;          ///< the current step is healthy: Adam and the target update run
  int32_t copy_target = 0;    ///< hard target update in the current step
  float scale = 1;            ///< clip coefficient of the current step
  float step_size = 0;        ///< lr_t / (1 - beta1^t)
  float inv_sqrt_bc2 = 1;     ///< 1 / sqrt(1 - beta2^t)
  uint32_t loss_blocks_done = 0, norm_blocks_done = 0, probe_blocks_done = 0;  ///< last-block counters
  uint32_t inject_flag = 0;   ///< test switch: NanFlag of the tensor poisoned at inject_step
  int64_t inject_step = -1;
};

/// Device scratch of the loss, norm and probe reductions (per-block partials).
struct Partials {
  double* loss = nullptr;  ///< [8 x kMaxPartialBlocks]: loss, td^2, w, q sum, q^2, q min, q max, row max
  uint32_t* flags = nullptr;  ///< [kMaxPartialBlocks]
  double* norm = nullptr;  ///< [kMaxPartialBlocks]
};
inline constexpr int kMaxPartialBlocks = 8192;

/// Inputs and outputs of the TD loss kernel (device pointers).
struct TdLossArgs {
  const float* v_online = nullptr;  ///< [2B] V(s), V(s') (dueling; null otherwise)
  const float* a_online = nullptr;  ///< [2B x A] A(s), A(s') (plain head: Q)
  const float* v_target = nullptr;  ///< [B]
  const float* a_target = nullptr;  ///< [B x A]
  const int32_t* actions = nullptr;
  const float* rewards = nullptr;
  const float* discounts = nullptr;
  const float* weights = nullptr;   ///< IS weights
  float* td = nullptr;              ///< [B] out: y - Q(s, a)
  float* d_value = nullptr;         ///< [B] out: dL/dV (dueling)
  float* d_adv = nullptr;           ///< [B x A] out: dL/dA (plain head: dL/dQ)
};

/// Inputs of the causal-sensitivity probe (DESIGN section 4).
struct ProbeArgs {
  const float* states = nullptr;    ///< [B x D] the batch's states
  float* inputs = nullptr;          ///< [(F + 1) B x D] out: block 0 the batch, block f: do(group f)
  const int32_t* group_start = nullptr;  ///< [F + 1] offsets into group_cols
  const int32_t* group_cols = nullptr;   ///< columns of each feature group
  int groups = 0;                   ///< F
  int state_dim = 0;
  const float* v = nullptr;         ///< [(F + 1) B] V of the probe rows (dueling; null otherwise)
  const float* a = nullptr;         ///< [(F + 1) B x A]
  double* per_group = nullptr;      ///< [F] out: mean |Q(s) - Q(s_do(f))|
};

// Launchers: each enqueues on `stream` and returns the launch error (cudaSuccess when queued).

/// The problems of `batch` in one launch at `precision`.
cudaError_t LaunchGemm(GemmBatch batch, Precision precision, cudaStream_t stream);
/// TD loss of the batch; writes ScalarBlock loss, td_mse, is_weight_mean (and the Q-stats when
/// step t + 1 is a multiple of q_stats_interval) into `scalars`.
cudaError_t LaunchTdLoss(const LearnerParams& p, const TdLossArgs& args, LearnerControl* ctl, Partials partials,
                         ScalarBlock* scalars, cudaStream_t stream);
/// Global gradient norm of grads [n_params]; decides whether the step applies (no NaN flag, no
/// earlier halt), the clip coefficient and Adam's step size from the device step counter;
/// writes grad_norm, the cumulative sums, step, nan_flags and the replay's PER scalars (when
/// `replay` is not null) into `scalars`.
cudaError_t LaunchGradNorm(const LearnerParams& p, const float* grads, LearnerControl* ctl, Partials partials,
                           ScalarBlock* scalars, const ReplayView* replay, cudaStream_t stream);
/// Adam on the online weights, the target update, and the weights' NaN check, when the step applies.
cudaError_t LaunchAdam(const LearnerParams& p, const float* grads, float* online, float* target, float* m, float* v,
                       LearnerControl* ctl, ScalarBlock* scalars, cudaStream_t stream);
/// Builds the probe's intervened inputs from the batch's states (B rows).
cudaError_t LaunchProbeInputs(const ProbeArgs& args, int batch, cudaStream_t stream);
/// Test switch of the sticky-error fallback: a kernel that writes through an invalid address,
/// so the context is lost (cudaErrorIllegalAddress at the next synchronizing call).
cudaError_t LaunchKernelFault(cudaStream_t stream);
/// Reduces the probe's Q-values into causal_sensitivity and causal_per_feature of `scalars`.
cudaError_t LaunchProbeReduce(const LearnerParams& p, const ProbeArgs& args, LearnerControl* ctl,
                              ScalarBlock* scalars, cudaStream_t stream);

}  // namespace dqn::cuda::detail
