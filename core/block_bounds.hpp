// Where an axis of a grid is cut into blocks: one definition for the decomposition
// (partition/decomposition.hpp) and the validation that refuses blocks too narrow to hold ghosts.
#pragma once
#include <vector>

namespace ondes {

// The first index of each block along an axis of n cells cut into `parts` blocks (sizes differing by
// at most one cell), then n. With an edge strip of w cells, every cut also gets a block w cells wide
// on each side of it.
inline std::vector<int> block_bounds(int n, int parts, int edge_strip) {
  std::vector<int> b{0};
  for (int p = 1; p < parts; ++p) {
    const int cut = static_cast<int>(static_cast<long>(n) * p / parts);
    if (edge_strip > 0) b.push_back(cut - edge_strip);
    b.push_back(cut);
    if (edge_strip > 0) b.push_back(cut + edge_strip);
  }
  b.push_back(n);
  return b;
}

}  // namespace ondes
