// MakeEnv: the environment factory (see make_env.h).
#include "env/make_env.h"

#include <stdexcept>

#include "env/cartpole.h"
#include "env/trading_env.h"

namespace dqn {

std::unique_ptr<VecEnv> MakeEnv(const EnvSpec& spec, EnvRole role) {
  if (spec.kind == "cartpole") {
    const bool eval = role != EnvRole::kTrain;
    // The evaluation copies draw their resets from a stream of their own.
    const uint64_t seed = eval ? spec.seed ^ 0x5eed'e7a1'0000'0001ULL : spec.seed;
    return std::make_unique<CartPoleVecEnv>(spec.num_envs, seed, spec.max_episode_steps);
  }
  if (spec.kind == "trading") return MakeTradingEnv(spec, role);
  throw std::invalid_argument("unknown env kind '" + spec.kind + "' (expected 'cartpole' or 'trading')");
}

}  // namespace dqn
