// Standalone checker and benchmark of the CUDA learner (native/src/cuda/cuda_learner.*), built by
// `make learner_cuda_tool` (CMake target, not built by default) and run on a GPU machine:
//   learner_cuda_tool check    the CPU reference (train/cpu_learner.*) against the GPU, tensor by
//                              tensor, on fresh random batches: one step at batch 32, 256 and
//                              1024 for two network shapes in FP32, TF32 and BF16; 100 steps in a
//                              row (max target and Double DQN); the zero-sync property of train(); NaN halts; checkpoint
//                              round trips; seed groups whose members equal their seeds alone,
//                              bit for bit. Exit status 1 on any failure. DQN_CHECK_SMALL=1 runs
//                              a smaller set (for compute-sanitizer).
//   learner_cuda_tool bench    training steps per second of the reference network (51 -> 256 ->
//                              256 -> 45, dueling) with the GPU replay at capacity 1e6: batch
//                              256 and 1024, TF32 / BF16 / FP32, eager and graph-replayed (1 and
//                              16 steps per launch); JSON lines and a table.
//   learner_cuda_tool group-bench  aggregate steps per second of seed groups of 1 to 16 learners
//                              stepped by one launch (CudaLearnerGroup), beside a lone learner.
//   learner_cuda_tool epoch    GPU idle fraction inside an epoch of the full loop (host acting and
//                              inserts between the training steps, as the trainer does them).
//   learner_cuda_tool profile  where a step's time goes in an eager step: CUDA events around the
//                              sample, the learner kernel and the update; the global timer at
//                              each of the kernel's phase barriers (forward, loss, backward,
//                              optimizer) and its launch and drain outside them.
//   learner_cuda_tool group-profile  the same for seed groups of 1 to 16 learners (one launch).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_learner.h"
#include "cuda/cuda_learner_group.h"
#include "native/test/cuda/tool.h"
#include "native/test/cuda/tool_learner.h"
#include "cuda/cuda_replay.h"
#include "cuda/sync.h"
#include "model/param_layout.h"
#include "replay/replay.h"
#include "rules/step_rules.h"
#include "train/adam.h"
#include "train/cpu_learner.h"

using dqn::cuda::CudaLearner;

namespace {

const char* Name(dqn::Precision p) {
  return p == dqn::Precision::kFP32 ? "fp32" : p == dqn::Precision::kTF32 ? "tf32" : "bf16";
}

/// Bound on ||gpu - cpu|| / ||cpu|| per tensor for each precision (issue 18's tolerances).
double Tolerance(dqn::Precision p) {
  return p == dqn::Precision::kFP32 ? 1e-5 : p == dqn::Precision::kTF32 ? 2e-3 : 2e-2;
}

double RelDiff(const float* a, const float* ref, int64_t n) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(a[i]) - ref[i];
    if (!std::isfinite(a[i])) return INFINITY;
    num += d * d;
    den += static_cast<double>(ref[i]) * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// A random batch in host memory (fresh values for every check).
struct HostBatch {
  HostBatch(int64_t b, int d, int a, std::mt19937_64& rng) : buffers(b, d) {
    std::normal_distribution<float> normal(0.f, 1.f);
    std::uniform_real_distribution<float> uni(0.f, 1.f);
    for (float& x : buffers.states) x = normal(rng);
    for (float& x : buffers.next_states) x = normal(rng);
    for (int64_t i = 0; i < b; ++i) {
      buffers.indices[i] = static_cast<int32_t>(i);
      buffers.generations[i] = 1;
      buffers.weights[i] = 0.1f + 0.9f * uni(rng);
      buffers.actions[i] = static_cast<int32_t>(rng() % static_cast<uint64_t>(a));
      buffers.rewards[i] = normal(rng);
      buffers.dones[i] = uni(rng) < 0.1f;
      buffers.discounts[i] = buffers.dones[i] ? 0.f : 0.99f;
    }
  }
  dqn::SampleBuffers buffers;
};

/// Named tensors of the layout: (name, offset, length).
struct Tensor {
  std::string name;
  int64_t offset, length;
};
std::vector<Tensor> Tensors(const dqn::ParamLayout& l) {
  std::vector<Tensor> out;
  const auto add = [&](const std::string& name, const dqn::DenseSlot& s) {
    out.push_back({name + ".W", s.w, static_cast<int64_t>(s.in) * s.out});
    out.push_back({name + ".b", s.b, s.out});
  };
  for (size_t i = 0; i < l.trunk().size(); ++i) add("trunk" + std::to_string(i), l.trunk()[i]);
  if (l.config().dueling) add("value", l.value());
  add(l.config().dueling ? "advantage" : "q", l.advantage());
  return out;
}

double WorstTensor(const dqn::ParamLayout& l, const float* gpu, const float* cpu, std::string* which) {
  double worst = 0;
  for (const Tensor& t : Tensors(l)) {
    const double r = RelDiff(gpu + t.offset, cpu + t.offset, t.length);
    if (r > worst) worst = r, *which = t.name;
  }
  return worst;
}

std::vector<dqn::FeatureGroup> Features(int d) {
  std::vector<dqn::FeatureGroup> f;
  for (int i = 0; i < d; ++i) f.push_back({"obs[" + std::to_string(i) + "]", {i}});
  return f;
}

/// The GPU's optimizer step replayed on the host from the GPU's own gradient g (the global norm as
/// the GPU reported it, the same rules: clip, Adam, Polyak): the largest relative difference of
/// the GPU's weights, moments and target after step t from the replay's; *exact when they agree
/// bit for bit. `before` is the state the step started from.
double ReplayOptimizer(const dqn::LearnerConfig& config, int64_t t, const dqn::LearnerTensors& before, const std::vector<float>& g,
                       double grad_norm, const dqn::LearnerTensors& after, bool* exact) {
  const auto n = static_cast<int64_t>(g.size());
  dqn::LearnerTensors want = before;
  dqn::AdamConfig adam = config.adam;
  adam.lr = dqn::rules::LearningRateAt(adam.lr, config.lr_end, config.lr_decay_steps, t);
  const auto scale = static_cast<float>(dqn::rules::ClipCoefficient(grad_norm, config.grad_clip));
  dqn::AdamUpdate(adam, t, scale, g.data(), want.online.data(), want.adam_m.data(), want.adam_v.data(), n);
  for (int64_t i = 0; i < n; ++i) want.target[i] = dqn::rules::Polyak(want.target[i], want.online[i], static_cast<float>(config.tau));
  *exact = after.online == want.online && after.adam_m == want.adam_m && after.adam_v == want.adam_v && after.target == want.target;
  return std::max({RelDiff(after.online.data(), want.online.data(), n), RelDiff(after.adam_m.data(), want.adam_m.data(), n),
                   RelDiff(after.adam_v.data(), want.adam_v.data(), n), RelDiff(after.target.data(), want.target.data(), n)});
}

/// The discrete decisions of one step where the GPU and the reference (from the same state)
/// differ: ReLU masks of the online pass and bootstrap targets (argmax ties).
struct Decisions {
  int flips_s = 0;        ///< mask differences in the rows of s (they change the backward pass)
  int flips_next = 0;     ///< mask differences in the rows of s' (they change only Q(s'))
  double margin = 0;      ///< largest |activation| at a differing mask, over its layer's RMS
  int departed_rows = 0;  ///< transitions whose TD error differs beyond the bound (a different a*)
};

/// Compares the GPU's online activations and TD errors of the last step with the reference's.
Decisions CompareDecisions(const CudaLearner& gpu, const dqn::CpuLearner& ref, const std::vector<float>& td_gpu,
                           const std::vector<float>& td_ref, int64_t batch, double tol) {
  Decisions d;
  const std::vector<std::vector<float>> h = gpu.online_hidden();
  for (size_t l = 0; l < h.size(); ++l) {
    const float* r = ref.online_hidden(l);
    const int64_t n = static_cast<int64_t>(h[l].size()), half = n / 2;
    double sq = 0;
    for (int64_t i = 0; i < n; ++i) sq += static_cast<double>(r[i]) * r[i];
    const double rms = std::sqrt(sq / static_cast<double>(n));
    for (int64_t i = 0; i < n; ++i) {
      if ((h[l][i] > 0) == (r[i] > 0)) continue;
      (i < half ? d.flips_s : d.flips_next) += 1;
      d.margin = std::max(d.margin, std::max<double>(h[l][i], r[i]) / rms);
    }
  }
  double scale = 0;
  for (float x : td_ref) scale += static_cast<double>(x) * x;
  scale = std::sqrt(scale / static_cast<double>(batch));
  for (int64_t i = 0; i < batch; ++i) d.departed_rows += std::fabs(td_gpu[i] - td_ref[i]) > tol * scale;
  return d;
}

/// One step from identical weights on an identical batch: loss, TD errors and the gradient norm
/// within the precision's bound; every gradient tensor within it when the step's decisions agree
/// (else, as in CheckManySteps, every differing ReLU mask within the bound of its boundary and at
/// most one departed target: run L29 met a TF32 first-layer mask at its boundary, trunk0.W 8.7e-3
/// apart while the loss, TD errors and norm agreed to 1.4e-6); and the optimizer step replayed
/// from the GPU's gradient (ReplayOptimizer) within 1e-6. The updated weights are compared with the
/// reference's only in the report: Adam moves a weight whose gradient element is near 0 by up to
/// about lr whatever the element's size, so a rounding-level difference there moves it visibly
/// (run L27: fp32 B = 1024 trunk1.b 8.3e-4 apart while every gradient tensor agreed to 4.9e-7).
void CheckOneStep(const dqn::NetConfig& net, int64_t batch, dqn::Precision precision, std::mt19937_64& rng) {
  const dqn::LearnerConfig config = MakeConfig(batch, precision);
  const uint64_t seed = rng();
  dqn::CpuLearner cpu(net, config, seed, Features(net.state_dim));
  CudaLearner gpu(net, config, seed, Features(net.state_dim));
  HostBatch hb(batch, net.state_dim, net.n_actions, rng);
  dqn::SampleBatch s = hb.buffers.view();
  std::vector<float> td_cpu(batch), td_gpu(batch);
  dqn::ScalarBlock sc_cpu;
  dqn::LearnerTensors before;
  gpu.save_params(before);
  const uint32_t f_cpu = cpu.step(s, td_cpu.data(), sc_cpu);
  const uint32_t f_gpu = gpu.step_on_batch(s, td_gpu.data());
  const dqn::ScalarBlock& sc_gpu = *gpu.host_block();
  const double tol = Tolerance(precision);
  const std::string tag = std::string(Name(precision)) + " B=" + std::to_string(batch) + " D=" + std::to_string(net.state_dim) +
                          " H=" + std::to_string(net.hidden[0]) + "x" + std::to_string(net.hidden.size()) + " A=" +
                          std::to_string(net.n_actions) + (net.dueling ? " dueling" : " plain");
  EXPECT(f_cpu == 0 && f_gpu == 0, "%s: flags cpu %u gpu %u", tag.c_str(), f_cpu, f_gpu);
  const double loss_rel = std::fabs(sc_gpu.loss - sc_cpu.loss) / std::max(1e-30, std::fabs(sc_cpu.loss));
  const double td_rel = RelDiff(td_gpu.data(), td_cpu.data(), batch);
  std::string g_which, w_which, t_which;
  const std::vector<float> g_gpu = gpu.gradients();
  const double g_rel = WorstTensor(gpu.layout(), g_gpu.data(), cpu.gradients().data(), &g_which);
  dqn::LearnerTensors p_gpu;
  gpu.save_params(p_gpu);
  const double w_rel = WorstTensor(gpu.layout(), p_gpu.online.data(), cpu.online().data(), &w_which);
  const double t_rel = WorstTensor(gpu.layout(), p_gpu.target.data(), cpu.target().data(), &t_which);
  const double norm_rel = std::fabs(sc_gpu.grad_norm - sc_cpu.grad_norm) / sc_cpu.grad_norm;
  const double q_rel = std::fabs(sc_gpu.q_mean - sc_cpu.q_mean) / std::max(1e-12, std::fabs(sc_cpu.q_mean));
  bool exact = false;
  const double opt_rel = ReplayOptimizer(config, 1, before, g_gpu, sc_gpu.grad_norm, p_gpu, &exact);
  const Decisions d = CompareDecisions(gpu, cpu, td_gpu, td_cpu, batch, tol);
  const bool boundary = d.flips_s > 0 || d.departed_rows > 0;
  char decided[160] = "";
  if (boundary)
    std::snprintf(decided, sizeof decided, " at a decision boundary (%d mask(s) in s, margin %.1e; %d departed row(s)): gradient not checked",
                  d.flips_s, d.margin, d.departed_rows);
  std::printf("one step %-44s loss %.2e td %.2e grad %.2e (%s)%s norm %.2e q_mean %.2e optimizer replay %.2e%s; vs the "
              "reference's step (not checked): weights %.2e (%s) target %.2e\n",
              tag.c_str(), loss_rel, td_rel, g_rel, g_which.c_str(), decided, norm_rel, q_rel, opt_rel, exact ? " (bit-identical)" : "",
              w_rel, w_which.c_str(), t_rel);
  EXPECT(loss_rel <= tol, "%s: loss %.17g vs %.17g", tag.c_str(), sc_gpu.loss, sc_cpu.loss);
  EXPECT(d.margin <= tol, "%s: a ReLU mask differs %.3g x its layer's RMS away from its boundary", tag.c_str(), d.margin);
  EXPECT(d.departed_rows <= 1, "%s: %d transitions' targets differ (more than one argmax tie)", tag.c_str(), d.departed_rows);
  EXPECT(boundary || td_rel <= tol, "%s: td rel %.3g", tag.c_str(), td_rel);
  EXPECT(boundary || g_rel <= tol, "%s: gradient %s rel %.3g", tag.c_str(), g_which.c_str(), g_rel);
  EXPECT(opt_rel <= 1e-6, "%s: the optimizer step replayed from the GPU's gradient is %.3g off", tag.c_str(), opt_rel);
  EXPECT(norm_rel <= tol, "%s: grad norm %.17g vs %.17g", tag.c_str(), sc_gpu.grad_norm, sc_cpu.grad_norm);
  EXPECT(sc_gpu.step == 1 && sc_gpu.sum_steps == 1, "%s: step %lld sum_steps %lld", tag.c_str(),
         static_cast<long long>(sc_gpu.step), static_cast<long long>(sc_gpu.sum_steps));
}

/// 100 steps in a row from the same start on fresh batches, checked along the GPU's own
/// trajectory (issue 27): before every step a shadow CPU learner takes the GPU's whole state
/// (weights, target, Adam moments, step count) and makes the same step. Then
///   1. the discrete decisions of the step (ReLU masks, each transition's bootstrap action) agree,
///      except where a value lies within the precision's bound of its boundary: every differing
///      mask's activation is within the bound of 0 (relative to its layer's RMS) and at most one
///      transition's target jumps (a near-tie of two Q-values);
///   2. in every step whose decisions all agree (on the rows the backward pass reads, and every
///      target), the whole gradient (one relative error over all parameters) and the loss match
///      the reference's within the bound; steps at a decision boundary are counted, at most 10;
///   3. the GPU's optimizer step, replayed on the host from the GPU's own gradient with the same
///      rules (rules/step_rules.h: clip, Adam, Polyak), gives the GPU's weights, moments and
///      target to 1e-6 (run L25: bit for bit in every step of 120 curves);
///   4. a second GPU learner making the same steps ends bit for bit where the first did.
/// Why not simpler (runs L24-L25 on the H200, 85 runs): the free-running curves (CPU and GPU
/// each on their own weights) part chaotically over 100 steps while every step is right (13 of
/// 65 runs beyond the old bound; the old check's flake), so they are reported, not checked.
/// Comparing the weights after a step from the same state fails on Adam's sign sensitivity (a
/// gradient element near 0 moves its weight by about +-lr: trunk0.b 12.5 % apart), and comparing
/// per-tensor gradients fails on one-element tensors whose sum cancels (value.b, up to 3e-4 in
/// FP32) and on ReLU masks at their boundary (TF32 trunk0.W up to 2e-2) in most runs.
void CheckManySteps(const dqn::NetConfig& net, int64_t batch, dqn::Precision precision, int steps, bool double_dqn,
                    std::mt19937_64& rng) {
  dqn::LearnerConfig config = MakeConfig(batch, precision);
  config.double_dqn = double_dqn;
  const uint64_t seed = rng();
  dqn::CpuLearner cpu(net, config, seed, Features(net.state_dim));
  dqn::CpuLearner shadow(net, config, seed, Features(net.state_dim));
  CudaLearner gpu(net, config, seed, Features(net.state_dim));
  CudaLearner again(net, config, seed, Features(net.state_dim));
  const int64_t n = gpu.layout().size();
  std::vector<float> td_cpu(batch), td_gpu(batch), td_shadow(batch), td_again(batch);
  const double tol = Tolerance(precision);
  double free_worst = 0, grad_worst = 0, loss_worst = 0, opt_worst = 0, margin_worst = 0;
  int free_step = 0, grad_step = 0, loss_step = 0, opt_step = 0, opt_exact = 0, boundary_steps = 0, rows_worst = 0, rows_step = 0;
  dqn::LearnerTensors before, after;
  for (int t = 1; t <= steps; ++t) {
    HostBatch hb(batch, net.state_dim, net.n_actions, rng);
    dqn::SampleBatch s = hb.buffers.view();
    dqn::ScalarBlock sc_cpu, sc_shadow;
    gpu.save_params(before);
    shadow.load_params(before);
    shadow.set_steps(t - 1);
    shadow.step(s, td_shadow.data(), sc_shadow);
    cpu.step(s, td_cpu.data(), sc_cpu);
    gpu.step_on_batch(s, td_gpu.data());
    again.step_on_batch(s, td_again.data());
    gpu.save_params(after);
    const dqn::ScalarBlock& sc_gpu = *gpu.host_block();
    // 1. Decisions.
    const Decisions d = CompareDecisions(gpu, shadow, td_gpu, td_shadow, batch, tol);
    margin_worst = std::max(margin_worst, d.margin);
    if (d.departed_rows > rows_worst) rows_worst = d.departed_rows, rows_step = t;
    // 2. Gradient and loss where the decisions agree.
    const std::vector<float> g = gpu.gradients();
    if (d.flips_s > 0 || d.departed_rows > 0) {
      ++boundary_steps;
    } else {
      const double g_rel = RelDiff(g.data(), shadow.gradients().data(), n);
      if (g_rel > grad_worst) grad_worst = g_rel, grad_step = t;
      const double l_rel = std::fabs(sc_gpu.loss - sc_shadow.loss) / std::max(1e-30, std::fabs(sc_shadow.loss));
      if (l_rel > loss_worst) loss_worst = l_rel, loss_step = t;
    }
    // 3. The optimizer step replayed from the GPU's own gradient.
    bool exact = false;
    const double o_rel = ReplayOptimizer(config, t, before, g, sc_gpu.grad_norm, after, &exact);
    opt_exact += exact;
    if (o_rel > opt_worst) opt_worst = o_rel, opt_step = t;
    // Free-running: reported only.
    const double rel = std::fabs(sc_gpu.loss - sc_cpu.loss) / std::max(1e-30, std::fabs(sc_cpu.loss));
    if (rel > free_worst) free_worst = rel, free_step = t;
  }
  dqn::LearnerTensors p, q;
  gpu.save_params(p);
  again.save_params(q);
  const bool repeat = p.online == q.online && p.target == q.target && p.adam_m == q.adam_m && p.adam_v == q.adam_v;
  std::string which;
  const double w_rel = WorstTensor(gpu.layout(), p.online.data(), cpu.online().data(), &which);
  const char* tag = Name(precision);
  std::printf("%d steps %s B=%lld %s: from the GPU's state: gradient %.2e (step %d), loss %.2e (step %d), %d step(s) at a decision "
              "boundary (worst mask margin %.1e, most departed rows %d at step %d); optimizer replay %.2e (step %d), bit-identical "
              "in %d of %d steps; GPU rerun %s\n",
              steps, tag, static_cast<long long>(batch), double_dqn ? "double" : "max", grad_worst, grad_step, loss_worst, loss_step,
              boundary_steps, margin_worst, rows_worst, rows_step, opt_worst, opt_step, opt_exact, steps, repeat ? "bit-identical" : "DIFFERS");
  std::printf("  free-running (not checked): worst loss rel %.2e (step %d), weights after %.2e (%s)\n", free_worst, free_step, w_rel,
              which.c_str());
  EXPECT(margin_worst <= tol, "%s: a ReLU mask differs %.3g x its layer's RMS away from its boundary", tag, margin_worst);
  EXPECT(rows_worst <= 1, "%s: %d transitions' targets differ at step %d (more than one argmax tie)", tag, rows_worst, rows_step);
  EXPECT(boundary_steps <= 10, "%s: %d of %d steps at a decision boundary", tag, boundary_steps, steps);
  EXPECT(grad_worst <= tol, "%s: gradient from the GPU's state %.3g at step %d", tag, grad_worst, grad_step);
  EXPECT(loss_worst <= tol, "%s: loss from the GPU's state %.3g at step %d", tag, loss_worst, loss_step);
  EXPECT(opt_worst <= 1e-6, "%s: the optimizer step replayed from the GPU's gradient is %.3g off at step %d", tag, opt_worst, opt_step);
  EXPECT(repeat, "%s: a second GPU run of the same steps did not repeat bit for bit", tag);
}

/// A replay on the GPU filled with `n` random transitions.
std::unique_ptr<dqn::cuda::CudaReplay> FilledReplay(int64_t capacity, int64_t n, int d, int a, std::mt19937_64& rng) {
  dqn::ReplayConfig rc;
  rc.capacity = capacity;
  rc.state_dim = d;
  rc.seed = rng();
  auto r = std::make_unique<dqn::cuda::CudaReplay>(rc, dqn::cuda::CudaReplayOptions{});
  for (int64_t done = 0; done < n;) {
    const int64_t chunk = std::min<int64_t>(n - done, 65536);
    HostBatch hb(chunk, d, a, rng);
    dqn::TransitionBatch t{hb.buffers.states.data(), hb.buffers.actions.data(),   hb.buffers.rewards.data(),
                           hb.buffers.next_states.data(), hb.buffers.dones.data(), hb.buffers.discounts.data(), chunk};
    r->insert(t);
    done += chunk;
  }
  r->synchronize();
  return r;
}

/// train() with a GPU replay queues steps without one host synchronization; a NaN injected at a
/// step halts exactly there; a checkpoint round trip restores the bits.
void CheckTrainLoop(std::mt19937_64& rng) {
  const dqn::NetConfig net{8, 4, {64, 64}, true, {}};
  dqn::LearnerConfig config = MakeConfig(64, dqn::Precision::kTF32);
  config.q_stats_interval = 10;
  config.causal_interval = 100;
  auto replay = FilledReplay(4096, 4096, net.state_dim, net.n_actions, rng);
  CudaLearner gpu(net, config, 7, Features(net.state_dim));
  dqn::ScalarBlock out;
  for (int i = 0; i < 10; ++i) gpu.train(*replay, out);  // eager first step, graph capture, probe graph
  gpu.finish(out);
  const int64_t steps = std::getenv("DQN_CHECK_SMALL") ? 100 : 1000, total = 10 + steps;
  const int64_t before = dqn::cuda::SyncCount();
  for (int64_t i = 0; i < steps; ++i) gpu.train(*replay, out);
  const int64_t during = dqn::cuda::SyncCount() - before;
  const uint32_t flags = gpu.finish(out);
  std::printf("train loop: %lld host syncs in %lld steps (then 1 at finish); step %lld, loss %.4g, q_stats_step %lld, causal_step %lld, sum_steps %lld\n",
              static_cast<long long>(during), static_cast<long long>(steps), static_cast<long long>(out.step), out.loss,
              static_cast<long long>(out.q_stats_step), static_cast<long long>(out.causal_step),
              static_cast<long long>(out.sum_steps));
  EXPECT(during == 0, "%lld host syncs in %lld training steps", static_cast<long long>(during), static_cast<long long>(steps));
  EXPECT(flags == 0 && out.step == total && out.sum_steps == total, "step %lld", static_cast<long long>(out.step));
  EXPECT(out.q_stats_step == total && out.causal_step == total / 100 * 100, "probes at %lld / %lld", static_cast<long long>(out.q_stats_step),
         static_cast<long long>(out.causal_step));
  EXPECT(out.causal_features == 8 && out.causal_sensitivity > 0, "causal %d %.3g", out.causal_features, out.causal_sensitivity);
  EXPECT(std::isfinite(out.loss) && out.loss_sum > 0 && out.per_total > 0 && out.beta > 0.4, "loss %.3g per_total %.3g beta %.3g",
         out.loss, out.per_total, out.beta);

  // NaN in each checked tensor halts at the injected step and changes no parameter from then on.
  const uint32_t kFlags[] = {dqn::kNanQOnline, dqn::kNanQTarget, dqn::kNanLoss, dqn::kNanGradients, dqn::kNanWeights};
  for (uint32_t flag : kFlags) {
    CudaLearner l(net, config, 11, Features(net.state_dim));
    l.inject_nan(flag, 5);
    dqn::ScalarBlock s;
    for (int i = 0; i < 20; ++i) l.train(*replay, s);
    const uint32_t got = l.finish(s);
    dqn::LearnerTensors a, b;
    l.save_params(a);
    l.train(*replay, s);
    l.finish(s);
    l.save_params(b);
    // Bit for bit (the weights may hold the NaN itself, which compares unequal as a float).
    const bool frozen = std::memcmp(a.online.data(), b.online.data(), a.online.size() * sizeof(float)) == 0 &&
                        std::memcmp(a.adam_m.data(), b.adam_m.data(), a.adam_m.size() * sizeof(float)) == 0;
    EXPECT(got == flag && s.step == 4 && frozen, "flag %u: got %u, step %lld, frozen %d", flag, got,
           static_cast<long long>(s.step), frozen);
  }

  // Checkpoint round trip: CPU <-> GPU parameters, bit for bit.
  dqn::LearnerTensors saved;
  gpu.save_params(saved);
  dqn::CpuLearner cpu(net, config, 99, Features(net.state_dim));
  cpu.load_params(saved);
  dqn::LearnerTensors back;
  cpu.save_params(back);
  CudaLearner gpu2(net, config, 5, Features(net.state_dim));
  gpu2.load_params(back);
  dqn::LearnerTensors again;
  gpu2.save_params(again);
  EXPECT(again.online == saved.online && again.adam_v == saved.adam_v, "checkpoint round trip changed the weights");
}

/// Every bit of a learner's state and of its last step's scalars that training decides: weights,
/// target, Adam moments, step, loss, TD mean square, gradient norm, PER total.
struct LearnerBits {
  dqn::LearnerTensors t;
  dqn::ScalarBlock sc;
  bool operator==(const LearnerBits& o) const {
    const auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
      return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
    };
    const auto same_d = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
    return same(t.online, o.t.online) && same(t.target, o.t.target) && same(t.adam_m, o.t.adam_m) &&
           same(t.adam_v, o.t.adam_v) && sc.step == o.sc.step && same_d(sc.loss, o.sc.loss) &&
           same_d(sc.td_mse, o.sc.td_mse) && same_d(sc.grad_norm, o.sc.grad_norm) && same_d(sc.per_total, o.sc.per_total);
  }
};

LearnerBits BitsOf(CudaLearner& l) {
  LearnerBits b;
  l.save_params(b.t);
  b.sc = *l.host_block();
  return b;
}

/// A seed group trains each member bit for bit as that seed trains alone (issue 27 item 4): a
/// group of n members (seeds 100 + s, each on its own replay) runs `launches` launches with
/// inserts between them; then
/// every member is compared with a lone CudaLearner of its seed trained on a replay filled and
/// seeded the same way.
void CheckGroup(const dqn::NetConfig& net, dqn::LearnerConfig config, int n, int launches) {
  char tag[128];
  std::snprintf(tag, sizeof tag, "group of %d, %s B=%lld H=%dx%zu %s, %d step(s) per launch", n, Name(config.precision),
                static_cast<long long>(config.batch_size), net.hidden.empty() ? 0 : net.hidden[0], net.hidden.size(),
                config.target_update == dqn::TargetUpdate::kHard ? "hard target" : "Polyak", config.steps_per_launch);
  const auto replay_of = [&](int s) {
    std::mt19937_64 r(1000 + static_cast<uint64_t>(s));
    return FilledReplay(8192, 8192, net.state_dim, net.n_actions, r);
  };
  std::vector<std::unique_ptr<dqn::cuda::CudaReplay>> replays;
  std::vector<dqn::cuda::CudaReplay*> views;
  std::vector<uint64_t> seeds;
  for (int s = 0; s < n; ++s) {
    replays.push_back(replay_of(s));
    views.push_back(replays.back().get());
    seeds.push_back(100 + static_cast<uint64_t>(s));
  }
  // Between launches each member inserts fresh transitions, as a trainer does (the same ones
  // for the seed alone): the group's step must come after them and the next inserts after it.
  const auto insert = [&](CudaLearner& l, dqn::Replay& r, int s, int i) {
    std::mt19937_64 g(7919 * static_cast<uint64_t>(s) + static_cast<uint64_t>(i));
    HostBatch hb(64, net.state_dim, net.n_actions, g);
    const dqn::SampleBuffers& b = hb.buffers;
    l.insert(r, dqn::TransitionBatch{b.states.data(), b.actions.data(), b.rewards.data(), b.next_states.data(), b.dones.data(),
                                     b.discounts.data(), 64});
  };
  dqn::cuda::CudaLearnerGroup group(net, config, seeds, Features(net.state_dim));
  for (int i = 0; i < launches; ++i) {
    group.train(views);
    for (int s = 0; s < n; ++s) insert(group.member(s), *views[static_cast<size_t>(s)], s, i);
  }
  EXPECT(group.finish() == 0, "%s: NaN flags", tag);
  int same = 0, moved = 0;
  for (int s = 0; s < n; ++s) {
    auto replay = replay_of(s);
    CudaLearner alone(net, config, seeds[static_cast<size_t>(s)], Features(net.state_dim));
    dqn::ScalarBlock out;
    for (int i = 0; i < launches; ++i) {
      alone.train(*replay, out);
      insert(alone, *replay, s, i);
    }
    alone.finish(out);
    const LearnerBits a = BitsOf(alone), g = BitsOf(group.member(s));
    same += a == g;
    moved += g.sc.step == static_cast<int64_t>(launches) * config.steps_per_launch && g.sc.loss > 0;
  }
  std::printf("%-60s members equal to their seed alone: %d of %d; trained: %d\n", tag, same, n, moved);
  EXPECT(same == n && moved == n, "%s: %d of %d members equal their seed alone bit for bit, %d trained", tag, same, n, moved);
}

/// Seed groups of 2 to 16 members, both network shapes, three precisions, Polyak and hard target
/// updates, 1 and 4 steps per launch (DQN_CHECK_SMALL: fewer steps, for the sanitizers).
void CheckGroups(bool small_run) {
  const dqn::NetConfig reference{51, 45, {256, 256}, true, {}}, small{7, 3, {96, 40, 72}, false, {}};
  const int launches = small_run ? 3 : 20;
  dqn::LearnerConfig c = MakeConfig(256, dqn::Precision::kTF32);
  c.q_stats_interval = 10;
  CheckGroup(reference, c, 4, launches);
  c.target_update = dqn::TargetUpdate::kHard;
  c.target_interval = 8;
  c.steps_per_launch = 4;
  CheckGroup(reference, c, 3, launches / 2);
  dqn::LearnerConfig f = MakeConfig(32, dqn::Precision::kFP32);
  f.double_dqn = false;
  CheckGroup(small, f, dqn::cuda::detail::kMaxGroup, launches);
  CheckGroup(small, MakeConfig(64, dqn::Precision::kBF16), 2, launches);
}

int Check() {
  // DQN_CHECK_SEED repeats a run's random inputs; DQN_CHECK_ONLY=curves runs only the 100-step curves.
  const char* seed_env = std::getenv("DQN_CHECK_SEED");
  const uint64_t check_seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : std::random_device{}();
  std::printf("check seed %llu\n", static_cast<unsigned long long>(check_seed));
  std::mt19937_64 rng(check_seed);
  const bool small = std::getenv("DQN_CHECK_SMALL") != nullptr;
  const char* only = std::getenv("DQN_CHECK_ONLY");
  const bool curves_only = only && std::strcmp(only, "curves") == 0;
  // wide: a trunk output wider than the head phase's feature chunk and more actions than a
  // lane holds (the head's second column group, read back from memory).
  const dqn::NetConfig reference{51, 45, {256, 256}, true, {}}, other{7, 3, {96, 40, 72}, false, {}}, wide{12, 70, {40, 300}, true, {}};
  const dqn::Precision kPrecisions[] = {dqn::Precision::kFP32, dqn::Precision::kTF32, dqn::Precision::kBF16};
  for (dqn::Precision p : kPrecisions)
    for (int64_t b : small ? std::vector<int64_t>{32} : curves_only ? std::vector<int64_t>{} : std::vector<int64_t>{32, 256, 1024}) {
      CheckOneStep(reference, b, p, rng);
      CheckOneStep(other, b, p, rng);
      CheckOneStep(wide, b, p, rng);
    }
  for (bool double_dqn : {false, true})
    for (dqn::Precision p : kPrecisions) CheckManySteps(reference, 256, p, small ? 5 : 100, double_dqn, rng);
  if (!curves_only) CheckTrainLoop(rng);
  if (!curves_only) CheckGroups(small);
  std::printf(g_failures ? "CHECK FAILED: %d failures\n" : "CHECK PASSED\n", g_failures);
  return g_failures ? 1 : 0;
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int Bench() {
  std::mt19937_64 rng(1);
  const dqn::NetConfig net{51, 45, {256, 256}, true, {}};
  const int iters = std::getenv("DQN_BENCH_ITERS") ? std::atoi(std::getenv("DQN_BENCH_ITERS")) : 2000;
  auto replay = FilledReplay(1000000, 1000000, net.state_dim, net.n_actions, rng);
  std::printf("%-6s %-5s %-10s %12s %12s\n", "batch", "prec", "mode", "us/step", "steps/s");
  for (int64_t batch : {256, 1024})
    for (dqn::Precision p : {dqn::Precision::kTF32, dqn::Precision::kBF16, dqn::Precision::kFP32})
      for (int mode = 0; mode < 3; ++mode) {
        dqn::LearnerConfig c = MakeConfig(batch, p);
        c.q_stats_interval = 100;
        c.causal_interval = 1000000;
        c.target_update = dqn::TargetUpdate::kHard;
        c.steps_per_launch = mode == 2 ? 16 : 1;
        CudaLearner l(net, c, 3, {});
        l.set_use_graphs(mode != 0);
        dqn::ScalarBlock out;
        const int launches = mode == 2 ? iters / 16 : iters;
        for (int i = 0; i < std::max(3, launches / 10); ++i) l.train(*replay, out);
        l.finish(out);
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < launches; ++i) l.train(*replay, out);
        l.finish(out);
        const double s = SecondsSince(t0);
        const double steps = static_cast<double>(launches) * c.steps_per_launch;
        const char* mode_name = mode == 0 ? "eager" : mode == 1 ? "graph" : "graph x16";
        std::printf("%-6lld %-5s %-10s %12.2f %12.0f\n", static_cast<long long>(batch), Name(p), mode_name, 1e6 * s / steps,
                    steps / s);
        std::printf("JSON {\"bench\":\"learner_step\",\"batch\":%lld,\"precision\":\"%s\",\"mode\":\"%s\",\"us_per_step\":%.3f,\"steps_per_s\":%.1f,\"loss\":%.6g}\n",
                    static_cast<long long>(batch), Name(p), mode_name, 1e6 * s / steps, steps / s, out.loss);
      }
  return 0;
}

/// Seed groups (issue 27 item 4): aggregate training steps per second of N learners stepped by
/// one launch, N = 1, 2, 4, 8, 16, the reference network at batch 256 in TF32, each member on its
/// own GPU replay (capacity 1e5, full), graph-replayed; beside it one lone learner's rate and
/// the group's wall time per step over the lone learner's.
int GroupBench() {
  const dqn::NetConfig net{51, 45, {256, 256}, true, {}};
  const int iters = std::getenv("DQN_BENCH_ITERS") ? std::atoi(std::getenv("DQN_BENCH_ITERS")) : 2000;
  dqn::LearnerConfig c = MakeConfig(256, dqn::Precision::kTF32);
  c.q_stats_interval = 100;
  c.target_update = dqn::TargetUpdate::kHard;
  std::vector<std::unique_ptr<dqn::cuda::CudaReplay>> replays;
  for (int s = 0; s < dqn::cuda::detail::kMaxGroup; ++s) {
    std::mt19937_64 r(50 + static_cast<uint64_t>(s));
    replays.push_back(FilledReplay(100000, 100000, net.state_dim, net.n_actions, r));
  }
  double alone_us = 0;
  {
    CudaLearner l(net, c, 1, {});
    dqn::ScalarBlock out;
    for (int i = 0; i < iters / 10; ++i) l.train(*replays[0], out);
    l.finish(out);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) l.train(*replays[0], out);
    l.finish(out);
    alone_us = 1e6 * SecondsSince(t0) / iters;
    std::printf("alone: %.2f us/step, %.0f steps/s\n", alone_us, 1e6 / alone_us);
  }
  std::printf("%-8s %14s %18s %14s\n", "members", "us/launch", "agg. steps/s", "wall / alone");
  for (int n : {1, 2, 4, 8, 16}) {
    std::vector<uint64_t> seeds;
    std::vector<dqn::cuda::CudaReplay*> views;
    for (int s = 0; s < n; ++s) seeds.push_back(1 + static_cast<uint64_t>(s)), views.push_back(replays[static_cast<size_t>(s)].get());
    dqn::cuda::CudaLearnerGroup g(net, c, seeds, {});
    for (int i = 0; i < iters / 10; ++i) g.train(views);
    g.finish();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) g.train(views);
    g.finish();
    const double us = 1e6 * SecondsSince(t0) / iters;
    std::printf("%-8d %14.2f %18.0f %14.2f\n", n, us, n * 1e6 / us, us / alone_us);
    std::printf("JSON {\"bench\":\"learner_group\",\"members\":%d,\"batch\":256,\"precision\":\"tf32\",\"us_per_launch\":%.3f,\"steps_per_s\":%.1f,\"wall_over_alone\":%.3f}\n",
                n, us, n * 1e6 / us, us / alone_us);
  }
  return 0;
}

/// GPU idle time inside an epoch of the full loop, collection included: per training step,
/// train_every (4) env steps of acting on the host (greedy on the pinned acting weights, `envs`
/// rows each), their transitions inserted through the pinned ring, then train() (B = 256, TF32,
/// graph). CUDA events on the replay's stream bracket each insert and each train(); the idle
/// fraction is 1 - (bracketed GPU time) / (first bracket's start to the last one's end).
int Epoch() {
  std::mt19937_64 rng(4);
  const dqn::NetConfig net{51, 45, {256, 256}, true, {}};
  const int d = net.state_dim, train_every = 4, steps = 2000;
  auto replay = FilledReplay(1000000, 1000000, d, net.n_actions, rng);
  cudaStream_t s = replay->stream();
  for (int envs : {1, 16}) {
    dqn::LearnerConfig c = MakeConfig(256, dqn::Precision::kTF32);
    c.q_stats_interval = 100;
    c.causal_interval = 1000000;
    CudaLearner l(net, c, 3, {});
    dqn::ScalarBlock out;
    const int64_t rows = static_cast<int64_t>(train_every) * envs;
    HostBatch hb(rows, d, net.n_actions, rng);
    const dqn::TransitionBatch t{hb.buffers.states.data(), hb.buffers.actions.data(), hb.buffers.rewards.data(),
                                 hb.buffers.next_states.data(), hb.buffers.dones.data(), hb.buffers.discounts.data(), rows};
    std::vector<int32_t> actions(static_cast<size_t>(envs));
    std::vector<cudaEvent_t> ev(4 * static_cast<size_t>(steps));
    for (cudaEvent_t& e : ev) cudaEventCreate(&e);
    const auto one_step = [&](int i) {
      for (int e = 0; e < train_every; ++e) l.greedy(hb.buffers.states.data() + static_cast<int64_t>(e) * envs * d, envs, actions.data());
      if (i >= 0) cudaEventRecord(ev[4 * i], s);
      l.insert(*replay, t);
      if (i >= 0) cudaEventRecord(ev[4 * i + 1], s), cudaEventRecord(ev[4 * i + 2], s);
      l.train(*replay, out);
      if (i >= 0) cudaEventRecord(ev[4 * i + 3], s);
    };
    for (int i = 0; i < 100; ++i) one_step(-1);
    l.finish(out);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < steps; ++i) one_step(i);
    l.finish(out);
    const double wall = SecondsSince(t0);
    double busy_ms = 0;
    float ms = 0;
    for (int i = 0; i < steps; ++i) {
      cudaEventElapsedTime(&ms, ev[4 * i], ev[4 * i + 1]);
      busy_ms += ms;
      cudaEventElapsedTime(&ms, ev[4 * i + 2], ev[4 * i + 3]);
      busy_ms += ms;
    }
    cudaEventElapsedTime(&ms, ev.front(), ev.back());
    const auto a0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) l.greedy(hb.buffers.states.data(), envs, actions.data());
    const double act_us = 1e6 * SecondsSince(a0) / 200;
    std::printf("epoch loop B=256 tf32 graph, %d env(s), %d env steps per train step: %.0f train steps/s, GPU idle %.1f %% "
                "(busy %.1f of %.1f ms), host acting %.1f us per env step\n",
                envs, train_every, steps / wall, 100.0 * (1.0 - busy_ms / ms), busy_ms, ms, act_us);
    std::printf("JSON {\"bench\":\"learner_epoch\",\"envs\":%d,\"steps_per_s\":%.1f,\"gpu_idle\":%.4f,\"act_us\":%.2f}\n", envs,
                steps / wall, 1.0 - busy_ms / ms, act_us);
    for (cudaEvent_t e : ev) cudaEventDestroy(e);
  }
  return 0;
}

/// Prints the means over `iters` profiled steps: the parts of a step (us[7], as profile_step
/// adds them) and each phase's times.
void PrintProfile(const std::string& label, double (&us)[7], const std::vector<dqn::cuda::PhaseProfile>& per_phase, int iters) {
  double total = 0;
  for (double& x : us) total += x /= iters;
  std::printf("profile %s, us per step: sample %.2f forward %.2f loss %.2f backward %.2f optimizer %.2f "
              "update %.2f launch+drain %.2f total %.2f\n",
              label.c_str(), us[0], us[1], us[2], us[3], us[4], us[5], us[6], total);
  std::printf("  per phase, us: total (block 0, start to next start) = busiest block's work + barrier (last arrival to first release) + the rest\n");
  for (size_t k = 0; k < per_phase.size(); ++k) {
    const dqn::cuda::PhaseProfile& f = per_phase[k];
    std::printf("    phase %zu: total %.2f  work max %.2f (mean over blocks %.2f)  barrier %.2f\n", k, f.total_us / iters,
                f.work_max_us / iters, f.work_mean_us / iters, f.barrier_us / iters);
    if (f.tile_steps > 0) {
      const double n = f.tile_steps;
      std::printf("      busiest block's tile (%d of %d steps): lead %.2f, first chunk %.2f, K loop %.2f, epilogue %.2f, tail %.2f\n",
                  f.tile_steps, iters, f.tile_lead_us / n, f.tile_first_chunk_us / n, f.tile_k_loop_us / n,
                  f.tile_epilogue_us / n, f.tile_tail_us / n);
    }
  }
}

int Profile() {
  // Eager steps; the parts' sum against the graph's step time shows what the graph saves.
  std::mt19937_64 rng(2);
  const dqn::NetConfig net{51, 45, {256, 256}, true, {}};
  auto replay = FilledReplay(1000000, 1000000, net.state_dim, net.n_actions, rng);
  const bool only_256 = std::getenv("DQN_PROFILE_BATCHES") != nullptr;
  for (int64_t batch : {256, 1024}) {
    if (only_256 && batch != 256) continue;
    dqn::LearnerConfig c = MakeConfig(batch, dqn::Precision::kTF32);
    c.q_stats_interval = 100;
    CudaLearner l(net, c, 3, {});
    double us[7] = {};
    std::vector<dqn::cuda::PhaseProfile> per_phase;
    const int iters = 500;
    for (int i = 0; i < iters + 50; ++i) l.profile_step(*replay, i >= 50 ? us : nullptr, &per_phase);
    PrintProfile("B=" + std::to_string(batch) + " tf32 eager", us, per_phase, iters);
  }
  return 0;
}

/// Where a seed group's launch spends the time each member adds (issue 27 item 4: N = 4 at 1.9x
/// the wall time of one learner): the eager group step of group-bench's workload, profiled as
/// `profile` profiles one learner (the members' samples side by side, the one kernel's phases
/// from the lead member's stamps, the members' updates), for N = 1, 2, 4, 8, 16.
int GroupProfile() {
  const dqn::NetConfig net{51, 45, {256, 256}, true, {}};
  dqn::LearnerConfig c = MakeConfig(256, dqn::Precision::kTF32);
  c.q_stats_interval = 100;
  c.target_update = dqn::TargetUpdate::kHard;
  std::vector<std::unique_ptr<dqn::cuda::CudaReplay>> replays;
  for (int s = 0; s < 16; ++s) {
    std::mt19937_64 r(50 + static_cast<uint64_t>(s));
    replays.push_back(FilledReplay(100000, 100000, net.state_dim, net.n_actions, r));
  }
  for (int n : {1, 2, 4, 8, 16}) {
    std::vector<uint64_t> seeds;
    std::vector<dqn::cuda::CudaReplay*> views;
    for (int s = 0; s < n; ++s) seeds.push_back(1 + static_cast<uint64_t>(s)), views.push_back(replays[static_cast<size_t>(s)].get());
    dqn::cuda::CudaLearnerGroup g(net, c, seeds, {});
    double us[7] = {};
    std::vector<dqn::cuda::PhaseProfile> per_phase;
    const int iters = 300;
    for (int i = 0; i < iters + 30; ++i) g.profile_step(views, i >= 30 ? us : nullptr, &per_phase);
    PrintProfile("seed group of " + std::to_string(n) + ", B=256 tf32 eager", us, per_phase, iters);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return ToolMain(argc, argv, {{"check", Check}, {"bench", Bench}, {"profile", Profile}, {"epoch", Epoch}, {"group-bench", GroupBench}, {"group-profile", GroupProfile}}); }
