// Row-local programs of the learner's products (see LaunchRows in learner_launch.cuh): a forward
// pass whose every output row depends only on the same row of the phase before, so the block
// that owns a row tile (kTileRows rows) can walk every phase for it, one output tile after
// another, with block barriers between phases and no grid barrier. The tiles are the persistent
// kernel's own (learner_tile.cuh: Prepare and Tile, the same arithmetic on any block), so the
// outputs are bit for bit those of LaunchCore's phases over the same program.
//
// Why: the acting forward of the GPU collector is three to four latency-bound phases over a few
// to a few thousand rows; as grid phases each paid a tile round plus a grid barrier and the
// cooperative launch (18 µs at 16 copies, 36-38 µs at 4,096 on the H200, runs L44 and L47).
#include <cuda_runtime.h>

#include "kernels/learner_launch.cuh"
#include "kernels/learner_tile.cuh"

namespace dqn::cuda::detail {
namespace {

/// Block r walks every phase of the program for row tile r: for each problem with rows there,
/// its output tiles left to right.
template <Precision P>
__global__ void __launch_bounds__(tile::kThreads) RowsKernel(const __grid_constant__ CoreProgram prog) {
  __shared__ tile::Smem smem;
  const int r = static_cast<int>(blockIdx.x);
  tile::Job job;
  for (int ph = 0; ph < prog.phases; ++ph) {
    const Phase& phase = prog.phase[ph];
    int first = 0;  // the phase's number of problem q's first tile
    for (int q = 0; q < phase.count; ++q) {
      const GemmProblem& p = phase.p[q];
      const int tiles_n = (p.n + kTileCols - 1) / kTileCols;
      if (r * kTileRows < p.m)
        for (int c = 0; c < tiles_n; ++c) {
          tile::Prepare(phase, first + r * tiles_n + c, prog.group, job);
          tile::Tile<P>(p, job, smem, nullptr);
        }
      first += tile::TilesOf(p);
    }
    // This block's rows of the phase, written by its own threads, are read by the next phase.
    __syncthreads();
  }
}

}  // namespace

cudaError_t LaunchRows(const CoreProgram& program, Precision precision, cudaStream_t stream) {
  if (program.phases < 1 || program.phases > kMaxPhases || program.group.count != 1) return cudaErrorInvalidValue;
  int rows = 0;
  for (int ph = 0; ph < program.phases; ++ph) {
    const Phase& phase = program.phase[ph];
    if (phase.kind != PhaseKind::kGemm || phase.side != SideJob::kNone || phase.count < 1) return cudaErrorInvalidValue;
    for (int q = 0; q < phase.count; ++q) rows = phase.p[q].m > rows ? phase.p[q].m : rows;
  }
  if (rows < 1) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>((rows + kTileRows - 1) / kTileRows));
  switch (precision) {
    case Precision::kFP32: RowsKernel<Precision::kFP32><<<grid, tile::kThreads, 0, stream>>>(program); break;
    case Precision::kTF32: RowsKernel<Precision::kTF32><<<grid, tile::kThreads, 0, stream>>>(program); break;
    case Precision::kBF16: RowsKernel<Precision::kBF16><<<grid, tile::kThreads, 0, stream>>>(program); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace dqn::cuda::detail
