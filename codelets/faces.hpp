// The fields Ondes3D computes at the grid's faces (PmlProfile::Ondes3d, StepParams::ondes3d_faces;
// core/case.hpp says why): after each update the block's fields Ondes3D holds at zero there are
// zero again. Its WhereAmI (original/src/inlineFunctions.h) computes cells MIN - DELTA + 2 ..
// MAX + DELTA and holds the next ones (LIMIT) at zero; its vx sits west of its normal stresses and
// its vz above them, ours east and below, so on the .prm grid (one cell more west, io/ondes3d/ondes3d_prm.cpp):
//   y-low face (bit 0), plane j = 0: the fields at integer y (vx, vz; sxx, syy, szz, sxz) are its
//     LIMIT cells beside its first vx plane;
//   y-high face (bit 1), plane j = ny - 1: the fields at half y (vy; sxy, syz) are its LIMIT vx plane;
//   bottom (bit 2), plane k = nz - 1: the fields at half z (vz; sxz, syz) are its LIMIT vz plane;
//   x-high face (bit 3): its LIMIT cells lie beyond the grid, in the ghosts (zero), and nothing is
//     held; only its free surface's velocity above them is (codelets/surface.hpp surface_vz_above).
// Their updates may have gone into the boundary buffers already (the CUDA kernels save the edges as
// they write them): a neighbour reads them only into derivatives along the face for fields that are
// themselves zeroed here, so no value that matters leaves the block.
#pragma once
#include "codelets/kernel_support.hpp"

namespace ondes {

// The components of field kind `kind` held at zero on face bit `face` (a mask over components).
ONDES_HD inline int frozen_components(int kind, int face) {
  if (kind == kVelocityKind) return face == 0 ? (1 << VX) | (1 << VZ) : face == 1 ? 1 << VY : 1 << VZ;
  return face == 0   ? (1 << SXX) | (1 << SYY) | (1 << SZZ) | (1 << SXZ)
         : face == 1 ? (1 << SXY) | (1 << SYZ)
                     : (1 << SXZ) | (1 << SYZ);
}

// The components of field kind `kind` at row y, plane z of a block of shape sh held at zero (a mask
// over components): Ondes3D's LIMIT points on the block's faces in `faces` (StepParams::ondes3d_faces).
ONDES_HD inline int frozen_mask(const BlockShape& sh, int faces, int kind, int y, int z) {
  return ((faces & 1) && y == 0 ? frozen_components(kind, 0) : 0) |
         ((faces & 2) && y == sh.ny - 1 ? frozen_components(kind, 1) : 0) |
         ((faces & 4) && z == sh.nz - 1 ? frozen_components(kind, 2) : 0);
}

// Element e of face `face`'s plane (x fastest; nx * nz cells for the y faces, nx * ny for the
// bottom): its padded index.
ONDES_HD inline int64_t face_cell(const BlockShape& sh, int face, int64_t e) {
  const int i = int(e % sh.nx);
  const int64_t r = e / sh.nx;
  return face == 2 ? sh.idx(i, int(r), sh.nz - 1) : sh.idx(i, face == 0 ? 0 : sh.ny - 1, int(r));
}
ONDES_HD inline int64_t face_cells(const BlockShape& sh, int face) {
  return int64_t(sh.nx) * (face == 2 ? sh.ny : sh.nz);
}
ONDES_HD inline void freeze_cell(const BlockShape& sh, int kind, int face, float* f, int64_t e) {
  const int64_t q = face_cell(sh, face, e), n = sh.cells();
  const int mask = frozen_components(kind, face), nc = kind == kVelocityKind ? kVelocityComponents : kStressComponents;
  for (int c = 0; c < nc; ++c)
    if ((mask >> c) & 1) f[c * n + q] = 0.0f;
}

}  // namespace ondes

// Nothing where the block has none of those faces (ondes3d_faces 0: every other case).
namespace ondes::cpu {
void freeze_faces(const StepParams& p, int kind, float* field);
}  // namespace ondes::cpu

namespace ondes::cuda {
void freeze_faces(const StepParams& p, int kind, float* field, cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

void freeze_faces(const StepParams& p, int kind, float* field) {
  for (int face = 0; face < 3; ++face)
    if ((p.ondes3d_faces >> face) & 1)
      for (int64_t e = 0, n = face_cells(p.shape, face); e < n; ++e) freeze_cell(p.shape, kind, face, field, e);
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

// Element e of the faces in mask `faces`, one after the other: one launch for all of them.
__global__ void freeze_kernel(BlockShape sh, int kind, int faces, float* f) {
  int64_t e = thread_index();
  for (int face = 0; face < 3; ++face)
    if ((faces >> face) & 1) {
      const int64_t n = face_cells(sh, face);
      if (e < n) return freeze_cell(sh, kind, face, f, e);
      e -= n;
    }
}

}  // namespace

void freeze_faces(const StepParams& p, int kind, float* field, cudaStream_t stream) {
  int64_t cells = 0;
  for (int face = 0; face < 3; ++face)
    if ((p.ondes3d_faces >> face) & 1) cells += face_cells(p.shape, face);
  if (cells == 0) return;
  freeze_kernel<<<unsigned(blocks_for(cells, 256)), 256, 0, stream>>>(p.shape, kind, p.ondes3d_faces, field);
  check_launch("freeze_kernel");
}

}  // namespace ondes::cuda
#endif
