// The XY block decomposition: nbx x nby blocks, each with the full z column; block sizes differ by
// at most one cell, or (run.balance = "pml") blocks at the faces are narrower so that every block
// holds about the same work with its PML cells. With an edge strip of w cells, every cut between
// two blocks also gets a block w cells wide on each side of it (run.edge_strip): the cells a
// neighbour on another rank or GPU waits for are then a task of their own, computed and sent while
// the rest of the block computes.
#pragma once
#include <array>
#include <vector>

#include "core/block_bounds.hpp"
#include "core/layout.hpp"
#include "core/case.hpp"

namespace ondes {

struct BlockInfo {
  int id = 0, bx = 0, by = 0;
  int x0 = 0, y0 = 0;  // global index of the first interior cell
  BlockShape shape;
  std::array<int, kDirections> neighbour{{-1, -1, -1, -1}};  // block id, or -1 at the domain edge

  bool contains(int gi, int gj) const {
    return gi >= x0 && gi < x0 + shape.nx && gj >= y0 && gj < y0 + shape.ny;
  }
};

struct Decomposition {
  int nbx = 1, nby = 1;
  std::vector<BlockInfo> blocks;
};

// Even cuts (block sizes within one cell).
Decomposition decompose(const Grid& g, int nbx, int nby, int edge_strip = 0);
// The case's own: its grid, run.blocks, run.edge_strip and run.balance.
Decomposition decompose(const Case& c);
// Blocks between the given cuts along x and y (block_bounds, block_cuts), each with nz planes.
Decomposition decompose(const std::vector<int>& xs, const std::vector<int>& ys, int nz);

}  // namespace ondes
