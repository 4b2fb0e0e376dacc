// Counted host synchronizations (see sync.h).
#include "cuda/sync.h"

#include <atomic>

#include "cuda/status.h"

namespace dqn::cuda {
namespace {
std::atomic<int64_t> g_syncs{0};
}  // namespace

void Synchronize(cudaStream_t stream, const char* what) {
  g_syncs.fetch_add(1, std::memory_order_relaxed);
  Check(cudaStreamSynchronize(stream), what);
}

cudaError_t SynchronizeNoThrow(cudaStream_t stream) {
  g_syncs.fetch_add(1, std::memory_order_relaxed);
  return cudaStreamSynchronize(stream);
}

void WaitEvent(cudaEvent_t event, const char* what) {
  g_syncs.fetch_add(1, std::memory_order_relaxed);
  Check(cudaEventSynchronize(event), what);
}

int64_t SyncCount() { return g_syncs.load(std::memory_order_relaxed); }

}  // namespace dqn::cuda
