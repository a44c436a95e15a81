// Ondes3D's free surface (SurfaceScheme::Ondes3d, StepParams::free_surface == kOndes3dSurface): the velocities
// above the surface that keep the 4th-order z differences of the stresses just below it.
//
// Read from original/src/computeVeloAndSource.c, computeVelocity, FREESURFACE branch (its axes:
// x east = our y, y north = our x, z up; its k = 1 is our surface plane 0, its k = 0 our plane 1):
//   vz(k=1)  = vz(k=0) - r (vx(i+1) - vx(i)) - r (vy(j) - vy(j-1))     half a cell above, from
//              dt szz = 0 with r = lambda / (lambda + 2 mu) (its kap, mu of the top layer),
//   vx(k=2)  = vx(1) - (vz(i, 1) - vz(i-1, 1)) - (vx(1) - vx(0) + vz(i, 0) - vz(i-1, 0)),
//   vy(k=2)  = vy(1) - (vz(j+1, 1) - vz(j, 1)) - (vy(1) - vy(0) + vz(j+1, 0) - vz(j, 0))
// (Graves 1996), each in the cell's turn of its loop, east outer, north inner: what a neighbour
// east (i+1) or north (j+1) holds then is the previous step's. So here, our (i, j) its (j, i) and
// our vz its -vz (z down):
//   vza(i, j) = vz'(i, j, 0) + r (Svy(i, j) - vy'(i, j-1, 0)) + r (vx'(i, j, 0) - vx'(i-1, j, 0)),
//   vy(i, j, -1) = vy'(0) + (vza(i, j+1) - vza(i, j)) - (vy'(0) - vy'(1) - vz'(i, j+1, 0) + vz'(0)),
//   vx(i, j, -1) = vx'(0) + (Sz(i+1, j) - vza(i, j) - vz'(0)) - (vx'(0) - vx'(1)),
// ' the step's values, Svy the previous step's vy at the surface, Sz the previous step's
// vza + vz(0). They are computed at the start of the stress update, once the neighbours' velocities
// are in (their boundary buffers), over the block's columns and one more row and column (i = nx,
// j = ny), which are the neighbours' and so need their previous values: the block keeps Svy and Sz
// in its velocity array's plane -2 (vy and vx), which no stencil reads, for [0, nx] x [0, ny]. The
// corner column (nx, ny) is never needed; column (-1, ny) and (nx, -1) are, which no halo carries:
// blocks must be cut along one axis only (plan/run_plan.cpp), so that those lie outside the grid.
// Where Ondes3D's loop order differs (the strips it computes first for its MPI exchanges, in its
// C-PML) this follows the interior rule. In its C-PML's columns (FREEABS at k = 1) its vz(k=1)
// reads the cell's own vx(i), vy(j) before their C-PML terms are added and then takes a C-PML term
// of its own (free_abs_term): followed where Kristek and Moczo runs (FreeAbs), whose memory above
// the surface grows from those velocities; elsewhere the interior rule (docs/user-guide.md). It
// reads the C-PML memory of the column's neighbours, which no halo carries: Kristek and Moczo runs
// as one block.
// With its q0 damping (ANOTHER, Q0Damping), each cell is damped in its turn, so the column's own
// surface velocities (vx'(i, j, 0), vy'(i, j-1, 0) here) enter vz(k=1) before their damping, and
// vz(k=1), vx(k=2), vy(k=2) are damped too, by the top layer's factor a (surface_damping).
#pragma once
#include "codelets/edges.hpp"
#include "codelets/faces.hpp"
#include "codelets/kernel_support.hpp"
#include "codelets/pml_cells.hpp"
#include "codelets/stencil.hpp"
#include "core/anelastic_layout.hpp"

namespace ondes {

// The velocity at the surface planes (k = 0, 1) of a block and of its neighbours: inside the block
// from its array, in a ghost row or column from the neighbour's boundary buffer (the CUDA march
// leaves the x ghosts in the buffers), elsewhere (outside the grid) from the array's ghosts.
struct SurfaceVelocity {
  float* v;
  BlockShape sh;
  BoundaryBuffers g;
  ONDES_HD float at(int c, int i, int j, int k) const {
    const bool xo = i < 0 || i >= sh.nx, yo = j < 0 || j >= sh.ny;
    const int dir = xo && !yo ? (i < 0 ? XM : XP) : yo && !xo ? (j < 0 ? YM : YP) : -1;
    if (dir >= 0 && g.at[dir]) {
      const Box b = ghost_box(sh, dir);
      return g.at[dir][buffer_index(b, sh.nz, c, k, j - b.j0, i - b.i0)];
    }
    return v[c * sh.cells() + sh.idx(i, j, k)];
  }
  ONDES_HD float& plane(int c, int i, int j, int k) const { return v[c * sh.cells() + sh.idx(i, j, k)]; }
};

// r = lambda / (lambda + 2 mu) of the surface cell (i, j) (ghosts included).
ONDES_HD inline float surface_ratio(const float* mat, const BlockShape& sh, int i, int j) {
  const int64_t q = sh.idx(i, j, 0), n = sh.cells();
  const float lam = mat[LAM * n + q], l2m = lam + 2.0f * mu_at(mat, n, q);
  return l2m > 0.0f ? lam / l2m : 0.0f;
}

// The three passes over the columns [0, nx] x [0, ny] (the corner (nx, ny) left out); each pass
// reads what the one before wrote in the neighbouring columns.
ONDES_HD inline bool surface_column(const BlockShape& sh, int i, int j) {
  return i >= 0 && j >= 0 && i <= sh.nx && j <= sh.ny && !(i == sh.nx && j == sh.ny);
}
// The factor of Ondes3D's q0 damping above the surface: the top layer's (1: undamped, and the
// same bits as without it).
ONDES_HD inline float surface_damping(const StepParams& p) { return p.damping.layers ? p.damping.factor[0] : 1.0f; }
// Ondes3D's C-PML terms of vz above the surface (FREEABS at k = 1, computeVeloAndSource.c
// computeVelocity): the stress with its images above the surface (plane -1, the previous step's)
// and the block's C-PML; pv.count 0: not followed (the interior rule).
struct FreeAbs {
  const float* s = nullptr;
  PmlView pv{};
};
// The memory of vz above the surface, its x and y differences (Ondes3D's phitxzx, phityzy at k = 1),
// lives in the surface cell's velocity memory slots of dz sxz and dz syz: the surface plane is not
// damped along z, so the C-PML never uses those there.
ONDES_HD constexpr int above_memory_slot(int axis) { return axis == 0 ? 2 : 5; }
// The terms followed where Kristek and Moczo runs (one block: see above), from the block's buffers.
inline FreeAbs free_abs(const StepParams& p, const float* s, char* pml, const char* anelastic,
                        const AnelasticShape& q) {
  if (!pml || p.pml_cells == 0 || !anelastic || !q.kristek_moczo) return {};
  return {s, pml_view(p.shape, pml, p.pml_cells, false)};
}

// The C-PML's velocity increment of component c at surface cell (i, j) from its memory slots
// `slots` (those of its damped axes; the others are +0), or 0 where the cell is no PML cell.
ONDES_HD inline float surface_pml_increment(const StepParams& p, const FreeAbs& f, const float* mat, int c, int i, int j,
                                            int s0, int s1) {
  const int damped = damped_axes(p.pml, i, j, 0);
  if (!damped) return 0.0f;
  const int64_t cell = pml_index(p.pml, p.shape, i, j, 0), n = f.pv.count;
  constexpr DiffPlaces where{kVelocityPlaces.axes, kVelocityPlaces.halves};  // a copy device code may read
  Diffs d{};
  const int slots[2] = {s0, s1};
  for (int q : slots)
    if ((damped >> where.axis(q)) & 1) d.d[q] = f.pv.psi[q * n + cell];
  float dv[kVelocityComponents];
  velocity_increments(array_at(mat, p.shape, p.shape.idx(i, j, 0)), d, p.dt, dv);
  return dv[c];
}

// What Ondes3D's FREEABS adds to vz above the surface of column (i, j), before the q0 damping:
// its vz(k=1) reads its cell's vx(i) and vy(j) (our vy(i, j-1), vx(i, j)) before their C-PML
// increments C are added, r (C_vy(i, j-1) - C_vx(i, j)) here (our vz and z are its -vz and -z),
// then takes the C-PML term of vz at its place, its memory advanced from the images' x and y
// differences with the surface plane's profiles. Zero outside the C-PML's columns, in the ghost
// columns, and where not followed.
ONDES_HD inline float free_abs_term(const StepParams& p, const FreeAbs& f, const float* mat, int i, int j) {
  const BlockShape& sh = p.shape;
  if (f.pv.count == 0 || i >= sh.nx || j >= sh.ny) return 0.0f;
  const int damped = damped_axes(p.pml, i, j, 0);
  if (!(damped & 3) || (damped & 4)) return 0.0f;
  const int64_t cell = pml_index(p.pml, sh, i, j, 0), n = f.pv.count;
  const PmlView v = f.pv.at_plane(sh, 0);
  constexpr DiffPlaces where{kVelocityPlaces.axes, kVelocityPlaces.halves};
  const ArrayAt above = array_at(f.s, sh, sh.idx(i, j, -1));
  const float diff[2] = {dm<SXZ, 0>(above), dm<SYZ, 1>(above)};
  const int ij[2] = {i, j}, count[2] = {sh.nx, sh.ny};
  Diffs m{};
  for (int a = 0; a < 2; ++a) {
    if (!((damped >> a) & 1)) continue;
    const int q = 6 + a;  // vz's difference along a, on the half levels' tables (kVelocityZHalves)
    const float* t = v.xy_half + PmlLayout::axis_offset(sh, a) + 2 * where.half(q) * count[a];
    float& memory = v.psi[above_memory_slot(a) * n + cell];
    memory = t[count[a] + ij[a]] * memory + t[ij[a]] * (diff[a] * p.inv_h);
    m.d[q] = memory;
  }
  float dv[kVelocityComponents];
  velocity_increments(array_at(mat, sh, sh.idx(i, j, 0)), m, p.dt, dv);
  const float west = j > 0 ? surface_pml_increment(p, f, mat, VY, i, j - 1, 3, 4) : 0.0f;
  const float r = surface_ratio(mat, sh, i, j);
  return r * (west - surface_pml_increment(p, f, mat, VX, i, j, 0, 1)) + dv[VZ];
}

// 1: vza into vz's plane -2; zero where Ondes3D's LIMIT cells hold it (codelets/faces.hpp): on the
// grid's y-low face, where its computed region begins (StepParams::ondes3d_faces bit 0), and in the
// column beyond the grid's x-high face (bit 3), which its last computed column reads; with FreeAbs
// followed, its C-PML terms (free_abs_term).
ONDES_HD inline void surface_vz_above(const StepParams& p, const SurfaceVelocity& u, const float* mat, const FreeAbs& f,
                                      int i, int j, float a) {
  if (((p.ondes3d_faces & 1) && j == 0) || ((p.ondes3d_faces & 8) && i == u.sh.nx)) {
    u.plane(VZ, i, j, -2) = 0.0f;
    return;
  }
  const float r = surface_ratio(mat, u.sh, i, j);
  const float z = u.at(VZ, i, j, 0) + r * (u.plane(VY, i, j, -2) - u.at(VY, i, j - 1, 0) / a) +
                  r * (u.at(VX, i, j, 0) / a - u.at(VX, i - 1, j, 0));
  u.plane(VZ, i, j, -2) = a * (f.pv.count > 0 ? z + free_abs_term(p, f, mat, i, j) : z);
}
// 2 (the block's own columns): the velocities above the surface, read by the stress update; on the
// grid's y faces (`faces`: StepParams::ondes3d_faces) those Ondes3D holds at zero (its LIMIT
// velocities are zero at every level, above its surface too: faces.hpp) are zero, which only its
// C-PML memory above the surface reads (Kristek and Moczo: kristek_moczo.hpp km_above_surface).
ONDES_HD inline void surface_above(const SurfaceVelocity& u, int i, int j, float a, int faces) {
  const float za = u.plane(VZ, i, j, -2), z0 = u.at(VZ, i, j, 0), x0 = u.at(VX, i, j, 0), y0 = u.at(VY, i, j, 0);
  const int held = frozen_mask(u.sh, faces, kVelocityKind, j, -1);
  u.plane(VZ, i, j, -1) = held & (1 << VZ) ? 0.0f : za;
  u.plane(VY, i, j, -1) = held & (1 << VY) ? 0.0f
                                          : a * (y0 + (u.plane(VZ, i, j + 1, -2) - za) -
                                                 (y0 - u.at(VY, i, j, 1) - u.at(VZ, i, j + 1, 0) + z0));
  u.plane(VX, i, j, -1) =
      held & (1 << VX) ? 0.0f : a * (x0 + (u.plane(VX, i + 1, j, -2) - (za + z0)) - (x0 - u.at(VX, i, j, 1)));
}
// 3: what the next step reads as the previous one's (Sz, Svy).
ONDES_HD inline void surface_keep(const SurfaceVelocity& u, int i, int j) {
  u.plane(VX, i, j, -2) = u.plane(VZ, i, j, -2) + u.at(VZ, i, j, 0);
  u.plane(VY, i, j, -2) = u.at(VY, i, j, 0);
}

}  // namespace ondes

namespace ondes::cpu {
// The velocities above the surface of block v (kOndes3dSurface), its neighbours'
// from their buffers `ghosts`.
void ondes3d_surface(const StepParams& p, float* v, const float* mat, const BoundaryBuffers& ghosts, const FreeAbs& f);
}  // namespace ondes::cpu

namespace ondes::cuda {
void ondes3d_surface(const StepParams& p, float* v, const float* mat, const BoundaryBuffers& ghosts, const FreeAbs& f,
                     cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

void ondes3d_surface(const StepParams& p, float* v, const float* mat, const BoundaryBuffers& ghosts, const FreeAbs& f) {
  const BlockShape& sh = p.shape;
  const SurfaceVelocity u{v, sh, ghosts};
  const float a = surface_damping(p);
  for (int j = 0; j <= sh.ny; ++j)
    for (int i = 0; i <= sh.nx; ++i)
      if (surface_column(sh, i, j)) surface_vz_above(p, u, mat, f, i, j, a);
  for (int j = 0; j < sh.ny; ++j)
    for (int i = 0; i < sh.nx; ++i) surface_above(u, i, j, a, p.ondes3d_faces);
  for (int j = 0; j <= sh.ny; ++j)
    for (int i = 0; i <= sh.nx; ++i)
      if (surface_column(sh, i, j)) surface_keep(u, i, j);
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

constexpr int kSurfaceTx = 32, kSurfaceTy = 8;

template <int Pass>
__global__ void surface_kernel(StepParams p, float* v, const float* mat, BoundaryBuffers g, FreeAbs f, float a) {
  const BlockShape& sh = p.shape;
  const int i = blockIdx.x * kSurfaceTx + threadIdx.x, j = blockIdx.y * kSurfaceTy + threadIdx.y;
  const SurfaceVelocity u{v, sh, g};
  if (Pass == 2) {
    if (i < sh.nx && j < sh.ny) surface_above(u, i, j, a, p.ondes3d_faces);
  } else if (surface_column(sh, i, j)) {
    if (Pass == 1) surface_vz_above(p, u, mat, f, i, j, a);
    else surface_keep(u, i, j);
  }
}

}  // namespace

void ondes3d_surface(const StepParams& p, float* v, const float* mat, const BoundaryBuffers& ghosts, const FreeAbs& f,
                     cudaStream_t stream) {
  const BlockShape& sh = p.shape;
  const dim3 grid(unsigned(blocks_for(sh.nx + 1, kSurfaceTx)), unsigned(blocks_for(sh.ny + 1, kSurfaceTy)));
  const dim3 block(kSurfaceTx, kSurfaceTy);
  const float a = surface_damping(p);
  surface_kernel<1><<<grid, block, 0, stream>>>(p, v, mat, ghosts, f, a);
  check_launch("surface_kernel<1>");
  surface_kernel<2><<<grid, block, 0, stream>>>(p, v, mat, ghosts, f, a);
  check_launch("surface_kernel<2>");
  surface_kernel<3><<<grid, block, 0, stream>>>(p, v, mat, ghosts, f, a);
  check_launch("surface_kernel<3>");
}

}  // namespace ondes::cuda
#endif

namespace ondes {

// Stress images above the free surface for column (i, j): szz(-k) = -szz(k), sxz and syz odd
// about z = 0 (their index k is at depth k + 1/2), times a: 1, or with Ondes3D's surface and q0
// damping the top layer's factor (computeStress.c: its images are damped in their cells' turn).
// kept: Ondes3D's Day and Bradley, the image slots hold the memory terms add_stress_anelastic
// left there, added to the images (sxz, syz of planes -1 and -2, szz of plane -1).
ONDES_CELL void image_free_surface_column(const BlockShape& sh, float* s, int i, int j, float a, bool kept = false) {
  const int64_t n = sh.cells();
  const int64_t k0 = sh.idx(i, j, 0), k1 = sh.idx(i, j, 1), k2 = sh.idx(i, j, 2);
  const int64_t m1 = sh.idx(i, j, -1), m2 = sh.idx(i, j, -2);
  auto image = [&](int c, int64_t to, int64_t from) {
    s[c * n + to] = kept ? a * -s[c * n + from] + s[c * n + to] : a * -s[c * n + from];
  };
  for (int c = SXZ; c <= SYZ; ++c) image(c, m1, k0), image(c, m2, k1);
  image(SZZ, m1, k1);
  s[SZZ * n + m2] = a * -s[SZZ * n + k2];
}
// The images' factor of a step's parameters.
ONDES_CELL float image_damping(const StepParams& p) {
  return p.free_surface == kOndes3dSurface && p.damping.layers ? p.damping.factor[0] : 1.0f;
}

}  // namespace ondes
