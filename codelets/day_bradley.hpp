// Ondes3D's Day and Bradley attenuation where its code writes out of place (physics/attenuation.hpp
// day_bradley_relaxation; the rest of the method is anelastic.hpp's anelastic_stress): in
// computeIntermediates.c LocalComputeDayBradley the yz drive of cell (i, j, k) is stored at
// fyz[i][j][j], not [i][j][k]. Its 3D arrays are one allocation (nrutil.c d3tensor), so each
// column's drive lands one cell further along its y at the level k = j - (the levels of a column):
// that cell's yz memory relaxes towards the drive of the column's last cell below the surface (its
// k = 0), read back there twice (fyzB + fyz), while every other cell's yz keeps no memory. Its yz
// is our sxz; its y our x. In our indices the driven cell of column (x, y) lies at
// z = origin[2] - 1 - (x + origin[0] + yz_skew) (AnelasticView: its k = jmp + yz_skew; our sxz's
// k is its yz's 1 - k less one), driven by the cell (x - 1, y, 0) of the grid. (A column whose drive
// lands two columns over, beyond a y extent of about the column's levels, gives k > 0: left out.)
// A geological grid's columns hold more levels (ZMAX0 - ZMIN + DELTA + 1) than its local j
// reaches: the drive of cell (i, j, k) lands in its own column at k = j, whose memory then relaxes
// towards the drives of its k - 1 and k (fyzB, left by the cell below, and its own); its model's
// top cells are vacuum, so a column whose write lands one over drives nothing (AnelasticView::
// yz_levels). A single-process run of Ondes3D: its local j is its global jmp less a constant,
// which yz_skew holds (core/case.hpp DayBradley).
#pragma once
#include "codelets/edges.hpp"
#include "codelets/material.hpp"
#include "codelets/stencil.hpp"

namespace ondes {

ONDES_CELL int ondes3d_sxz_level(const AnelasticView& a, int x) {
  return a.origin[2] - 1 - (x + a.origin[0] + a.yz_skew);
}

// Ondes3D's yz drive of the sxz point (x, y, z) (block indices: Hooke's rate there, its material
// as the stress update reads it) times the gain of mechanism m for the point's shear Q.
ONDES_CELL float ondes3d_sxz_drive(const StepParams& p, const float* v, const float* mat, const AnelasticView& a,
                                   int x, int y, int z, int m) {
  const BlockShape& sh = p.shape;
  const int64_t q = sh.idx(x, y, z);
  const Diffs d = stress_diffs(array_at(v, sh, q), z_plane(z, p.free_surface));
  const Moduli u = p.uniform_planes  ? elastic_moduli(plane_at(mat, sh, z))
                   : p.node_material ? elastic_moduli(node_classes(mat, sh).at(q))
                                     : elastic_moduli(array_at(mat, sh, q));
  const CellRelaxation r = a.relaxation<1>(x, y, z, q);
  return r.shear(SXZ)[2 * (m - a.cube_cell(x, y, z))] * (p.dt_h * u.mxz * (d.d[5] + d.d[6]));
}

// Column (x, y)'s driven cell (block indices): its sxz memory and stress, its level returned (-1
// where the column has none in the block). Its memory follows Ondes3D's ksi' = ((tk/dt - 1/2) ksi +
// (fyzB + fyz) / 2) / (tk/dt + 1/2), the stress taking -dt ksi'. Next column (yz_levels 0): both
// are the drive left in the slot, the last cell below the surface of column x - 1 (its k = 0; a
// column whose driving cell lies outside the grid has none). Same column (a geological grid): the
// driven cell is the column's own at its k = its local j, fyzB the drive of the cell below it
// (its k - 1, computed first in the same step; none where that cell is not computed, the grid's
// last level) and fyz its own.
ONDES_CELL int ondes3d_sxz_column(const StepParams& p, float* s, const float* v, const float* mat,
                                  const AnelasticView& a, int x, int y) {
  const BlockShape& sh = p.shape;
  if (a.yz_skew == kNoSkew) return -1;
  const int z = ondes3d_sxz_level(a, x) - (a.yz_levels ? a.yz_levels + 1 : 0);
  // Its k <= 0 (k = 1 is Ondes3D's surface, whose yz it does not relax) or, on a geological grid,
  // its k >= its lowest computed level (our last plane's sxz point lies below it).
  if (z < 0 || z >= sh.nz - (a.yz_levels ? 1 : 0)) return -1;
  const int m = a.ondes3d_cell(SXZ, x, y, z);
  float drive;
  if (a.yz_levels) {
    const float below = z + 1 < sh.nz - 1 ? ondes3d_sxz_drive(p, v, mat, a, x, y, z + 1, m) : 0.0f;
    drive = 0.5f * (below + ondes3d_sxz_drive(p, v, mat, a, x, y, z, m));
  } else {
    if (x - 1 + a.x0 < 0) return -1;  // the driving column's first x in the grid
    drive = ondes3d_sxz_drive(p, v, mat, a, x - 1, y, 0, m);
  }
  const int64_t n = sh.cells(), g = sh.idx(x, y, z);
  float& memory = a.memory[SXZ * n + g];
  memory = a.decay[m] * memory + drive;
  s[SXZ * n + g] -= memory;
  return z;
}

}  // namespace ondes

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {
inline void ondes3d_sxz_columns(const StepParams& p, float* s, const float* v, const float* mat,
                                const AnelasticView& a) {
  if (a.yz_skew == kNoSkew) return;
  for (int y = 0; y < p.shape.ny; ++y)
    for (int x = 0; x < p.shape.nx; ++x) ondes3d_sxz_column(p, s, v, mat, a, x, y);
}
}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
// One thread a column; the driven cell's edges saved again where the stress kernels saved them.
__global__ void ondes3d_sxz_kernel(StepParams p, float* s, const float* v, const float* mat, AnelasticView a,
                                   BoundaryBuffers e) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.shape.nx || y >= p.shape.ny) return;
  const int z = ondes3d_sxz_column(p, s, v, mat, a, x, y);
  if (z >= 0) save_cell_edges(p.shape, e, kStressKind, s, p.shape.idx(x, y, z), x, y, z);
}
}  // namespace ondes::cuda
#endif
