// Standalone checker and benchmark of the device environments (kernels/env_*.cu, the GPU
// collector of issue 24), built by `make env_cuda_tool` (CMake target, not built by default) and
// run on a GPU machine:
//   env_cuda_tool check   CartPole copies on the device against the host's CartPoleVecEnv, step
//                         by step on the same seeds and the same random actions: first
//                         observations, next and final observations, rewards, terminals,
//                         truncations and the f64 states, all bit for bit, for 1, 7, 300 and
//                         4,096 copies, episode limits 500 and 9 (truncations), 2,000 steps.
//                         Exit status 1 on any difference.
//   env_cuda_tool bench   device CartPole env steps per second (the step kernel alone, CUDA
//                         events over 1,000 steps) at 16, 256, 4,096 and 65,536 copies.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "cpu/rng.h"
#include "env/cartpole.h"
#include "kernels/env_launch.cuh"
#include "native/test/cuda/tool.h"

namespace {

using dqn::cuda::detail::CartPoleDevice;
using dqn::cuda::detail::EnvStepOut;

/// A device allocation of n elements of T, freed with the object.
template <typename T>
struct DeviceArray {
  explicit DeviceArray(size_t n) : n(n) { CudaOk(cudaMalloc(&ptr, n * sizeof(T)), "cudaMalloc"); }
  ~DeviceArray() { cudaFree(ptr); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  void upload(const std::vector<T>& v) { CudaOk(cudaMemcpy(ptr, v.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload"); }
  std::vector<T> download() const {
    std::vector<T> v(n);
    CudaOk(cudaMemcpy(v.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return v;
  }
  T* ptr = nullptr;
  size_t n;
};

/// n device CartPole copies whose streams start as the host's CartPoleVecEnv(n, seed, ...).
struct DeviceCartPole {
  DeviceCartPole(int n, uint64_t seed, int max_episode_steps) : state(4 * n), elapsed(n), rng(4 * n), obs(4 * n), next_obs(4 * n),
      final_obs(4 * n), rewards(n), terminated(n), truncated(n), actions(n) {
    std::vector<uint64_t> words(4 * static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const auto s = dqn::Rng(seed, 1000 + static_cast<uint64_t>(i)).state();  // CartPoleVecEnv's copy i
      std::memcpy(&words[4 * static_cast<size_t>(i)], s.data(), 32);
    }
    rng.upload(words);
    env = {state.ptr, elapsed.ptr, rng.ptr, n, max_episode_steps};
    out = {next_obs.ptr, rewards.ptr, terminated.ptr, truncated.ptr, final_obs.ptr};
  }
  DeviceArray<double> state;
  DeviceArray<int32_t> elapsed;
  DeviceArray<uint64_t> rng;
  DeviceArray<float> obs, next_obs, final_obs, rewards;
  DeviceArray<uint8_t> terminated, truncated;
  DeviceArray<int32_t> actions;
  CartPoleDevice env;
  EnvStepOut out;
};

/// Index of the first element where a and b differ bitwise, or -1.
template <typename T>
long FirstDifference(const std::vector<T>& a, const std::vector<T>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<long>(i);
  return -1;
}

/// Host and device copies side by side for `steps` steps; returns the failures counted.
int CompareCartPole(int n, uint64_t seed, int max_episode_steps, int steps) {
  const int before = g_failures;
  dqn::CartPoleVecEnv host(n, seed, max_episode_steps);
  DeviceCartPole dev(n, seed, max_episode_steps);
  const size_t n4 = 4 * static_cast<size_t>(n);
  std::vector<float> obs(n4), next_obs(n4), final_obs(n4), rewards(n);
  std::vector<uint8_t> terminated(n), truncated(n);
  std::vector<int32_t> actions(n);
  host.reset(obs.data());
  CudaOk(dqn::cuda::detail::LaunchCartPoleReset(dev.env, dev.obs.ptr, nullptr), "reset");
  long at = FirstDifference(obs, dev.obs.download());
  EXPECT(at < 0, "n=%d seed=%llu: first observations differ at %ld", n, static_cast<unsigned long long>(seed), at);
  std::mt19937 policy(static_cast<uint32_t>(seed));
  long episodes = 0, truncations = 0;
  for (int t = 0; t < steps && g_failures == before; ++t) {
    for (int& a : actions) a = static_cast<int>(policy() & 1);
    host.step(actions.data(), next_obs.data(), rewards.data(), terminated.data(), truncated.data(), final_obs.data());
    dev.actions.upload(actions);
    CudaOk(dqn::cuda::detail::LaunchCartPoleStep(dev.env, dev.actions.ptr, dev.out, nullptr), "step");
    const auto check = [&](const char* what, long diff) {
      EXPECT(diff < 0, "n=%d seed=%llu limit=%d: %s differ at step %d, element %ld", n, static_cast<unsigned long long>(seed),
             max_episode_steps, what, t, diff);
    };
    check("next observations", FirstDifference(next_obs, dev.next_obs.download()));
    check("final observations", FirstDifference(final_obs, dev.final_obs.download()));
    check("rewards", FirstDifference(rewards, dev.rewards.download()));
    check("terminals", FirstDifference(terminated, dev.terminated.download()));
    check("truncations", FirstDifference(truncated, dev.truncated.download()));
    for (int e = 0; e < n; ++e) episodes += terminated[e] | truncated[e], truncations += truncated[e];
  }
  std::vector<double> states(n4);
  for (int e = 0; e < n; ++e) std::memcpy(&states[4 * static_cast<size_t>(e)], host.state(e).data(), 32);
  at = FirstDifference(states, dev.state.download());
  EXPECT(at < 0, "n=%d seed=%llu: f64 states differ after %d steps at %ld", n, static_cast<unsigned long long>(seed), steps, at);
  std::printf("cartpole n=%-5d seed=%llu limit=%-3d %d steps, %ld episodes ended (%ld truncated): %s\n", n,
              static_cast<unsigned long long>(seed), max_episode_steps, steps, episodes, truncations,
              g_failures == before ? "bit for bit" : "DIFFERENT");
  return g_failures - before;
}

int Check() {
  for (const int n : {1, 7, 300, 4096})
    for (const int limit : {500, 9}) CompareCartPole(n, 11 + static_cast<uint64_t>(n), limit, 2000);
  std::printf("%s\n", g_failures == 0 ? "CHECK PASSED" : "CHECK FAILED");
  return g_failures == 0 ? 0 : 1;
}

int Bench() {
  for (const int n : {16, 256, 4096, 65536}) {
    DeviceCartPole dev(n, 1, 500);
    CudaOk(dqn::cuda::detail::LaunchCartPoleReset(dev.env, dev.obs.ptr, nullptr), "reset");
    std::vector<int32_t> actions(static_cast<size_t>(n));
    for (size_t i = 0; i < actions.size(); ++i) actions[i] = static_cast<int32_t>(i & 1);
    dev.actions.upload(actions);
    cudaEvent_t t0, t1;
    CudaOk(cudaEventCreate(&t0), "event");
    CudaOk(cudaEventCreate(&t1), "event");
    const int steps = 1000;
    CudaOk(cudaEventRecord(t0), "record");
    for (int t = 0; t < steps; ++t) CudaOk(dqn::cuda::detail::LaunchCartPoleStep(dev.env, dev.actions.ptr, dev.out, nullptr), "step");
    CudaOk(cudaEventRecord(t1), "record");
    CudaOk(cudaEventSynchronize(t1), "sync");
    float ms = 0;
    CudaOk(cudaEventElapsedTime(&ms, t0, t1), "elapsed");
    std::printf("cartpole device step, %6d copies: %.2f us per step, %.3g env steps/s\n", n, 1e3 * ms / steps, 1e3 * n * steps / ms);
    std::printf("JSON {\"bench\":\"env-cartpole\",\"copies\":%d,\"us_per_step\":%.3f,\"env_steps_per_s\":%.6g}\n", n, 1e3 * ms / steps,
                1e3 * n * steps / ms);
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return ToolMain(argc, argv, {{"check", Check}, {"bench", Bench}}); }
