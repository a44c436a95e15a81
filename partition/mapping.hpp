// Which MPI rank owns which block. Ranks form a px x py grid over the nbx x nby blocks:
//  - tiles (default): each rank owns one contiguous rectangle of blocks, the px x py that cuts the
//    fewest cells of face between ranks;
//  - cyclic: block (bx, by) goes to rank (bx mod px, by mod py), for experiments on communication
//    volume and load balance (every block face is then a rank boundary).
#pragma once
#include <string>
#include <vector>

#include "partition/decomposition.hpp"

namespace ondes {


struct RankMap {
  int ranks = 1, px = 1, py = 1;
  Mapping kind = Mapping::Tiles;
  std::vector<int> rank_of_block;

  int owner(int block) const { return rank_of_block[block]; }
};

// Every rank gets at least one block; throws std::invalid_argument when there are fewer blocks
// than ranks.
RankMap map_blocks(const Grid& g, const Decomposition& d, int ranks, Mapping kind);

// Cells of block faces between different ranks (each face counted once), for the communication
// volume a mapping implies: per iteration each such face sends 2 layers x (3 + 3) floats per cell
// of face each way.
long long cut_face_cells(const Decomposition& d, const RankMap& m);

// Bytes each rank sends per iteration under the mapping: for every block face between two ranks,
// each side sends its 2 edge layers of velocity (3 floats) and of stress (the 3 a neighbour reads:
// core/layout.hpp halo_component).
std::vector<long long> bytes_sent_per_iteration(const Decomposition& d, const RankMap& m);

}  // namespace ondes
