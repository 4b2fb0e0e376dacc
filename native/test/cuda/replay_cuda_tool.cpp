// Standalone checker and benchmark of the CUDA replay (native/src/cuda/cuda_replay.*), built by
// `make replay_cuda_tool` (CMake target, not built by default) and run on a GPU machine:
//   replay_cuda_tool check   every check below; exit status 1 on the first failure. Small sizes,
//                            so that compute-sanitizer memcheck and racecheck can run it whole.
//   replay_cuda_tool bench   the timing table of bench/RESULTS.md (cudaEvents around many
//                            launches and graph replays), as JSON lines and a table.
// Checks compare the GPU buffer with the CPU reference (replay/cpu_replay.*) on the same inputs:
// the same Philox draws must give the same slots, generations, weights and gathered rows.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_replay.h"
#include "native/test/cuda/tool.h"
#include "cuda/fallback_replay.h"
#include "replay/make_replay.h"
#include "replay/replay.h"

using dqn::cuda::CudaReplay;
using dqn::cuda::CudaReplayOptions;

namespace {

/// Host transitions with distinct, checkable values (state row of transition t starts at t).
struct HostBatch {
  std::vector<float> states, next_states, rewards, discounts;
  std::vector<int32_t> actions;
  std::vector<uint8_t> dones;
  dqn::TransitionBatch view(bool with_discounts) const {
    dqn::TransitionBatch b;
    b.states = states.data();
    b.next_states = next_states.data();
    b.rewards = rewards.data();
    b.actions = actions.data();
    b.dones = dones.data();
    b.discounts = with_discounts ? discounts.data() : nullptr;
    b.count = static_cast<int64_t>(actions.size());
    return b;
  }
};

HostBatch MakeBatch(int64_t n, int d, std::mt19937_64& rng, int64_t first_id) {
  std::uniform_real_distribution<float> uni(-1.f, 1.f);
  HostBatch b;
  b.states.resize(n * d);
  b.next_states.resize(n * d);
  for (int64_t i = 0; i < n; ++i)
    for (int j = 0; j < d; ++j) {
      b.states[i * d + j] = static_cast<float>(first_id + i) + 0.125f * j;  // exact in bf16 only for small ids
      b.next_states[i * d + j] = uni(rng);
    }
  for (int64_t i = 0; i < n; ++i) {
    b.rewards.push_back(uni(rng));
    b.discounts.push_back(0.5f + 0.25f * uni(rng));
    b.actions.push_back(static_cast<int32_t>((first_id + i) % 7));
    b.dones.push_back(static_cast<uint8_t>((first_id + i) % 5 == 0));
  }
  return b;
}

struct Sampled {
  std::vector<int32_t> idx, actions;
  std::vector<uint32_t> gen;
  std::vector<float> w, states, next_states, rewards, discounts;
  std::vector<uint8_t> dones;
  Sampled(int64_t b, int d)
      : idx(b), actions(b), gen(b), w(b), states(b * d), next_states(b * d), rewards(b), discounts(b), dones(b) {}
  dqn::SampleBatch view() {
    return dqn::SampleBatch{idx.data(), gen.data(), w.data(), states.data(), actions.data(),
                            rewards.data(), next_states.data(), dones.data(), discounts.data()};
  }
};

/// Every needed internal node of the GPU trees equals its recomputation from its children
/// (pairwise sum, as kernels/replay_tree.cuh's ReduceChildren, bit for bit; min over the
/// children's minima, or over the positive leaves). total_priority() first derives the levels
/// above the partition level, which the update does not store.
void CheckTreeInvariant(const CudaReplay& r, const char* what) {
  r.total_priority();
  const auto& v = r.view();
  const int levels = v.tree.levels, k = 1 << v.tree.fan_log;
  std::vector<double> sum(v.tree.nodes), min(v.tree.offset[levels]);
  CudaOk(cudaMemcpy(sum.data(), v.sum, sum.size() * 8, cudaMemcpyDeviceToHost), "reading the sum tree");
  CudaOk(cudaMemcpy(min.data(), v.min, min.size() * 8, cudaMemcpyDeviceToHost), "reading the min tree");
  int64_t bad = 0, needed = v.capacity;
  std::vector<int64_t> needed_at(levels + 1);
  for (int l = levels; l >= 0; --l) needed_at[l] = needed, needed = (needed + k - 1) / k;
  for (int l = 0; l < levels; ++l)
    for (int64_t j = 0; j < needed_at[l]; ++j) {
      std::vector<double> s(k), m(k);
      for (int c = 0; c < k; ++c) {
        const int64_t at = v.tree.offset[l + 1] + k * j + c;
        s[c] = sum[at];
        m[c] = l + 1 < levels ? min[at] : sum[at] > 0 ? sum[at] : INFINITY;
      }
      for (int width = k; width > 1; width /= 2)
        for (int c = 0; c < width / 2; ++c) s[c] = s[2 * c] + s[2 * c + 1], m[c] = std::min(m[2 * c], m[2 * c + 1]);
      bad += s[0] != sum[v.tree.offset[l] + j] || m[0] != min[v.tree.offset[l] + j];
    }
  EXPECT(bad == 0, "%s: %lld internal nodes differ from their children", what, (long long)bad);
}

/// Runs the same random inserts, samples and updates on the CPU reference and the GPU buffer
/// and compares every output.
void CompareWithCpu(dqn::ReplayConfig c, const CudaReplayOptions& o, const char* name, int rounds) {
  auto cpu = dqn::MakeCpuReplay(c);
  CudaReplay gpu(c, o);
  std::mt19937_64 rng(c.seed * 7919 + o.fan_log);
  const int d = c.state_dim;
  int64_t id = 0, index_mismatch = 0, draws = 0;
  double worst_w = 0, worst_leaf = 0;
  for (int round = 0; round < rounds; ++round) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(std::max<int64_t>(1, c.capacity / 3)));
    const HostBatch hb = MakeBatch(n, d, rng, id);
    id += n;
    cpu->insert(hb.view(round % 2 == 0));
    gpu.insert(hb.view(round % 2 == 0));
    EXPECT(cpu->size() == gpu.size(), "%s: size %lld vs %lld", name, (long long)cpu->size(), (long long)gpu.size());
    // Draws of both buffers, compared field by field; the second sample of a round follows the
    // update directly, so the GPU's draws come from levels above P that its sample derives.
    const auto sample_both = [&](int64_t b, Sampled& sc, Sampled& sg) {
      dqn::SampleBatch vc = sc.view(), vg = sg.view();
      cpu->sample(b, vc);
      gpu.sample(b, vg);
      for (int64_t k = 0; k < b; ++k) {
        ++draws;
        if (sc.idx[k] != sg.idx[k]) { ++index_mismatch; continue; }
        EXPECT(sc.gen[k] == sg.gen[k], "%s: generation of draw %lld", name, (long long)k);
        worst_w = std::max(worst_w, std::fabs(double(sc.w[k]) - sg.w[k]) / std::max(1e-30, double(sc.w[k])));
        EXPECT(sc.actions[k] == sg.actions[k] && sc.rewards[k] == sg.rewards[k] && sc.dones[k] == sg.dones[k] &&
                   sc.discounts[k] == sg.discounts[k], "%s: scalar fields of draw %lld", name, (long long)k);
        for (int j = 0; j < d; ++j) {
          const float a = sc.states[k * d + j], g = sg.states[k * d + j];
          const float tol = o.state_bf16 ? std::fabs(a) * 0.0079f : 0.f;  // bf16: 8 significant bits
          EXPECT(std::fabs(a - g) <= tol, "%s: state %lld,%d %g vs %g", name, (long long)k, j, a, g);
        }
      }
    };
    const int64_t b = 1 + static_cast<int64_t>(rng() % 96);
    Sampled sc(b, d), sg(b, d);
    sample_both(b, sc, sg);
    // Update from the sampled entries with some duplicates, NaN/Inf, stale generations.
    std::vector<int32_t> idx = sc.idx;
    std::vector<uint32_t> gen = sc.gen;
    std::vector<float> td(b);
    std::exponential_distribution<float> ex(1.0f);
    for (int64_t k = 0; k < b; ++k) {
      td[k] = ex(rng) * (rng() % 2 ? 1.f : -1.f);
      const uint64_t r = rng() % 20;
      if (r == 0) td[k] = NAN;
      if (r == 1) td[k] = INFINITY;
      if (r == 2) gen[k] += 1;
      if (r == 3 && k > 0) idx[k] = idx[k - 1];
    }
    const dqn::UpdateResult uc = cpu->update_priorities(idx.data(), gen.data(), td.data(), b);
    const dqn::UpdateResult ug = gpu.update_priorities(idx.data(), gen.data(), td.data(), b);
    EXPECT(uc.applied == ug.applied && uc.rejected_nonfinite == ug.rejected_nonfinite && uc.stale == ug.stale &&
               uc.duplicates == ug.duplicates,
           "%s: counts cpu %lld/%lld/%lld/%lld gpu %lld/%lld/%lld/%lld", name, (long long)uc.applied,
           (long long)uc.rejected_nonfinite, (long long)uc.stale, (long long)uc.duplicates, (long long)ug.applied,
           (long long)ug.rejected_nonfinite, (long long)ug.stale, (long long)ug.duplicates);
    Sampled after_c(b, d), after_g(b, d);
    sample_both(b, after_c, after_g);
    std::vector<double> lc(cpu->size()), lg(gpu.size());
    cpu->leaf_priorities(lc.data());
    gpu.leaf_priorities(lg.data());
    double sum = 0;
    for (size_t i = 0; i < lc.size(); ++i) {
      worst_leaf = std::max(worst_leaf, std::fabs(lc[i] - lg[i]) / std::max(1e-300, lc[i]));
      sum += lg[i];
    }
    EXPECT(std::fabs(gpu.total_priority() - sum) <= 1e-12 * sum, "%s: root %.17g vs leaf sum %.17g", name,
           gpu.total_priority(), sum);
    EXPECT(cpu->max_priority() == gpu.max_priority(), "%s: max priority %.17g vs %.17g", name, cpu->max_priority(),
           gpu.max_priority());
    EXPECT(cpu->sample_steps() == gpu.sample_steps() && cpu->beta() == gpu.beta(), "%s: beta schedule", name);
  }
  CheckTreeInvariant(gpu, name);
  EXPECT(worst_leaf <= 4e-16, "%s: leaf priorities differ by %g relative", name, worst_leaf);
  EXPECT(worst_w <= 1e-6, "%s: IS weights differ by %g relative", name, worst_w);
  // Same Philox draws and masses: a slot may differ only where a mass falls within rounding of a
  // prefix-sum boundary, whose sums the two trees add in different orders.
  EXPECT(index_mismatch * 1000 <= draws, "%s: %lld of %lld draws picked another slot", name, (long long)index_mismatch,
         (long long)draws);
  std::printf("  %-34s draws %6lld, other slot %lld, max rel diff: weight %.2g, leaf %.2g\n", name, (long long)draws,
              (long long)index_mismatch, worst_w, worst_leaf);
}

void CheckAgainstCpu() {
  std::printf("GPU vs CPU reference on the same inputs\n");
  for (int fan_log : {1, 4, 5})
    for (dqn::Sampler s : {dqn::Sampler::kProportional, dqn::Sampler::kRank, dqn::Sampler::kUniform})
      for (dqn::IsNormalization norm : {dqn::IsNormalization::kBuffer, dqn::IsNormalization::kBatch}) {
        dqn::ReplayConfig c;
        c.capacity = fan_log == 5 ? 1500 : 700;  // several levels, a ragged last node
        c.state_dim = 5;
        c.sampler = s;
        c.is_normalization = norm;
        c.beta_steps = 10;
        c.rank_sort_interval = 3;
        c.seed = 11 + fan_log;
        CudaReplayOptions o;
        o.fan_log = fan_log;
        char name[64];
        std::snprintf(name, sizeof name, "K=%d %s %s", 1 << fan_log,
                      s == dqn::Sampler::kProportional ? "proportional" : s == dqn::Sampler::kRank ? "rank" : "uniform",
                      norm == dqn::IsNormalization::kBuffer ? "buffer-max" : "batch-max");
        CompareWithCpu(c, o, name, 12);
      }
  dqn::ReplayConfig c;
  c.capacity = 300;
  c.state_dim = 3;
  CudaReplayOptions o;
  o.state_bf16 = true;
  CompareWithCpu(c, o, "K=32 proportional bf16 states", 8);
  // K = 16 with the partition level below level 2 (5000 slots: 20 needed nodes at level 2, 313
  // at level 3, so P = 3 and the sample derives level 1 as well as the root).
  dqn::ReplayConfig deep;
  deep.capacity = 5000;
  deep.state_dim = 2;
  deep.beta_steps = 10;
  deep.seed = 23;
  CudaReplayOptions o16;
  o16.fan_log = 4;
  CompareWithCpu(deep, o16, "K=16 proportional, partition level 3", 12);
}

/// Many updates with 50% duplicates: the root stays the f64 sum of the leaves.
void CheckMillionUpdates() {
  dqn::ReplayConfig c;
  c.capacity = 1 << 16;
  c.state_dim = 1;
  CudaReplay gpu(c, {});
  std::mt19937_64 rng(5);
  const HostBatch hb = MakeBatch(c.capacity, 1, rng, 0);
  gpu.insert(hb.view(false));
  const int64_t b = 4096, rounds = 1000000 / b + 1;
  std::vector<int32_t> idx(b);
  std::vector<uint32_t> gen(b, 1u);
  std::vector<float> td(b);
  std::lognormal_distribution<float> ln(0.f, 4.f);  // priorities over many orders of magnitude
  for (int64_t r = 0; r < rounds; ++r) {
    for (int64_t k = 0; k < b; ++k) {
      idx[k] = k % 2 ? idx[k - 1] : static_cast<int32_t>(rng() % c.capacity);
      td[k] = ln(rng);
    }
    const dqn::UpdateResult u = gpu.update_priorities(idx.data(), gen.data(), td.data(), b);
    EXPECT(u.duplicates >= b / 2, "duplicates %lld", (long long)u.duplicates);
  }
  std::vector<double> leaves(c.capacity);
  gpu.leaf_priorities(leaves.data());
  long double exact = 0;
  for (double x : leaves) exact += x;
  const double rel = std::fabs(gpu.total_priority() - static_cast<double>(exact)) / static_cast<double>(exact);
  EXPECT(rel <= 1e-6, "root vs leaf sum: %g relative", rel);
  CheckTreeInvariant(gpu, "million updates");
  std::printf("%lld updates (50%% duplicates): root %.17g, f64 leaf sum %.17g, rel diff %.2g\n",
              (long long)(rounds * b), gpu.total_priority(), static_cast<double>(exact), rel);
}

/// Gives every slot of a full buffer (each slot written once: generation 1) the priority of a
/// lognormal(0, sigma) TD error through one host update; returns the TD errors.
std::vector<float> SetEveryPriority(CudaReplay& r, float sigma, std::mt19937_64& rng) {
  const int64_t n = r.capacity();
  std::vector<int32_t> idx(n);
  std::vector<uint32_t> gen(n, 1u);
  std::vector<float> td(n);
  std::lognormal_distribution<float> ln(0.f, sigma);
  for (int64_t i = 0; i < n; ++i) idx[i] = static_cast<int32_t>(i), td[i] = ln(rng);
  r.update_priorities(idx.data(), gen.data(), td.data(), n);
  return td;
}

/// Draws at the edges of the strata on a buffer whose priorities span many orders of magnitude:
/// every draw lands on a stored slot with a positive priority, and its IS weight equals
/// (P_min / P(slot))^beta computed from the leaves. A descent into a zero child (a padding node
/// past the needed ones) reads past the tree (compute-sanitizer memcheck flags it) and returns a
/// wrong slot and weight: this was seen at capacity 1e5, batch 1024.
void CheckDescentEdges() {
  const int calls = std::getenv("DQN_CHECK_SMALL") ? 5 : 200;
  for (int fan_log : {1, 4, 5}) {
    dqn::ReplayConfig c;
    c.capacity = 100000;
    c.state_dim = 1;
    CudaReplayOptions o;
    o.fan_log = fan_log;
    CudaReplay gpu(c, o);
    std::mt19937_64 rng(11 + fan_log);
    gpu.insert(MakeBatch(c.capacity, 1, rng, 0).view(false));
    SetEveryPriority(gpu, 4.f, rng);
    std::vector<double> leaves(c.capacity);
    gpu.leaf_priorities(leaves.data());
    const double min_leaf = *std::min_element(leaves.begin(), leaves.end());
    const int64_t b = 1024;
    int64_t bad = 0;
    double worst = 0;
    for (int call = 0; call < calls; ++call) {
      const double beta = gpu.beta();  // the beta of the next sample call
      Sampled sg(b, 1);
      dqn::SampleBatch vg = sg.view();
      gpu.sample(b, vg);
      for (int64_t k = 0; k < b; ++k) {
        const int32_t slot = sg.idx[k];
        if (slot < 0 || slot >= c.capacity || !(leaves[slot] > 0) || !std::isfinite(sg.w[k])) {
          ++bad;
          continue;
        }
        const double expect = std::pow(min_leaf / leaves[slot], beta);
        worst = std::max(worst, std::fabs(sg.w[k] - expect) / expect);
      }
    }
    EXPECT(bad == 0 && worst <= 1e-6, "descent edges K=%d: %lld bad draws, weight rel diff %g", 1 << fan_log,
           (long long)bad, worst);
    std::printf("descent edges K=%d: %lld draws of batch %lld, every weight from its slot's leaf (rel diff %.2g)\n",
                1 << fan_log, (long long)calls * b, (long long)b, worst);
  }
}

/// The multi-chunk update path (n > 4096) and ring wrap-around, against the CPU.
void CheckLargeUpdateAndWrap() {
  dqn::ReplayConfig c;
  c.capacity = 5000;
  c.state_dim = 2;
  auto cpu = dqn::MakeCpuReplay(c);
  CudaReplay gpu(c, {});
  std::mt19937_64 rng(9);
  const HostBatch big = MakeBatch(12345, 2, rng, 0);  // longer than the ring: wraps twice in one call
  cpu->insert(big.view(true));
  gpu.insert(big.view(true));
  const int64_t n = 10000;
  std::vector<int32_t> idx(n);
  std::vector<uint32_t> gen(n);
  std::vector<float> td(n);
  // Generations after 12345 writes into 5000 slots: 3 for slots written three times, else 2.
  for (int64_t k = 0; k < n; ++k) {
    idx[k] = static_cast<int32_t>(rng() % 3000);
    gen[k] = idx[k] < 12345 - 2 * 5000 ? 3u : 2u;
    td[k] = static_cast<float>(rng() % 1000) / 7.f;
    if (k % 97 == 0) td[k] = NAN;
  }
  const dqn::UpdateResult uc = cpu->update_priorities(idx.data(), gen.data(), td.data(), n);
  const dqn::UpdateResult ug = gpu.update_priorities(idx.data(), gen.data(), td.data(), n);
  EXPECT(uc.applied == ug.applied && uc.rejected_nonfinite == ug.rejected_nonfinite && uc.stale == ug.stale &&
             uc.duplicates == ug.duplicates,
         "large update: cpu %lld/%lld/%lld/%lld gpu %lld/%lld/%lld/%lld", (long long)uc.applied,
         (long long)uc.rejected_nonfinite, (long long)uc.stale, (long long)uc.duplicates, (long long)ug.applied,
         (long long)ug.rejected_nonfinite, (long long)ug.stale, (long long)ug.duplicates);
  EXPECT(uc.stale == 0 && uc.applied > 2000, "large update applied %lld stale %lld", (long long)uc.applied, (long long)uc.stale);
  std::vector<double> lc(c.capacity), lg(c.capacity);
  cpu->leaf_priorities(lc.data());
  gpu.leaf_priorities(lg.data());
  int bad = 0;
  for (int64_t i = 0; i < c.capacity; ++i) bad += std::fabs(lc[i] - lg[i]) > 4e-16 * lc[i];
  EXPECT(bad == 0, "large update: %d leaves differ", bad);
  EXPECT(std::fabs(cpu->total_priority() - gpu.total_priority()) <= 1e-12 * cpu->total_priority(), "totals %.17g %.17g",
         cpu->total_priority(), gpu.total_priority());
  CheckTreeInvariant(gpu, "multi-chunk update");
  std::printf("multi-chunk update of %lld entries after a 2.5x wrap: counts and leaves match the CPU\n", (long long)n);
}

/// Multi-block updates on a tree several levels deep, against the CPU: spread entries (many
/// blocks), entries packed into one partition with many duplicates (one busy block), a batch
/// longer than one window (epoch marks across windows), and thousands of distinct slots in one
/// block's partition (more winners than its slabs hold: several rounds); with and without
/// chained launches.
void CheckWideUpdates() {
  for (int fan_log : {4, 5})
    for (bool chained : {true, false}) {
      dqn::ReplayConfig c;
      c.capacity = 300000;
      c.state_dim = 2;
      c.seed = 3 + fan_log;
      auto cpu = dqn::MakeCpuReplay(c);
      CudaReplayOptions o;
      o.fan_log = fan_log;
      o.chained_launches = chained;
      CudaReplay gpu(c, o);
      std::mt19937_64 rng(17 + fan_log);
      const HostBatch hb = MakeBatch(c.capacity + 1234, 2, rng, 0);  // wraps: slots < 1234 written twice
      cpu->insert(hb.view(false));
      gpu.insert(hb.view(false));
      int bad_counts = 0;
      for (int round = 0; round < 4; ++round) {
        const int64_t n = round == 2 ? 9000 : 4096;
        std::vector<int32_t> idx(n);
        std::vector<uint32_t> gen(n);
        std::vector<float> td(n);
        std::lognormal_distribution<float> ln(0.f, 3.f);
        for (int64_t k = 0; k < n; ++k) {
          const int64_t span = round == 1 ? 300 : round == 3 ? 30000 : c.capacity;  // 30000: block 0's partition
          idx[k] = static_cast<int32_t>((round == 1 ? 5000 : 0) + rng() % span);
          gen[k] = idx[k] < 1234 ? 2u : 1u;
          if (rng() % 50 == 0) gen[k] += 1;  // stale
          td[k] = ln(rng);
          if (rng() % 40 == 0) td[k] = NAN;
        }
        const dqn::UpdateResult uc = cpu->update_priorities(idx.data(), gen.data(), td.data(), n);
        const dqn::UpdateResult ug = gpu.update_priorities(idx.data(), gen.data(), td.data(), n);
        bad_counts += !(uc.applied == ug.applied && uc.rejected_nonfinite == ug.rejected_nonfinite && uc.stale == ug.stale &&
                        uc.duplicates == ug.duplicates);
      }
      std::vector<double> lc(c.capacity), lg(c.capacity);
      cpu->leaf_priorities(lc.data());
      gpu.leaf_priorities(lg.data());
      int bad = 0;
      long double exact = 0;
      for (int64_t i = 0; i < c.capacity; ++i) {
        bad += std::fabs(lc[i] - lg[i]) > 4e-16 * lc[i];  // the CPU's and CUDA's pow: within an ulp
        exact += lg[i];
      }
      const double rel = std::fabs(gpu.total_priority() - static_cast<double>(exact)) / static_cast<double>(exact);
      CheckTreeInvariant(gpu, "wide updates");
      EXPECT(bad_counts == 0 && bad == 0 && rel <= 1e-12 && cpu->max_priority() == gpu.max_priority(),
             "wide update K=%d chained=%d: %d count mismatches, %d leaves differ, root rel %g", 1 << fan_log, chained,
             bad_counts, bad, rel);
      std::printf("wide updates K=%d chained=%d (4096 spread, 4096 in 300 slots, 9000, 4096 in one partition): counts, "
                  "leaves and every node match, root rel %.2g\n",
                  1 << fan_log, chained, rel);
    }
}

/// The captured step (sample + update) replayed as a graph equals the same calls made eagerly.
void CheckGraphReplay() {
  dqn::ReplayConfig c;
  c.capacity = 3000;
  c.state_dim = 4;
  c.beta_steps = 50;
  for (dqn::Sampler s : {dqn::Sampler::kProportional, dqn::Sampler::kRank}) {
    c.sampler = s;
    c.rank_sort_interval = 4;
    CudaReplay eager(c, {}), graph(c, {});
    std::mt19937_64 rng(3);
    const HostBatch hb = MakeBatch(2500, 4, rng, 0);
    eager.insert(hb.view(false));
    graph.insert(hb.view(false));
    const int64_t b = 256;
    graph.capture_step_graph(b);
    std::vector<float> td(b);
    int diffs = 0;
    for (int step = 0; step < 20; ++step) {
      for (float& x : td) x = static_cast<float>(rng() % 10000) / 100.f;
      eager.reserve_batch(b);
      eager.set_batch_td(td.data(), b);
      eager.run_step(b);
      graph.set_batch_td(td.data(), b);
      graph.launch_step_graph();
      Sampled se(b, 4), sg(b, 4);
      dqn::SampleBatch ve = se.view(), vg = sg.view();
      eager.read_batch(b, ve);
      graph.read_batch(b, vg);
      diffs += se.idx != sg.idx || se.w != sg.w || se.states != sg.states || se.gen != sg.gen;
    }
    std::vector<double> le(c.capacity), lg(c.capacity);
    eager.leaf_priorities(le.data());
    graph.leaf_priorities(lg.data());
    EXPECT(diffs == 0 && le == lg && eager.total_priority() == graph.total_priority() && eager.sample_steps() == 20 &&
               graph.sample_steps() == 20 && graph.beta() == eager.beta(),
           "graph replay differs from eager (%d steps differ)", diffs);
    std::printf("graph replay == eager over 20 steps (%s)\n", s == dqn::Sampler::kRank ? "rank" : "proportional");
  }
}

/// Fallbacks: simulated OOM at construction, a real non-sticky launch error at run time.
void CheckFallbacks() {
  dqn::ReplayConfig c;
  c.capacity = 1000;
  c.state_dim = 3;
  dqn::ReplayPlacement p;
  p.simulate_oom = true;
  dqn::ReplayChoice oom = dqn::MakeReplay(c, p);
  EXPECT(oom.replay->backend() == "cpu" && oom.fallback_reason.rfind("out of memory, ", 0) == 0 &&
             oom.fallback_reason.find("GiB asked") != std::string::npos,
         "simulated OOM: backend %s reason '%s'", oom.replay->backend().c_str(), oom.fallback_reason.c_str());
  std::printf("simulated OOM -> %s: %s\n", oom.replay->backend().c_str(), oom.fallback_reason.c_str());

  p = {};
  p.simulate_kernel_error = true;
  dqn::ReplayChoice r = dqn::MakeReplay(c, p);
  EXPECT(r.replay->backend() == "cuda" && r.fallback_reason.empty(), "kernel-error buffer starts on the GPU");
  std::mt19937_64 rng(1);
  const HostBatch hb = MakeBatch(1300, 3, rng, 0);  // wraps: cursor at 300
  r.replay->insert(hb.view(true));
  std::vector<int32_t> idx{5, 700};
  std::vector<uint32_t> gen{2, 1};
  std::vector<float> td{3.f, 0.25f};
  r.replay->update_priorities(idx.data(), gen.data(), td.data(), 2);
  std::vector<double> before(1000), after(1000);
  r.replay->leaf_priorities(before.data());
  Sampled s(64, 3);
  dqn::SampleBatch v = s.view();
  r.replay->sample(64, v);  // fails on the GPU, served by the CPU
  const std::string why = r.runtime_fallback_reason();
  EXPECT(r.replay->backend() == "cpu" && why.find("simulated failure") != std::string::npos &&
             why.find("cudaError") != std::string::npos,
         "runtime fallback: backend %s reason '%s'", r.replay->backend().c_str(), why.c_str());
  r.replay->leaf_priorities(after.data());
  double worst = 0;
  for (int i = 0; i < 1000; ++i) worst = std::max(worst, std::fabs(before[i] - after[i]) / before[i]);
  EXPECT(worst < 1e-6 && r.replay->size() == 1000 && r.replay->sample_steps() == 1 && r.replay->max_priority() == 3.0,
         "moved buffer: leaf diff %g size %lld steps %lld max %g", worst, (long long)r.replay->size(),
         (long long)r.replay->sample_steps(), r.replay->max_priority());
  // The moved ring continues at the same cursor: the next insert overwrites slot 300.
  const HostBatch one = MakeBatch(1, 3, rng, 5000);
  r.replay->insert(one.view(true));
  std::vector<int32_t> probe{300};
  std::vector<uint32_t> pg{2};  // slot 300 was written once before the move, once after
  std::vector<float> ptd{1.f};
  EXPECT(r.replay->update_priorities(probe.data(), pg.data(), ptd.data(), 1).applied == 1, "cursor after the move");
  std::printf("runtime fallback -> %s: %s\n", r.replay->backend().c_str(), why.c_str());
}

int Check() {
  CheckAgainstCpu();
  CheckDescentEdges();
  CheckLargeUpdateAndWrap();
  CheckWideUpdates();
  CheckGraphReplay();
  // Under compute-sanitizer (DQN_SANITIZE=1) the deliberately failing launch would be reported.
  if (!std::getenv("DQN_SANITIZE")) CheckFallbacks();
  if (!std::getenv("DQN_CHECK_SMALL")) CheckMillionUpdates();
  std::printf(g_failures ? "%d CHECK FAILURES\n" : "ALL CHECKS PASSED\n", g_failures);
  return g_failures ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Benchmark

struct Timer {
  cudaEvent_t a, b;
  Timer() { cudaEventCreate(&a); cudaEventCreate(&b); }
  ~Timer() { cudaEventDestroy(a); cudaEventDestroy(b); }
  /// Median over `reps` of the mean time of `iters` calls of f, in microseconds.
  double us(cudaStream_t s, int iters, int reps, const std::function<void()>& f) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      CudaOk(cudaEventRecord(a, s), "event");
      for (int i = 0; i < iters; ++i) f();
      CudaOk(cudaEventRecord(b, s), "event");
      CudaOk(cudaEventSynchronize(b), "event sync");
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      t.push_back(1000.0 * ms / iters);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

__attribute__((unused)) void Fill(std::vector<float>& v, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  for (float& x : v) x = u(rng);
}

/// Integers from a comma-separated env variable, or `fallback` when it is unset.
std::vector<int64_t> EnvList(const char* name, std::vector<int64_t> fallback) {
  const char* e = std::getenv(name);
  if (!e) return fallback;
  std::vector<int64_t> out;
  for (const char* p = e; *p;) {
    char* end = nullptr;
    out.push_back(std::strtoll(p, &end, 10));
    p = *end == ',' ? end + 1 : end;
    if (end == p && *p) break;
  }
  return out;
}

constexpr int kStepsPerGraph = 16;

int Bench() {
  const int d = 51;
  // Subsets for quick or sanitizer runs: DQN_BENCH_CAPACITIES, _FANLOGS, _BATCHES, _ITERS;
  // DQN_BENCH_NO_L2 turns the L2 persisting window off (CudaReplayOptions::l2_persist).
  const std::vector<int64_t> capacities = EnvList("DQN_BENCH_CAPACITIES", {100000, 1000000, 10000000});
  const std::vector<int64_t> fan_logs = EnvList("DQN_BENCH_FANLOGS", {1, 4, 5});
  const std::vector<int64_t> batches = EnvList("DQN_BENCH_BATCHES", {256, 1024, 4096});
  const int iters = static_cast<int>(EnvList("DQN_BENCH_ITERS", {1000})[0]);
  std::mt19937_64 rng(42);
  Timer timer;
  // Device source rows for D2D inserts.
  const int64_t chunk = 1 << 16;
  std::vector<float> hs(chunk * d);
  Fill(hs, rng);
  std::vector<int32_t> ha(chunk);
  std::vector<float> hr(chunk);
  std::vector<uint8_t> hd(chunk);
  for (int64_t i = 0; i < chunk; ++i) ha[i] = static_cast<int32_t>(i % 45), hr[i] = 0.01f * (i % 100), hd[i] = i % 50 == 0;
  float *ds, *dr;
  int32_t* da;
  uint8_t* dd;
  CudaOk(cudaMalloc(&ds, chunk * d * 4), "malloc");
  CudaOk(cudaMalloc(&dr, chunk * 4), "malloc");
  CudaOk(cudaMalloc(&da, chunk * 4), "malloc");
  CudaOk(cudaMalloc(&dd, chunk), "malloc");
  cudaMemcpy(ds, hs.data(), chunk * d * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dr, hr.data(), chunk * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(da, ha.data(), chunk * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dd, hd.data(), chunk, cudaMemcpyHostToDevice);
  dqn::cuda::detail::InsertView in{ds, da, dr, ds, dd, nullptr};
  // Update inputs: distinct slots (0% duplicates) or each slot twice (50%), TD errors lognormal.
  const int64_t max_b = 4096;
  int32_t* d_idx;
  uint32_t* d_gen;
  float* d_td;
  CudaOk(cudaMalloc(&d_idx, 2 * max_b * 4), "malloc");
  CudaOk(cudaMalloc(&d_gen, max_b * 4), "malloc");
  CudaOk(cudaMalloc(&d_td, max_b * 4), "malloc");
  std::vector<uint32_t> ones(max_b, 1u);
  std::vector<float> htd(max_b);
  std::lognormal_distribution<float> ln(0, 1);
  for (float& x : htd) x = ln(rng);
  cudaMemcpy(d_gen, ones.data(), max_b * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(d_td, htd.data(), max_b * 4, cudaMemcpyHostToDevice);

  std::printf("%-9s %-4s %-5s %-4s | %9s %9s | %9s %9s | %9s %9s | %8s\n", "capacity", "K", "batch", "dup", "sample",
              "sample", "update", "update", "step", "step", "B/trans");
  std::printf("%-9s %-4s %-5s %-4s | %9s %9s | %9s %9s | %9s %9s | %8s\n", "", "", "", "", "eager us", "graph us", "eager us",
              "graph us", "graph us", "x16 us", "");
  for (int64_t capacity : capacities)
    for (int64_t fan_log_wide : fan_logs) {
      const int fan_log = static_cast<int>(fan_log_wide);
      dqn::ReplayConfig c;
      c.capacity = capacity;
      c.state_dim = d;
      CudaReplayOptions o;
      o.fan_log = fan_log;
      o.l2_persist = !std::getenv("DQN_BENCH_NO_L2");
      CudaReplay r(c, o);
      cudaStream_t s = r.stream();
      // Fill with D2D inserts (timed: insert throughput), then random priorities for every slot.
      const double ins_us = timer.us(s, 1, 1, [&] {
        for (int64_t done = 0; done < capacity; done += chunk) r.insert_device(in, std::min(chunk, capacity - done));
      });
      std::vector<int32_t> all(max_b);
      for (int64_t first = 0; first < capacity; first += max_b) {
        const int64_t n = std::min(max_b, capacity - first);
        for (int64_t k = 0; k < n; ++k) all[k] = static_cast<int32_t>(first + k);
        for (int64_t k = 0; k < n; ++k) htd[k] = ln(rng);
        cudaMemcpyAsync(d_idx, all.data(), n * 4, cudaMemcpyHostToDevice, s);
        cudaMemcpyAsync(d_td, htd.data(), n * 4, cudaMemcpyHostToDevice, s);
        r.update_device(d_idx, d_gen, d_td, n);
        r.synchronize();
      }
      {
        // Floor probes: one draw, one update entry, and a 4-byte memset node, each as a graph.
        r.reserve_batch(1);
        const auto& one = r.batch_view();
        const auto graph_us = [&](const std::function<void()>& body) {
          cudaGraph_t g;
          cudaGraphExec_t e;
          CudaOk(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
          body();
          CudaOk(cudaStreamEndCapture(s, &g), "capture");
          CudaOk(cudaGraphInstantiate(&e, g, 0), "instantiate");
          const double us = timer.us(s, iters, 5, [&] { cudaGraphLaunch(e, s); });
          cudaGraphExecDestroy(e);
          cudaGraphDestroy(g);
          return us;
        };
        const double memset_us = graph_us([&] { cudaMemsetAsync(d_td + max_b - 1, 0, 4, s); });
        const double sample1 = graph_us([&] { r.sample_device(1, one); });
        const double update1 = graph_us([&] { r.update_device(d_idx, d_gen, d_td, 1); });
        std::printf("floor (capacity %lld, K=%d): memset node %.2f us, sample B=1 %.2f us, update n=1 %.2f us\n",
                    (long long)capacity, 1 << fan_log, memset_us, sample1, update1);
      }
      if (fan_log == 5)
        std::printf("insert D2D: %lld rows in %.1f ms = %.2f M rows/s (%.1f GB/s of rows)\n", (long long)capacity,
                    ins_us / 1000, capacity / ins_us, capacity * (2.0 * d * 4 + 9) / ins_us / 1000);
      for (int64_t b : batches)
        for (int dup : {0, 50}) {
          // Update indices: distinct random slots, or each of B/2 slots twice.
          std::vector<int32_t> idx(b);
          for (int64_t k = 0; k < b; ++k) idx[k] = static_cast<int32_t>(rng() % capacity);
          if (dup) for (int64_t k = 1; k < b; k += 2) idx[k] = idx[k - 1];
          std::shuffle(idx.begin(), idx.end(), rng);
          cudaMemcpyAsync(d_idx, idx.data(), b * 4, cudaMemcpyHostToDevice, s);
          r.reserve_batch(b);
          r.synchronize();
          const auto& out = r.batch_view();
          const double sample_eager = timer.us(s, std::max(1, iters / 5), 5, [&] { r.sample_device(b, out); });
          const double update_eager = timer.us(s, std::max(1, iters / 5), 5, [&] { r.update_device(d_idx, d_gen, d_td, b); });
          // Graphs: sample alone, update alone, and the step (sample + update of the sampled slots).
          cudaGraph_t g1, g2;
          cudaGraphExec_t e1, e2;
          CudaOk(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
          r.sample_device(b, out);
          CudaOk(cudaStreamEndCapture(s, &g1), "capture");
          CudaOk(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
          r.update_device(d_idx, d_gen, d_td, b);
          CudaOk(cudaStreamEndCapture(s, &g2), "capture");
          CudaOk(cudaGraphInstantiate(&e1, g1, 0), "instantiate");
          CudaOk(cudaGraphInstantiate(&e2, g2, 0), "instantiate");
          const double sample_graph = timer.us(s, iters, 5, [&] { cudaGraphLaunch(e1, s); });
          const double update_graph = timer.us(s, iters, 5, [&] { cudaGraphLaunch(e2, s); });
          r.capture_step_graph(b);
          cudaMemcpyAsync(r.batch_td(), htd.data(), b * 4, cudaMemcpyHostToDevice, s);
          const double step_graph = timer.us(s, iters, 5, [&] { r.launch_step_graph(); });
          // The same step 16 times in one graph: the per-graph launch cost is shared, as in a
          // training-step graph that holds the replay step among the learner's kernels.
          cudaGraph_t g16;
          cudaGraphExec_t e16;
          CudaOk(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
          for (int i = 0; i < kStepsPerGraph; ++i) r.run_step(b);
          CudaOk(cudaStreamEndCapture(s, &g16), "capture");
          CudaOk(cudaGraphInstantiate(&e16, g16, 0), "instantiate");
          const double step16 =
              timer.us(s, std::max(1, iters / kStepsPerGraph), 5, [&] { cudaGraphLaunch(e16, s); }) / kStepsPerGraph;
          cudaGraphExecDestroy(e16);
          cudaGraphDestroy(g16);
          r.synchronize();
          cudaGraphExecDestroy(e1);
          cudaGraphExecDestroy(e2);
          cudaGraphDestroy(g1);
          cudaGraphDestroy(g2);
          std::printf("%-9lld %-4d %-5lld %-4d | %9.2f %9.2f | %9.2f %9.2f | %9.2f %9.2f | %8.1f\n", (long long)capacity,
                      1 << fan_log, (long long)b, dup, sample_eager, sample_graph, update_eager, update_graph, step_graph,
                      step16, r.bytes_per_transition());
          std::printf("JSON {\"capacity\":%lld,\"fanout\":%d,\"batch\":%lld,\"dup\":%d,\"sample_us\":%.3f,\"sample_graph_us\":%.3f,"
                      "\"update_us\":%.3f,\"update_graph_us\":%.3f,\"step_graph_us\":%.3f,\"step_in_16_graph_us\":%.3f,"
                      "\"bytes_per_transition\":%.1f}\n",
                      (long long)capacity, 1 << fan_log, (long long)b, dup, sample_eager, sample_graph, update_eager,
                      update_graph, step_graph, step16, r.bytes_per_transition());
        }
    }
  // Host inserts (pageable memory, as from JS typed arrays) and bf16 storage.
  if (!std::getenv("DQN_BENCH_CAPACITIES")) {
    dqn::ReplayConfig c;
    c.capacity = 1000000;
    c.state_dim = d;
    for (bool bf16 : {false, true}) {
      CudaReplayOptions o;
      o.state_bf16 = bf16;
      CudaReplay r(c, o);
      const int64_t n = 1 << 18;
      std::vector<float> st(n * d);
      Fill(st, rng);
      std::vector<int32_t> a(n, 1);
      std::vector<float> rw(n, 0.5f);
      std::vector<uint8_t> dn(n, 0);
      dqn::TransitionBatch tb{st.data(), a.data(), rw.data(), st.data(), dn.data(), nullptr, n};
      r.insert(tb);
      r.synchronize();
      const double us = timer.us(r.stream(), 1, 3, [&] { r.insert(tb); });
      r.reserve_batch(256);
      r.capture_step_graph(256);
      const double step = timer.us(r.stream(), iters, 5, [&] { r.launch_step_graph(); });
      if (!bf16) {
        CudaReplayOptions plain = o;
        plain.chained_launches = false;
        CudaReplay q(c, plain);
        q.insert(tb);
        q.insert(tb);
        q.reserve_batch(256);
        q.capture_step_graph(256);
        const double off = timer.us(q.stream(), iters, 5, [&] { q.launch_step_graph(); });
        std::printf("chained launches off: step graph 1e6/256 (default K=32, as the f32 row below): %.2f us\n", off);
      }
      std::printf("states %s: %.1f bytes/transition; host insert (pageable H2D, %lld rows): %.2f M rows/s; step graph "
                  "1e6/256: %.2f us\n",
                  bf16 ? "bf16" : "f32 ", r.bytes_per_transition(), (long long)n, n / us, step);
    }
  }
  return 0;
}

/// A few eager sample + update steps at capacity 1e6, batch 256, after one fill insert and one
/// priority update of every slot: run under a profiler (ncu --launch-skip 1 -k regex:Sample|Update).
int Profile() {
  const int d = 51;
  for (int fan_log : {4, 5}) {
    dqn::ReplayConfig c;
    c.capacity = 1000000;
    c.state_dim = d;
    CudaReplayOptions o;
    o.fan_log = fan_log;
    CudaReplay r(c, o);
    std::mt19937_64 rng(3);
    const int64_t chunk = 1 << 16;
    const HostBatch hb = MakeBatch(chunk, d, rng, 0);
    for (int64_t done = 0; done < c.capacity; done += chunk) {
      HostBatch part = hb;
      dqn::TransitionBatch v = part.view(false);
      v.count = std::min(chunk, c.capacity - done);
      r.insert(v);
    }
    const std::vector<float> td = SetEveryPriority(r, 1.f, rng);
    r.reserve_batch(256);
    r.set_batch_td(td.data(), 256);
    for (int i = 0; i < 4; ++i) r.run_step(256);
    r.synchronize();
    std::printf("profile K=%d: 4 steps done\n", 1 << fan_log);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return ToolMain(argc, argv, {{"check", Check}, {"bench", Bench}, {"profile", Profile}}); }
