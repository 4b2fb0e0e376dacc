// Shape of the CUDA replay's K-ary sum tree (see kernels/replay_launch.cuh for the layout).
#include <stdexcept>
#include <string>

#include "kernels/replay_launch.cuh"

namespace dqn::cuda::detail {

TreeLayout MakeTreeLayout(int64_t capacity, int fan_log) {
  if (fan_log < 1 || fan_log > 5) throw std::invalid_argument("tree fan-out must be 2^1 .. 2^5, got 2^" + std::to_string(fan_log));
  if (capacity < 1) throw std::invalid_argument("capacity must be >= 1, got " + std::to_string(capacity));
  const int64_t k = int64_t{1} << fan_log;
  // needed[l]: nodes of level l that cover a stored slot, bottom up until one node remains.
  int64_t needed[kMaxTreeLevels + 1];
  int levels = 0;
  int64_t n = capacity;
  do {
    if (levels >= kMaxTreeLevels) throw std::invalid_argument("capacity " + std::to_string(capacity) + " needs too deep a tree");
    needed[levels++] = n;
    n = (n + k - 1) / k;
  } while (needed[levels - 1] > 1 || levels == 1);
  TreeLayout t;
  t.fan_log = fan_log;
  t.levels = levels - 1;  // needed[levels-1] == 1 is the root
  int64_t offset = 0;
  for (int l = 0; l <= t.levels; ++l) {
    // Level l holds K children for every needed node of level l-1; offsets stay K-aligned so
    // a node's children are read as 16-byte vectors.
    const int64_t parents = l == 0 ? 0 : needed[t.levels - l + 1];
    t.count[l] = l == 0 ? 1 : k * parents;
    t.offset[l] = offset;
    offset += (t.count[l] + k - 1) / k * k;
  }
  t.nodes = offset;
  // needed[L - l] belongs to level l.
  t.part_level = 1;
  while (t.part_level < t.levels && needed[t.levels - t.part_level] <= kTopLevelNodes) ++t.part_level;
  return t;
}

}  // namespace dqn::cuda::detail
