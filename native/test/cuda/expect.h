// The CUDA tools' soft assertion: EXPECT(cond, fmt, ...) prints the failed condition with a
// message and counts it in g_failures; the tool's check mode exits non-zero when any failed.
#pragma once
#include <cstdio>

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
