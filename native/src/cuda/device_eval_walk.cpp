// A trading run's evaluation walk on the device (see device_eval_walk.h).
#include "cuda/device_eval_walk.h"

#include <stdexcept>
#include <string>

#include "cuda/carver.h"
#include "cuda/status.h"
#include "cuda/sync.h"

namespace dqn::cuda {
namespace {

EnvSpec OneCopy(EnvSpec spec, EnvRole role) {
  if (role == EnvRole::kTrain) throw std::invalid_argument("the GPU evaluation walk walks the validation or the test span, not training");
  spec.num_envs = 1;
  return spec;
}

}  // namespace

DeviceEvalWalk::DeviceEvalWalk(const EnvSpec& spec, EnvRole role, const NetConfig& net, bool simulate_oom)
    : env_(std::make_unique<DeviceTradingEnv>(OneCopy(spec, role), role)) {
  const TradingSetup& setup = env_->setup();
  const int d = env_->obs_dim(), a = env_->num_actions();
  if (net.state_dim != d || net.n_actions != a)
    throw std::invalid_argument("the GPU evaluation walk steps trading (" + std::to_string(d) + " observations, " + std::to_string(a) +
                                " actions); the network has " + std::to_string(net.state_dim) + " inputs and " +
                                std::to_string(net.n_actions) + " actions");
  baselines_ = SetupBaselines(setup);
  const trading::Plan& plan = setup.plan->view();
  detail::EvalWalkView& v = view_;
  v.env = env_->view();
  v.n_actions = a;
  v.max_steps = static_cast<int32_t>((plan.size - 1) / plan.interval + 1);
  v.max_bars = setup.plan->bars().back() + 1 - setup.plan->bars().front();
  const auto carve = [&](Carver& c) {
    v.obs = c.take<float>(d);
    v.final_obs = c.take<float>(d);
    act_.h.clear();
    for (const int width : net.hidden) act_.h.push_back(c.take<float>(width));
    act_.v = c.take<float>(1);
    act_.a = c.take<float>(a);
    v.records = c.take<detail::EvalStepRecord>(v.max_steps);
    v.bar_returns = c.take<double>(v.max_bars);
    v.state = c.take<detail::EvalWalkState>(1);
  };
  Carver measure(nullptr);
  carve(measure);
  size_t free_bytes = 0, total_bytes = 0;
  Check(cudaMemGetInfo(&free_bytes, &total_bytes), "reading free device memory");
  if (const cudaError_t err = simulate_oom ? cudaErrorMemoryAllocation : cudaMalloc(&block_, measure.used()); err != cudaSuccess) {
    cudaGetLastError();
    block_ = nullptr;
    throw CudaError(Status::kErrorOutOfMemory, err,
                    "out of memory: the GPU evaluation walk of " + std::to_string(v.max_steps) + " steps needs " + GiB(measure.used()) +
                        " GiB, " + GiB(free_bytes) + " GiB free");
  }
  Carver place(block_);
  carve(place);
  act_.x = v.obs;
  act_.rows = 1;
  v.v = net.dueling ? act_.v : nullptr;
  v.a = act_.a;
}

DeviceEvalWalk::~DeviceEvalWalk() {
  if (block_) {
    cudaDeviceSynchronize();  // no queued walk may still use the block
    cudaFree(block_);
    cudaGetLastError();
  }
}

DeviceEvalWalk::Result DeviceEvalWalk::run(CudaLearner& learner, cudaStream_t stream) {
  const detail::EvalWalkView& v = view_;
  Check(detail::LaunchEvalWalkReset(v, stream), "starting the GPU evaluation walk");
  for (int32_t j = 0; j < v.max_steps; ++j) {
    learner.queue_act_forward(act_, stream);
    Check(detail::LaunchEvalWalkStep(v, stream), "stepping the GPU evaluation walk");
  }
  // The record, read once (the epoch boundary's one wait for this walk).
  detail::EvalWalkState st;
  std::vector<detail::EvalStepRecord> records(static_cast<size_t>(v.max_steps));
  std::vector<double> bars(static_cast<size_t>(v.max_bars));
  Check(cudaMemcpyAsync(&st, v.state, sizeof st, cudaMemcpyDeviceToHost, stream), "reading the GPU evaluation walk");
  Check(cudaMemcpyAsync(records.data(), v.records, records.size() * sizeof(records[0]), cudaMemcpyDeviceToHost, stream),
        "reading the GPU evaluation walk's steps");
  Check(cudaMemcpyAsync(bars.data(), v.bar_returns, bars.size() * sizeof(double), cudaMemcpyDeviceToHost, stream),
        "reading the GPU evaluation walk's bar returns");
  Synchronize(stream, "reading the GPU evaluation walk");
  if (st.bars > v.max_bars || st.steps < 1 || !st.ended)
    throw std::runtime_error("the GPU evaluation walk booked " + std::to_string(st.bars) + " bars in " + std::to_string(st.steps) +
                             " steps (room for " + std::to_string(v.max_bars) + " bars, " + std::to_string(v.max_steps) + " steps)" +
                             (st.ended ? "" : " and did not end"));
  // The ledger as the host's evaluation env adds it up, step by step (trading_env.cpp's step).
  Result out;
  const trading::Params& p = setup().params;
  for (int32_t j = 0; j < st.steps; ++j) {
    const detail::EvalStepRecord& r = records[static_cast<size_t>(j)];
    const size_t first = out.ledger.bar_returns.size();
    out.ledger.bar_returns.insert(out.ledger.bar_returns.end(), bars.begin() + static_cast<std::ptrdiff_t>(first), bars.begin() + r.bars_end);
    out.ledger.Add(r.step.booking, r.step.order, first, trading::Position(p, r.step.to.level), r.step.to.level != r.prev_level);
    out.actions.push_back(r.action);
    out.rewards.push_back(r.reward);
    out.ret += r.reward;
  }
  out.report = ReportWalk(out.ledger, setup(), baselines_);
  return out;
}

}  // namespace dqn::cuda
