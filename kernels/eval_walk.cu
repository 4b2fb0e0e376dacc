// The device evaluation walk's step (see eval_walk_launch.cuh): one thread, one copy.
#include "kernels/env_copy_rng.cuh"
#include "kernels/eval_walk_launch.cuh"
#include "rules/act_rules.h"

namespace dqn::cuda::detail {
namespace {

__global__ void ClearKernel(EvalWalkState* state) { *state = EvalWalkState{}; }

__global__ void StepKernel(EvalWalkView w) {
  EvalWalkState st = *w.state;
  if (st.ended || st.steps >= w.max_steps) return;
  const TradingDevice& env = w.env;
  trading::CopyState c = env.copies[0];
  Rng rng = LoadCopyRng(env.rng, 0);
  EvalStepRecord rec;
  rec.action = rules::GreedyAction(w.a, w.v, w.n_actions);
  rec.prev_level = c.level;
  int32_t bars = st.bars;
  rec.step = trading::BookCopy(env.walk, env.params, c, rec.action, [&](double r) {
    if (bars < w.max_bars) w.bar_returns[bars] = r;
    ++bars;
  });
  uint8_t terminated, truncated;
  const bool ended =
      trading::FinishStep(env.walk, env.params, c, rng, rec.step, w.obs, rec.reward, terminated, truncated, w.final_obs);
  rec.bars_end = bars;
  w.records[st.steps] = rec;
  env.copies[0] = c;
  StoreCopyRng(env.rng, 0, rng);
  *w.state = {st.steps + 1, bars, ended ? 1 : 0};
}

}  // namespace

cudaError_t LaunchEvalWalkReset(const EvalWalkView& view, cudaStream_t stream) {
  if (view.env.n != 1) return cudaErrorInvalidValue;
  if (const cudaError_t e = LaunchTradingReset(view.env, view.obs, stream); e != cudaSuccess) return e;
  ClearKernel<<<1, 1, 0, stream>>>(view.state);
  return cudaGetLastError();
}

cudaError_t LaunchEvalWalkStep(const EvalWalkView& view, cudaStream_t stream) {
  StepKernel<<<1, 1, 0, stream>>>(view);
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
