// CUDA graphs of the backend's repeated work (see graph.h).
#include "cuda/graph.h"

#include "cuda/status.h"

namespace dqn::cuda {

void CaptureGraph(cudaStream_t s, cudaGraphExec_t* exec, const std::function<void()>& queue) {
  DestroyGraph(exec);
  Check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "starting a graph's capture");
  cudaGraph_t graph = nullptr;
  try {
    queue();
  } catch (...) {
    cudaStreamEndCapture(s, &graph);
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    throw;
  }
  Check(cudaStreamEndCapture(s, &graph), "capturing a graph");
  const cudaError_t e = cudaGraphInstantiate(exec, graph, 0);
  cudaGraphDestroy(graph);
  Check(e, "instantiating a graph");
}

void RunGraph(cudaStream_t s, bool graph, cudaGraphExec_t* exec, const char* what, const std::function<void()>& queue) {
  if (!graph) {
    queue();
    return;
  }
  if (!*exec) CaptureGraph(s, exec, queue);
  Check(cudaGraphLaunch(*exec, s), what);
}

void DestroyGraph(cudaGraphExec_t* exec) {
  if (*exec) cudaGraphExecDestroy(*exec), *exec = nullptr;
}

}  // namespace dqn::cuda
