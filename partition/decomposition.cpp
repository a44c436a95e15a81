#include "partition/decomposition.hpp"

namespace ondes {

namespace {
int split(int n, int parts, int p) { return static_cast<int>(static_cast<long>(n) * p / parts); }
}  // namespace

Decomposition decompose(const Grid& g, int nbx, int nby) {
  Decomposition d;
  d.nbx = nbx;
  d.nby = nby;
  for (int by = 0; by < nby; ++by)
    for (int bx = 0; bx < nbx; ++bx) {
      BlockInfo b;
      b.id = by * nbx + bx;
      b.bx = bx;
      b.by = by;
      b.x0 = split(g.nx, nbx, bx);
      b.y0 = split(g.ny, nby, by);
      b.shape = {split(g.nx, nbx, bx + 1) - b.x0, split(g.ny, nby, by + 1) - b.y0, g.nz};
      b.neighbour[XM] = bx > 0 ? b.id - 1 : -1;
      b.neighbour[XP] = bx < nbx - 1 ? b.id + 1 : -1;
      b.neighbour[YM] = by > 0 ? b.id - nbx : -1;
      b.neighbour[YP] = by < nby - 1 ? b.id + nbx : -1;
      d.blocks.push_back(b);
    }
  return d;
}

}  // namespace ondes
