// Validation of ReplayConfig, shared by every Replay backend so that all accept and refuse the
// same configurations with the same messages. Field names in messages are those of the replay
// section of the run config (common/config.ts).
#pragma once
#include <cstdint>

#include "replay/replay.h"

namespace dqn {

/// Largest capacity: slot and tree-node indices must fit int32 (2P - 1 < 2^31).
constexpr int64_t kMaxReplayCapacity = int64_t{1} << 30;

/// Throws std::invalid_argument naming the first invalid field, its value and the valid range:
/// capacity in [1, 2^30], state_dim >= 1, alpha and beta0 in [0, 1], beta_steps >= 1,
/// eps >= 0 and finite, p_clip > 0 and finite, rank_sort_interval >= 1.
void ValidateReplayConfig(const ReplayConfig& config);

/// Arguments of Replay::sample: throws std::invalid_argument unless batch_size is in
/// [1, 2^31 - 1] and every array of `out` is given. Shared by every Replay backend.
void ValidateSampleRequest(int64_t batch_size, const SampleBatch& out);

/// Arguments of Replay::update_priorities over a buffer of `size` stored slots: throws
/// std::invalid_argument for n < 0; for n > 0, unless the three arrays are given and every
/// index is in [0, size) (naming the first one outside, e.g. "indices[3] must be in [0, 100),
/// got 100"). n = 0 is valid with any arrays. Shared by every Replay backend.
void ValidateUpdateRequest(const int32_t* indices, const uint32_t* generations, const float* td_errors, int64_t n,
                           int64_t size);

/// PER leaf priority of a TD error magnitude: (min(|td|, p_clip) + eps)^alpha
/// (Schaul et al. 2016, sec. 3.3, proportional variant p_i = |delta_i| + eps, with a clip).
double LeafPriority(double abs_td, const ReplayConfig& config);

}  // namespace dqn
