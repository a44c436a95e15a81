// The checkpoint's selections of a block's padded arrays (io/results/checkpoint.cpp): the slab of its
// interior columns, and Ondes3D's surface state past the grid's last column and row.
#pragma once
#include <hdf5.h>

#include <vector>

#include "core/layout.hpp"
#include "io/results/h5util.hpp"

namespace ondes::checkpoint_slabs {

using h5::check;
using h5::Id;

inline hsize_t planes(const Grid& g) { return static_cast<hsize_t>(g.nz) + 2 * kGhost; }

// The interior columns of a block, every z plane with its ghosts, as a selection of the global
// array (file) and of the block's padded array (memory); or the first `top` padded planes of nx x ny
// columns from the block's first (0: the default).
struct BlockSlab {
  Id file_space, mem_space;
};
inline BlockSlab block_slab(hid_t dataset, int ncomp, int x0, int y0, const BlockShape& s, hsize_t top = 0, hsize_t nx = 0,
                     hsize_t ny = 0) {
  BlockSlab b{{H5Dget_space(dataset), H5Sclose}, {-1, H5Sclose}};
  const hsize_t nzp = static_cast<hsize_t>(s.nz) + 2 * kGhost;
  hsize_t start[4] = {0, 0, static_cast<hsize_t>(y0), static_cast<hsize_t>(x0)};
  hsize_t count[4] = {static_cast<hsize_t>(ncomp), top ? top : nzp, ny ? ny : static_cast<hsize_t>(s.ny),
                      nx ? nx : static_cast<hsize_t>(s.nx)};
  check(H5Sselect_hyperslab(b.file_space, H5S_SELECT_SET, start, nullptr, count, nullptr), "file selection");
  hsize_t mem_dims[4] = {static_cast<hsize_t>(ncomp), nzp, static_cast<hsize_t>(s.ny) + 2 * kGhost,
                         static_cast<hsize_t>(s.nx) + 2 * kGhost};
  b.mem_space.id = H5Screate_simple(4, mem_dims, nullptr);
  hsize_t mem_start[4] = {0, 0, kGhost, kGhost};
  check(H5Sselect_hyperslab(b.mem_space, H5S_SELECT_SET, mem_start, nullptr, count, nullptr), "memory selection");
  return b;
}

// Ondes3D's surface keeps state above the grid's +x and +y faces (codelets/surface.hpp: Sz and Svy of
// the column past the last cell, in the velocity's top ghost planes), which the fields' arrays do not
// reach: /fields/surface_edge_x [3][kGhost][ny] (column nx) and _y [3][kGhost][nx] (row ny). A block
// on that face writes its part from its padded velocity `from`, or reads it into `into`.
inline void surface_edge(hid_t dataset, const BlockShape& s, int along0, bool x_face, const float* from, float* into) {
  const int n = x_face ? s.ny : s.nx;
  std::vector<float> edge(size_t(kVelocityComponents) * kGhost * n);
  Id fs{H5Dget_space(dataset), H5Sclose};
  const hsize_t start[3] = {0, 0, static_cast<hsize_t>(along0)};
  const hsize_t count[3] = {kVelocityComponents, kGhost, static_cast<hsize_t>(n)};
  check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, nullptr, count, nullptr), "surface edge selection");
  Id ms{H5Screate_simple(3, count, nullptr), H5Sclose};
  auto at = [&](int c, int g, int q) {
    return c * s.cells() + (x_face ? s.idx(s.nx, q, g - kGhost) : s.idx(q, s.ny, g - kGhost));
  };
  if (into) check(H5Dread(dataset, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, edge.data()), "surface edge");
  size_t e = 0;
  for (int c = 0; c < kVelocityComponents; ++c)
    for (int g = 0; g < kGhost; ++g)
      for (int q = 0; q < n; ++q, ++e) into ? void(into[at(c, g, q)] = edge[e]) : void(edge[e] = from[at(c, g, q)]);
  if (from) check(H5Dwrite(dataset, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, edge.data()), "surface edge");
}

}  // namespace ondes::checkpoint_slabs
