// Scaffolding shared by the CUDA tools (replay_cuda_tool, learner_cuda_tool, env_cuda_tool): the
// soft assertion EXPECT(cond, fmt, ...), which prints the failed condition with a message and
// counts it in g_failures (a check mode exits non-zero when any failed), CudaOk, and ToolMain,
// the tools' main.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

inline int g_failures = 0;

#define EXPECT(cond, ...)                                         \
  do {                                                            \
    if (!(cond)) {                                                \
      ++g_failures;                                               \
      std::printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::printf(__VA_ARGS__);                                   \
      std::printf("\n");                                          \
    }                                                             \
  } while (0)

/// @throws std::runtime_error "<what>: <CUDA's message>" unless e is cudaSuccess.
inline void CudaOk(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// Prints the device, runs the mode named by argv[1] ("check" when absent) and returns its exit
/// status: 1 without a CUDA device or when the mode throws (the message is printed), 2 for an
/// unknown mode (with the usage line).
inline int ToolMain(int argc, char** argv, std::initializer_list<std::pair<const char*, int (*)()>> modes) {
  const char* mode = argc > 1 ? argv[1] : "check";
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a line at a time: what ran before a crash stays in the log
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    std::printf("no CUDA device\n");
    return 1;
  }
  std::printf("device: %s, %d SMs, %.0f MB L2\n", p.name, p.multiProcessorCount, p.l2CacheSize / 1e6);
  for (const auto& [name, run] : modes) {
    if (std::strcmp(mode, name) != 0) continue;
    try {
      return run();
    } catch (const std::exception& e) {
      std::printf("ERROR: %s\n", e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "usage: %s", argv[0]);
  for (const auto& m : modes) std::fprintf(stderr, " %s%s", m.first, &m == modes.end() - 1 ? "" : " |");
  std::fprintf(stderr, "\n");
  return 2;
}
