// Where an axis of a grid is cut into blocks: one definition for the decomposition
// (partition/decomposition.hpp), through physics/pml.hpp's block_cuts for a case, which the
// validation that refuses blocks too narrow to hold ghosts reads too.
#pragma once
#include <vector>

namespace ondes {

// The first index of each block along an axis of n cells cut into `parts` blocks, then n. Without
// weights the blocks' sizes differ by at most one cell; with the cost of each index along the axis
// (weight, n values) every block gets about the same total cost: cut p at the index boundary
// closest to p / parts of the whole. With an edge strip of w cells, every cut also gets a block w
// cells wide on each side of it.
inline std::vector<int> block_bounds(int n, int parts, int edge_strip, const std::vector<double>& weight = {}) {
  std::vector<double> before;  // before[i]: the cost of indices [0, i)
  if (static_cast<int>(weight.size()) == n) {
    before.assign(n + 1, 0.0);
    for (int i = 0; i < n; ++i) before[i + 1] = before[i] + weight[i];
  }
  // Blocks 128 cells wide or more keep weighted cuts on multiples of 8 cells, the CUDA kernels' tile
  // (32 x 8 cells): a cut elsewhere leaves a partial tile in every block (docs/performance.md,
  // Decisions: cuts on tiles). A block that wide holds few PML cells for its size: what rounding
  // loses of the balance is small.
  const int granule = n / parts >= 128 ? 8 : 1;
  auto cut_at = [&](int p) {
    if (before.empty()) return static_cast<int>(static_cast<long>(n) * p / parts);
    const double goal = before[n] * p / parts;
    int i = 0;
    while (i < n && before[i + 1] <= goal) ++i;  // before[i] <= goal < before[i + 1]
    const int cut = i < n && goal - before[i] > before[i + 1] - goal ? i + 1 : i;
    return (cut + granule / 2) / granule * granule;
  };
  std::vector<int> b{0};
  for (int p = 1; p < parts; ++p) {
    const int cut = cut_at(p);
    if (edge_strip > 0) b.push_back(cut - edge_strip);
    b.push_back(cut);
    if (edge_strip > 0) b.push_back(cut + edge_strip);
  }
  b.push_back(n);
  return b;
}

}  // namespace ondes
