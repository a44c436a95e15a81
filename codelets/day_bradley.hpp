// Ondes3D's Day and Bradley attenuation where its code writes out of place (physics/attenuation.hpp
// day_bradley_relaxation; the rest of the method is stencil.hpp's add_stress_anelastic): in
// computeIntermediates.c LocalComputeDayBradley the yz drive of cell (i, j, k) is stored at
// fyz[i][j][j], not [i][j][k]. Its 3D arrays are one allocation (nrutil.c d3tensor), so each
// column's drive lands one cell further along its y at the level k = j - (the levels of a column):
// that cell's yz memory relaxes towards the drive of the column's last cell below the surface (its
// k = 0), read back there twice (fyzB + fyz), while every other cell's yz keeps no memory. Its yz
// is our sxz; its y our x. In our indices the driven cell of column (x, y) lies at
// z = origin[2] - 1 - (x + origin[0] + yz_skew) (AnelasticView: its k = jmp + yz_skew; our sxz's
// k is its yz's 1 - k less one), driven by the cell (x - 1, y, 0) of the grid. (A column whose drive
// lands two columns over, beyond a y extent of about the column's levels, gives k > 0: left out.) A single-process run of Ondes3D: its local j is its global jmp
// less a constant, which yz_skew holds (physics/attenuation.hpp DayBradley::yz_skew).
#pragma once
#include "codelets/edges.hpp"
#include "codelets/material.hpp"
#include "codelets/stencil.hpp"

namespace ondes {

ONDES_CELL int ondes3d_sxz_level(const AnelasticView& a, int x) {
  return a.origin[2] - 1 - (x + a.origin[0] + a.yz_skew);
}

// Column (x, y)'s driven cell (block indices): its sxz memory and stress, its padded index returned
// (-1 where the column has none in the block, or its driving cell lies outside the grid). Its memory
// follows Ondes3D's ksi' = ((tk/dt - 1/2) ksi + fyz) / (tk/dt + 1/2), the stress taking -dt ksi'.
ONDES_CELL int64_t ondes3d_sxz_column(const StepParams& p, float* s, const float* v, const float* mat,
                                      const AnelasticView& a, int x, int y) {
  const BlockShape& sh = p.shape;
  const int z = ondes3d_sxz_level(a, x);
  // Its k <= 0 (k = 1 is Ondes3D's surface, whose yz it does not relax), and the driving column's
  // first x in the grid.
  if (a.yz_skew == kNoSkew || z < 0 || z >= sh.nz || x - 1 + a.x0 < 0) return -1;
  const int64_t n = sh.cells(), g = sh.idx(x, y, z), src = sh.idx(x - 1, y, 0);
  const int plane = z_plane(0, p.free_surface);
  const Diffs d = stress_diffs(array_at(v, sh, src), plane);
  const Moduli u = p.uniform_planes ? elastic_moduli(plane_at(mat, sh, 0)) : elastic_moduli(array_at(mat, sh, src));
  const float rate = p.dt_h * u.mxz * (d.d[5] + d.d[6]);
  // The driving cell's shear gains (its class) for the driven point's mechanism.
  const CellRelaxation from = a.relaxation<1>(x - 1, y, 0, src);
  const int m = a.ondes3d_cell(SXZ, x, y, z);
  const float gs = from.s[2 * (m - a.cube_cell(x - 1, y, 0))];
  float& memory = a.memory[SXZ * n + g];
  memory = a.decay[m] * memory + gs * rate;
  s[SXZ * n + g] -= memory;
  return g;
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
  const int64_t g = ondes3d_sxz_column(p, s, v, mat, a, x, y);
  if (g >= 0) save_cell_edges(p.shape, e, kStressKind, s, g, x, y, ondes3d_sxz_level(a, x));
}
}  // namespace ondes::cuda
#endif
