#include "partition/mapping.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace ondes {


namespace {

int range_of(int i, int n, int parts) {
  // The p with floor(n p / parts) <= i < floor(n (p + 1) / parts).
  int p = static_cast<int>(static_cast<long>(i) * parts / n);
  while (p + 1 < parts && static_cast<long>(n) * (p + 1) / parts <= i) ++p;
  while (p > 0 && static_cast<long>(n) * p / parts > i) --p;
  return p;
}

}  // namespace

RankMap map_blocks(const Grid& g, const Decomposition& d, int ranks, Mapping kind) {
  const int nblocks = d.nbx * d.nby;
  if (ranks < 1) throw std::invalid_argument("the number of ranks must be positive");
  if (ranks > nblocks)
    throw std::invalid_argument(fmt::format("{} ranks but only {} x {} = {} blocks: every rank needs a block; "
                                            "use --blocks with at least {} blocks",
                                            ranks, d.nbx, d.nby, nblocks, ranks));
  RankMap m;
  m.ranks = ranks;
  m.kind = kind;
  // The factorisation px x py = ranks (px <= nbx, py <= nby) with the fewest cells of cut face.
  long long best = std::numeric_limits<long long>::max();
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px) continue;
    const int py = ranks / px;
    if (px > d.nbx || py > d.nby) continue;
    const long long cut = static_cast<long long>(px - 1) * g.ny + static_cast<long long>(py - 1) * g.nx;
    if (cut < best) best = cut, m.px = px, m.py = py;
  }
  if (best == std::numeric_limits<long long>::max())
    throw std::invalid_argument(fmt::format("{} ranks do not tile {} x {} blocks (no px x py = {} with px <= {} "
                                            "and py <= {}); choose another --blocks",
                                            ranks, d.nbx, d.nby, ranks, d.nbx, d.nby));
  m.rank_of_block.resize(nblocks);
  for (const BlockInfo& b : d.blocks) {
    const int rx = kind == Mapping::Tiles ? range_of(b.bx, d.nbx, m.px) : b.bx % m.px;
    const int ry = kind == Mapping::Tiles ? range_of(b.by, d.nby, m.py) : b.by % m.py;
    m.rank_of_block[b.id] = ry * m.px + rx;
  }
  return m;
}

long long cut_face_cells(const Decomposition& d, const RankMap& m) {
  long long cells = 0;
  for (const BlockInfo& b : d.blocks)
    for (int dir : {XP, YP}) {
      const int nb = b.neighbour[dir];
      if (nb >= 0 && m.owner(nb) != m.owner(b.id))
        cells += static_cast<long long>(dir == XP ? b.shape.ny : b.shape.nx) * b.shape.nz;
    }
  return cells;
}

std::vector<long long> bytes_sent_per_iteration(const Decomposition& d, const RankMap& m) {
  std::vector<long long> bytes(m.ranks, 0);
  for (const BlockInfo& b : d.blocks)
    for (int dir = 0; dir < kDirections; ++dir) {
      const int nb = b.neighbour[dir];
      if (nb >= 0 && m.owner(nb) != m.owner(b.id))
        bytes[m.owner(b.id)] += sizeof(float) * 2 * boundary_floats(b.shape, dir);
    }
  return bytes;
}

}  // namespace ondes
