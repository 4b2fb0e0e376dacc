// The replay buffer interface (DESIGN section 3), implemented by the CPU reference
// (replay/cpu_replay.*) and the CUDA backend (cuda/cuda_replay.*). This host-facing API takes
// and fills host arrays; the CUDA backend adds device-pointer entry points of its own.
// Errors: std::invalid_argument for bad arguments, std::runtime_error for failures; the
// bindings turn them into JS exceptions.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace dqn {

enum class Sampler { kProportional, kRank, kUniform };
enum class IsNormalization { kBuffer, kBatch };

/// Construction parameters (validated by the constructor; see common/config.ts for ranges).
struct ReplayConfig {
  int64_t capacity = 100000;   ///< N, transitions
  int state_dim = 4;           ///< D, floats per state
  Sampler sampler = Sampler::kProportional;
  double alpha = 0.6;          ///< priority exponent
  double beta0 = 0.4;          ///< initial IS exponent
  int64_t beta_steps = 100000; ///< sample() calls over which beta anneals to 1, then clamped
  double eps = 1e-6;           ///< added to |td| before the exponent
  double p_clip = 1e6;         ///< |td| is clipped here before the exponent
  IsNormalization is_normalization = IsNormalization::kBuffer;
  int64_t rank_sort_interval = 1000; ///< rank-based: re-sort every K sample() calls
  uint64_t seed = 1;
};

/// B transitions in host memory, row-major. `discounts` (bootstrap multiplier gamma^k, 0 at a
/// terminal) may be null: it then defaults to 1 - done.
struct TransitionBatch {
  const float* states = nullptr;      ///< [B x D]
  const int32_t* actions = nullptr;   ///< [B]
  const float* rewards = nullptr;     ///< [B]
  const float* next_states = nullptr; ///< [B x D]
  const uint8_t* dones = nullptr;     ///< [B], 1 = terminal
  const float* discounts = nullptr;   ///< [B] or null
  int64_t count = 0;                  ///< B
};

/// Host buffers that sample() fills, each sized for the batch.
struct SampleBatch {
  int32_t* indices = nullptr;      ///< [B] slot indices in [0, size)
  uint32_t* generations = nullptr; ///< [B] slot generation at sampling time
  float* weights = nullptr;        ///< [B] IS weights (1 for uniform)
  float* states = nullptr;         ///< [B x D]
  int32_t* actions = nullptr;      ///< [B]
  float* rewards = nullptr;        ///< [B]
  float* next_states = nullptr;    ///< [B x D]
  uint8_t* dones = nullptr;        ///< [B]
  float* discounts = nullptr;      ///< [B]
};

/// Outcome counts of one priority update.
struct UpdateResult {
  int64_t applied = 0;            ///< distinct slots whose priority changed
  int64_t rejected_nonfinite = 0; ///< NaN/Inf TD errors ignored (slot keeps its priority)
  int64_t stale = 0;              ///< dropped: the slot was overwritten since it was sampled
  int64_t duplicates = 0;         ///< entries superseded by a later entry for the same slot
};

/// A fixed-capacity ring buffer of transitions with PER sampling.
class Replay {
 public:
  virtual ~Replay() = default;
  /// Appends B transitions at the write cursor with the running max priority.
  virtual void insert(const TransitionBatch& batch) = 0;
  /// Draws B transitions (stratified for proportional), gathers them and their IS weights, and
  /// advances the beta schedule by one step. Throws if the buffer is empty.
  virtual void sample(int64_t batch_size, SampleBatch& out) = 0;
  /// p_i = (min(|td_i|, p_clip) + eps)^alpha for each (index, generation); last in batch wins.
  virtual UpdateResult update_priorities(const int32_t* indices, const uint32_t* generations,
                                         const float* td_errors, int64_t n) = 0;
  virtual int64_t size() const = 0;
  virtual int64_t capacity() const = 0;
  virtual int state_dim() const = 0;
  virtual double total_priority() const = 0;  ///< sum-tree root (sum of p^alpha over stored slots)
  virtual double max_priority() const = 0;    ///< running max in the |td| domain
  virtual double beta() const = 0;            ///< beta for the next sample()
  virtual int64_t sample_steps() const = 0;   ///< sample() calls so far (drives beta)
  virtual void set_sample_steps(int64_t steps) = 0; ///< for resume
  /// Copies the leaf priorities p^alpha of slots [0, size) into out (for tests and tools).
  virtual void leaf_priorities(double* out) const = 0;
  virtual std::string backend() const = 0;    ///< "cpu" or "cuda"
  /// Host memory held, in bytes (reported to V8 as external memory by the binding).
  virtual int64_t host_memory_bytes() const = 0;
};

/// The CPU reference implementation (binary sum tree and min tree, f64 sums). @throws
/// std::invalid_argument for an invalid config, std::out_of_range when the buffer cannot be
/// allocated (the message gives the size).
std::unique_ptr<Replay> MakeCpuReplay(const ReplayConfig& config);

}  // namespace dqn
