#include "partition/decomposition.hpp"

#include "physics/pml.hpp"

namespace ondes {

Decomposition decompose(const Case& c) {
  return decompose(block_cuts(c, 0), block_cuts(c, 1), c.grid.nz);
}

Decomposition decompose(const Grid& g, int nbx_cuts, int nby_cuts, int edge_strip) {
  return decompose(block_bounds(g.nx, nbx_cuts, edge_strip), block_bounds(g.ny, nby_cuts, edge_strip), g.nz);
}

Decomposition decompose(const std::vector<int>& xs, const std::vector<int>& ys, int nz) {
  Decomposition d;
  const int nbx = d.nbx = static_cast<int>(xs.size()) - 1;
  const int nby = d.nby = static_cast<int>(ys.size()) - 1;
  for (int by = 0; by < nby; ++by)
    for (int bx = 0; bx < nbx; ++bx) {
      BlockInfo b;
      b.id = by * nbx + bx;
      b.bx = bx;
      b.by = by;
      b.x0 = xs[bx];
      b.y0 = ys[by];
      b.shape = {xs[bx + 1] - b.x0, ys[by + 1] - b.y0, nz};
      b.neighbour[XM] = bx > 0 ? b.id - 1 : -1;
      b.neighbour[XP] = bx < nbx - 1 ? b.id + 1 : -1;
      b.neighbour[YM] = by > 0 ? b.id - nbx : -1;
      b.neighbour[YP] = by < nby - 1 ? b.id + nbx : -1;
      d.blocks.push_back(b);
    }
  return d;
}

}  // namespace ondes
