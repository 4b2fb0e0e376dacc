// The CUDA learner's device-side data (plain structs shared by the host code in
// native/src/cuda/cuda_learner.* and the kernels) and the launchers that the host code calls.
// Compiles with a host C++ compiler: no device code here (that is in learner_*.cu).
//
// One training step (DESIGN section 4) is, after the replay's sample kernel, ONE launch of the
// persistent learner kernel (LaunchCore): its blocks stay resident and walk a program of
// phases separated by grid-wide barriers:
//   1. a grouped product per trunk layer: online s and s' (2B rows) and target s' (B rows),
//      bias and ReLU fused;
//   2. the head: V and A of both networks (four products);
//   3. the TD loss, one warp a transition: dueling combine, Double DQN target, IS-weighted
//      Huber loss, TD errors into the replay's update buffer, dL/dV and dL/dA, Q-stats on
//      schedule, NaN checks, and the head's input gradient dL/dfeatures through the trunk's
//      top ReLU (from the row sums of the advantage weights, formed beside the head products);
//   4. per layer, top down: the weight gradient (bias row included) and the input gradient
//      (ReLU mask fused) of the layer as one grouped product; the head's weight gradients
//      ride in the top layer's phase;
//   5. the global gradient norm (clip coefficient, scalars), then Adam with the target network
//      update and the weights' NaN check;
// then the replay's priority update. Beside the products, the block that arrived last at the
// barrier before a phase does a side job (SideJob: the PER scalars, the schedules, the loss
// fold); in a seed group (Group) every phase's work is the members' work side by side, and the
// last `count` blocks to arrive do one member's side job each. A barrier costs about a microsecond (1.1-1.4 µs from the last arrival to the first
// release, run L23) where a dependent kernel launch costs several, and no phase waits for a launch. Nothing here synchronizes,
// allocates or reads device values on the host: everything is capturable in a CUDA graph.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/replay_launch.cuh"
#include "train/learner_config.h"
#include "train/scalar_block.h"

namespace dqn::cuda::detail {

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
  double* sq = nullptr;  ///< [TileCount(m, n)] or null: each output tile's sum of squares (gradient norm)
};

/// Output tile of the products: a block computes kTileRows x kTileCols outputs at a time.
inline constexpr int kTileRows = 32, kTileCols = 64;
/// Output tiles of an [m x n] product.
constexpr int TileCount(int m, int n) { return ((m + kTileRows - 1) / kTileRows) * ((n + kTileCols - 1) / kTileCols); }

/// Step constants of the kernel: the learner's options as the CPU learner reads them (one
/// struct for both backends) and the shape they apply to. Passed by value in the program.
struct LearnerParams {
  LearnerConfig options;
  int batch = 256;       ///< B (options.batch_size)
  int n_actions = 2;     ///< A
  bool dueling = true;
  int64_t n_params = 0;  ///< floats per network
};

/// Mutable learner state in device memory: graph replays read and advance it.
struct LearnerControl {
  int64_t t = 0;              ///< gradient steps done (Adam's t); advanced by a healthy step
  uint32_t loss_flags = 0;    ///< NanFlag bits found by the loss phase in the current step
  uint32_t halted = 0;        ///< sticky NanFlag bits: once set, no step changes a parameter
  uint32_t optimizer_blocks_done = 0, probe_blocks_done = 0;  ///< last-block counters
  float step_size = 0;        ///< this step's lr / (1 - beta1^t), from SideJob::kSchedules
  float inv_sqrt_bc2 = 0;     ///< this step's 1 / sqrt(1 - beta2^t)
  uint32_t inject_flag = 0;   ///< test switch: NanFlag of the tensor poisoned at inject_step
  int64_t inject_step = -1;
};

/// Device scratch of the loss, norm and probe reductions (per-block partials).
struct Partials {
  double* loss = nullptr;  ///< [8 x kMaxPartialBlocks]: loss, td^2, w, q sum, q^2, q min, q max, row max
  uint32_t* flags = nullptr;  ///< [kMaxPartialBlocks]
  double* norm = nullptr;  ///< [norm_slots]: sums of squares of the weight gradients' output tiles
  int norm_slots = 0;
};
inline constexpr int kMaxPartialBlocks = 8192;

/// Inputs and outputs of the TD loss phase (device pointers).
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
  // The head's input gradient dL/dfeatures = (dA·Waᵀ + dV·Wvᵀ) ⊙ (features > 0), row by row.
  const float* features = nullptr;  ///< [B x F] the trunk's output (after its ReLU) for s
  int width = 0;                    ///< F
  const float* adv_w = nullptr;     ///< [F x A] online advantage (plain: Q) weights
  const float* value_w = nullptr;   ///< [F] online value weights (dueling; null otherwise)
  float* adv_row_sums = nullptr;    ///< [F] sum_j adv_w[k][j], by SideJob::kHeadSums in the head's phase
  float* d_features = nullptr;      ///< [B x F] out
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

/// Most products in one phase (the head forward has four; the top layer's backward with the
/// head's two weight gradients too) and most phases in one program (8 hidden layers: 8 + head
/// + loss + 8 + Adam = 19).
inline constexpr int kMaxPhaseProblems = 4, kMaxPhases = 24;

/// kTdLoss: the TD loss and the head's input gradient, one warp a transition (TdLossArgs).
/// kOptimizer: the gradient norm (from the backward products' tile sums), clip, Adam, target
/// update, and the step's commit by the last block to finish.
enum class PhaseKind : int { kGemm = 0, kTdLoss = 1, kOptimizer = 2 };
/// Work the grid's last block does first, beside a phase's products (which leave it idle at the
/// reference sizes): fold the loss phase's partials, read the replay's PER scalars, or form
/// the step's schedules.
/// kSchedules: this step's learning rate and Adam's bias corrections (two pows in f64, slow on
/// one thread), into LearnerControl for the optimizer phase. kHeadSums: the row sums of the
/// online advantage weights (TdLossArgs::adv_row_sums) for the loss phase's input gradient.
enum class SideJob : int { kNone = 0, kFoldLoss = 1, kPerScalars = 2, kSchedules = 3, kHeadSums = 4 };

/// One phase: up to kMaxPhaseProblems products whose output tiles are spread over the blocks
/// (kGemm), or one of the step's reductions and updates.
struct Phase {
  PhaseKind kind = PhaseKind::kGemm;
  SideJob side = SideJob::kNone;
  int count = 0;
  GemmProblem p[kMaxPhaseProblems];
};

/// What the PER-scalars side job reads of one learner's GPU replay (from its ReplayView).
struct PerView {
  const double* level = nullptr;  ///< the sum tree's partition level (null: no GPU replay)
  int64_t count = 0;              ///< nodes of that level
  const DeviceState* state = nullptr;
  double beta0 = 0.4;
  int64_t beta_steps = 0;
};

/// The PER-scalars view of a GPU replay.
inline PerView MakePerView(const ReplayView& r) {
  const int lvl = r.tree.part_level;
  return PerView{r.sum + r.tree.offset[lvl], r.tree.count[lvl], r.state, r.beta0, r.beta_steps};
}

/// Most learners one launch advances (a seed group, DESIGN section 4).
inline constexpr int kMaxGroup = 16;

/// The learners one launch of the step advances (issue 27: several seeds on one GPU). Every
/// learner of a group has the same shapes and options; member s's device block (every buffer
/// of CudaLearner, carved in one order) starts s * stride bytes after member 0's, so the
/// program, built with member 0's pointers, reaches member s's tensors by shifting each pointer
/// by s * stride. The members share the barrier (member 0's) and nothing else: each has its own
/// weights, moments, batch, activations, partials, control block, scalars and replay (per[s]).
/// A member's arithmetic does not depend on the group (the same tiles, the same reductions in
/// the same order), so it trains bit for bit as it would alone.
struct Group {
  int count = 1;
  int64_t stride = 0;         ///< bytes from one member's device block to the next
  PerView per[kMaxGroup];     ///< each member's replay (PER scalars)
};

/// Grid-wide barrier state (device memory, zero at first use; it returns to count 0 after
/// every barrier, so graph replays need no reset).
struct GridBarrier {
  uint32_t count = 0, generation = 0;
};

/// Everything the persistent learner kernel reads, passed by value (kernel parameters up to
/// 32 KB, CUDA 12.1+): the phases, the step's constants and member 0's device pointers (the
/// group's other members are reached by Group::stride).
struct CoreProgram {
  Phase phase[kMaxPhases];
  int phases = 0;
  LearnerParams params;
  TdLossArgs loss;
  const float* grads = nullptr;
  float *online = nullptr, *target = nullptr, *m = nullptr, *v = nullptr;
  LearnerControl* ctl = nullptr;
  Partials partials;
  ScalarBlock* scalars = nullptr;
  Group group;                  ///< the learners advanced (one, or a seed group) and their replays
  GridBarrier* barrier = nullptr;
  /// Profiling only (or null): the global timer (ns) of every block, [StampCount(phases,
  /// blocks)] values: at Stamp(ph, b, 0) block b starts phase ph (after the barrier before it),
  /// at Stamp(ph, b, 1) it arrives at the barrier after it; Stamp(phases, b, 0) is its exit
  /// from the last barrier.
  uint64_t* stamps = nullptr;
  /// Profiling only (or null): for the first tile of each block in each phase, kTileStamps
  /// global-timer values at TileStamp(ph, b, 0): the tile's start, its first K chunk staged (the
  /// operands' first round trip), its K loop done, its epilogue stored (0 where none ran).
  uint64_t* tile_stamps = nullptr;
};

inline constexpr int kTileStamps = 4;
/// Index of a block's tile stamps in phase ph (see CoreProgram::tile_stamps).
constexpr int64_t TileStamp(int ph, int b, int blocks) { return (static_cast<int64_t>(ph) * blocks + b) * kTileStamps; }

/// Index of one profiling stamp (see CoreProgram::stamps): phase ph, block b, 0 start / 1 arrive.
constexpr int64_t Stamp(int ph, int b, int what, int blocks) { return (static_cast<int64_t>(ph) * blocks + b) * 2 + what; }
/// Stamps of a program of `phases` phases on `blocks` blocks.
constexpr int64_t StampCount(int phases, int blocks) { return Stamp(phases + 1, 0, 0, blocks); }

// Launchers: each enqueues on `stream` and returns the launch error (cudaSuccess when queued).

/// Blocks of one LaunchCore: one per multiprocessor (all blocks must be resident at once for the
/// barriers; cudaErrorInvalidConfiguration when not even one fits). Reads device attributes
/// (call once, at construction).
cudaError_t CoreBlocks(Precision precision, int* blocks);
/// The program's phases in one launch of `blocks` resident blocks (from CoreBlocks).
cudaError_t LaunchCore(const CoreProgram& program, Precision precision, int blocks, cudaStream_t stream);
/// Builds the probe's intervened inputs from the batch's states (B rows).
cudaError_t LaunchProbeInputs(const ProbeArgs& args, int batch, cudaStream_t stream);
/// Test switch of the sticky-error fallback: a kernel that writes through an invalid address,
/// so the context is lost (cudaErrorIllegalAddress at the next synchronizing call).
cudaError_t LaunchKernelFault(cudaStream_t stream);
/// Reduces the probe's Q-values into causal_sensitivity and causal_per_feature of `scalars`.
cudaError_t LaunchProbeReduce(const LearnerParams& p, const ProbeArgs& args, LearnerControl* ctl,
                              ScalarBlock* scalars, cudaStream_t stream);

}  // namespace dqn::cuda::detail
