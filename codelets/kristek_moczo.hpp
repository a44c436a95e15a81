// Ondes3D's Kristek and Moczo attenuation (core/case.hpp KristekMoczo; AnelasticShape::
// kristek_moczo), as its original code computes it: the elastic update with the moduli
// InitializeKManelas sets (physics/attenuation.hpp kristek_moczo_elastic), then per stress point
// one memory variable ksil whose pulsation wl follows the parities of its cell's indices
// (inlineFunctions.h IndexL: four pulsations over each 2 x 2 x 2 cube), advanced before the stress
// update from the new velocities (computeIntermediates.c ComputeIntermediates, KRISTEK and MOCZO:
// ksil = el ksil + fl drive, drive the strain rate, twice it for the normal components, with the
// C-PML's memory added in its layer), and taken by the stress as a sum over the point and its six
// neighbours (computeStress.c ComputeStress with ChooseY and SumYlKsil):
//   s_c -= dt (partTrace + 2 sum_c) (normal), s_c -= dt 2 sum_c (shear),
//   sum_c = Ymu(me) ksil_c(me) + 1/2 sum over the neighbours of Ymu(n) ksil_c(n),
//   partTrace the same sum of (Ykap - 2 Ymu / 3) (ksil_xx + ksil_yy + ksil_zz),
// each neighbour's Y that of its own pulsation in the layer of the cell's plane (its k2ly0) for the
// neighbours along x and y, in the layer half a cell above (its k2ly2) for those along z.
// The cell of a stress point: Ondes3D's (i, j, k) is our (y, x, -z) (its x east is our y), its xy
// and xz half a cell before its xx along its x, its xz and yz half a cell above it
// (AnelasticView::ondes3d_cell's rule); its indices are its local array's, whose parities alone
// matter. What it does that this follows:
// - At its surface (its k = 1, our plane 0) it advances ksil_xx, ksil_yy, ksil_zz and ksil_xy only,
//   ksil_zz driven by 2 dzV0z = 2 (lambda / (lambda + 2 mu)) (dx vx + dy vy), the sign of dz vz
//   reversed (its free-surface branch, as its Day and Bradley's), and without the C-PML's memory in
//   its layer (FREEABS adds it to xx, yy and xy); szz there is its term alone (its t0.zz[1] = 0,
//   then += the term). Its xz and yz of that cell lie above the surface (our plane -1): no memory.
// - Its ksil_xz drive reads v0.z[i + 1][j + 2][k] where the stencil wants [i + 1][j][k]
//   (computeIntermediates.c): the 1/24 tap of our syz's dy vz taken two cells over along x.
// - Its cells at the surface take the trace below them for the one above (tracezP = tracezN, its
//   "workaround" for FREEABS; for FREESURFACE its `place == FREE` test, FREE being ABSORBINGLAYER's
//   value, leaves tracezP unset: the same rule is taken).
// - Its cells above the surface in the C-PML's columns (FREEABS at its k = 2, our plane -1) update
//   their C-PML memory of dx vx, dy vy, dy vx and dx vy from the velocities above the surface and
//   add fl times it to their ksil_xx, ksil_yy (twice) and ksil_xy at every step, with no decay
//   (its FREEABS branch, outside `if (k == 1)`): memory that grows, read by the surface cell below
//   in its sums. That C-PML memory lives in the memory's plane -2 (which no sum reads).
//   Ondes3D's own run grows that memory exponentially, an instability of its scheme there that
//   reaches its surface stations late in a run (docs/user-guide.md); what drives it, its vz above
//   the surface in those columns (FREEABS at its k = 1), is followed in Kristek and Moczo's runs
//   (surface.hpp free_abs_term).
// - Its LIMIT cells (the outermost two of its C-PML, which it does not compute) keep no memory, which
//   its neighbours' sums read as zero: here the points faces.hpp holds at zero keep none either, and
//   the velocities above the surface there, which the C-PML memory above reads, are zero
//   (surface.hpp surface_above), as its LIMIT velocities are at every level.
// The memory of a block's edge cells reads its neighbours' across a block boundary: a run takes one
// block (io/case/case_validation.cpp).
#pragma once
#include "codelets/kernel_support.hpp"
#include "codelets/pml_cells.hpp"
#include "codelets/stencil.hpp"
#include "codelets/faces.hpp"
#include "codelets/surface.hpp"
#include "core/anelastic_layout.hpp"

namespace ondes {

// inlineFunctions.h IndexL less one: the pulsation of Ondes3D's local cell (i, j, k).
ONDES_HD inline int km_pulsation(int i, int j, int k) {
  return (j & 1) ? ((k - 1) & 1) + 2 * ((i - 1) & 1) : (k & 1) + 2 * (i & 1);
}

// Ondes3D's local cell of stress component c's point at block indices (x, y, z).
struct KmCell {
  int i, j, k;
};
ONDES_HD inline KmCell km_cell(const AnelasticView& a, int c, int x, int y, int z) {
  const int dx = c == SXY || c == SYZ, dz = c == SXZ || c == SYZ;
  return {y + a.origin[1] + dx, x + a.origin[0], a.origin[2] - z - dz};
}

// A cell of the block: (x, y, z) and its padded index q.
struct KmPlace {
  int x, y, z;
  int64_t q;
};

// Cell at's six ksil advanced, d its stress differences (times h) and e the C-PML's memory (times
// h; zero inside the PML box).
ONDES_CELL void km_advance(const StepParams& p, const AnelasticView& a, const float* v, const float* mat,
                           KmPlace at, const Diffs& d, const Diffs& e) {
  const int x = at.x, y = at.y, z = at.z;
  const int64_t q = at.q;
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells();
  const bool surface = at_surface(z_plane(z, p.free_surface));
  float drive[kStressComponents];
  drive[SXX] = 2.0f * (d.d[0] + e.d[0]);
  drive[SYY] = 2.0f * (d.d[1] + e.d[1]);
  drive[SZZ] = surface ? 2.0f * surface_ratio(mat, sh, x, y) * (d.d[0] + d.d[1]) : 2.0f * (d.d[2] + e.d[2]);
  drive[SXY] = (d.d[3] + e.d[3]) + (d.d[4] + e.d[4]);
  drive[SXZ] = (d.d[5] + e.d[5]) + (d.d[6] + e.d[6]);
  const int64_t vz = VZ * n;
  const float typo = kC2 * (v[vz + sh.idx(x + 2, y + 2, z)] - v[vz + sh.idx(x, y + 2, z)]);
  drive[SYZ] = (d.d[7] + typo + e.d[7]) + (d.d[8] + e.d[8]);
  const float* el = a.decay;
  const float* fl = a.decay + kKmPulsations;
  const int frozen = frozen_mask(sh, p.ondes3d_faces, kStressKind, y, z);  // Ondes3D's LIMIT points: no memory
  ONDES_UNROLL
  for (int c = 0; c < kStressComponents; ++c) {
    if ((frozen >> c) & 1) continue;
    const KmCell k = km_cell(a, c, x, y, z);
    const int l = km_pulsation(k.i, k.j, k.k);
    float& ksil = a.memory[c * n + q];
    ksil = el[l] * ksil + fl[l] * (drive[c] * p.inv_h);
  }
}

// The memory pass of cell (x, y, z): its differences, and in the C-PML its memory's new values
// (not stored: the stress update stores the same).
ONDES_CELL void km_memory_cell(const StepParams& p, const AnelasticView& a, const float* v, const float* mat,
                               const PmlView& pv, int x, int y, int z) {
  const BlockShape& sh = p.shape;
  const int64_t q = sh.idx(x, y, z);
  const int plane = z_plane(z, p.free_surface);
  const Diffs d = stress_diffs(array_at(v, sh, q), plane);
  Diffs e = d;
  const int damped = damped_axes(p.pml, x, y, z);
  if (pv.count > 0 && damped) {
    pml_memory<kStressPlaces.axes, kStressPlaces.halves, kStressZHalves, false, DampedMask, false>(
        p, pv.at_plane(sh, z), {pml_index(p.pml, sh, x, y, z), x, y, z}, 9, DampedMask{damped}, e);
    ONDES_UNROLL
    for (int c = 0; c < 9; ++c) e.d[c] /= p.inv_h;
  } else {
    ONDES_UNROLL
    for (int c = 0; c < 9; ++c) e.d[c] = 0.0f;
  }
  if (at_surface(z_plane(z, p.free_surface))) e.d[2] = 0.0f;  // its zz drive at the surface: no C-PML
  km_advance(p, a, v, mat, {x, y, z, q}, d, e);
}

// Column (x, y)'s cell above the surface in the C-PML's columns (Ondes3D's FREEABS at k = 2): its
// C-PML memory of the four horizontal differences (sxx's, syy's, sxy's two) advanced from the
// velocities above the surface with the surface plane's profiles (pml_memory's recursion), kept in
// the memory's plane -2, and fl times it added to its ksil (plane -1).
ONDES_CELL void km_above_surface(const StepParams& p, const AnelasticView& a, const float* v, const PmlView& pv0,
                                 int x, int y) {
  const BlockShape& sh = p.shape;
  const bool dx = x < p.pml.lo[0] || x >= p.pml.hi[0], dy = y < p.pml.lo[1] || y >= p.pml.hi[1];
  if (!dx && !dy) return;
  const int64_t n = sh.cells(), q = sh.idx(x, y, -1), kept = sh.idx(x, y, -2);
  const auto f = array_at(v, sh, q);
  const int diff[4] = {0, 1, 3, 4};
  const float d[4] = {dm<VX, 0>(f), dm<VY, 1>(f), dp<VX, 1>(f), dp<VY, 0>(f)};
  const int ij[2] = {x, y}, count[2] = {sh.nx, sh.ny};
  constexpr DiffPlaces where{kStressPlaces.axes, kStressPlaces.halves};  // a copy device code may read
  float psi[4];
  ONDES_UNROLL
  for (int t = 0; t < 4; ++t) {
    const int axis = where.axis(diff[t]);
    float& m = a.memory[diff[t] * n + kept];
    if (!(axis == 0 ? dx : dy)) {
      psi[t] = 0.0f;
      continue;
    }
    const float* table = pv0.xy_int + PmlLayout::axis_offset(sh, axis) + 2 * where.half(diff[t]) * count[axis];
    m = table[count[axis] + ij[axis]] * m + table[ij[axis]] * (d[t] * p.inv_h);
    psi[t] = m;
  }
  const float* fl = a.decay + kKmPulsations;
  const int frozen = frozen_mask(sh, p.ondes3d_faces, kStressKind, y, -1);
  auto add = [&](int c, float x_) {
    if ((frozen >> c) & 1) return;
    const KmCell k = km_cell(a, c, x, y, -1);
    a.memory[c * n + q] += fl[km_pulsation(k.i, k.j, k.k)] * x_;
  };
  add(SXX, 2.0f * psi[0]);
  add(SYY, 2.0f * psi[1]);
  add(SXY, psi[2] + psi[3]);
}

// Y~ of pulsation l in class cls: Ylkap~ (P = 0) or Ylmu~ (P = 1).
template <int P>
ONDES_CELL float km_y(const AnelasticView& a, int cls, int l) {
  return a.gains[(cls * kKmPulsations + l) * 2 + P];
}

// The points a term sums over, for component c at (x, y, z) (padded q): the point and its six
// neighbours (Ondes3D's i +- 1 (our y), j +- 1 (our x), k +- 1 (our z -+ 1)), each one's pulsation,
// and the cell's layers (ly0 along x and y, ly2 along z).
struct KmPoints {
  int64_t at[7];
  int pulse[7];
  int ly0, ly2;
};
ONDES_CELL KmPoints km_points(const AnelasticView& a, const BlockShape& sh, int c, int x, int y, int z, int64_t q) {
  const KmCell k = km_cell(a, c, x, y, z);
  const int dz = c == SXZ || c == SYZ;
  const int cls = a.cls[z + dz + kGhost];
  return {{q, q + sh.sy(), q - sh.sy(), q + 1, q - 1, q - sh.sz(), q + sh.sz()},
          {km_pulsation(k.i, k.j, k.k), km_pulsation(k.i + 1, k.j, k.k), km_pulsation(k.i - 1, k.j, k.k),
           km_pulsation(k.i, k.j + 1, k.k), km_pulsation(k.i, k.j - 1, k.k), km_pulsation(k.i, k.j, k.k + 1),
           km_pulsation(k.i, k.j, k.k - 1)},
          cls & 0xffff,
          cls >> 16};
}

// The terms of components c0 .. c0 + Count - 1, which share their points (the normal stresses, or
// one shear stress): 2 sum_c, plus for the normal ones the trace's sum, computed once.
// surface: the point is a normal stress of the surface plane (its trace above is the one below).
template <int Count>
ONDES_CELL void km_terms(const AnelasticView& a, const KmPoints& p, int64_t n, int c0, bool surface, float* term) {
  constexpr bool kNormal = Count == 3;
  float sum[Count] = {}, trace = 0.0f;
  ONDES_UNROLL
  for (int t = 0; t < 7; ++t) {
    const int cl = t < 5 ? p.ly0 : p.ly2;
    const float w = t == 0 ? 1.0f : 0.5f, mu = km_y<1>(a, cl, p.pulse[t]);
    ONDES_UNROLL
    for (int c = 0; c < Count; ++c) sum[c] += w * mu * a.memory[(c0 + c) * n + p.at[t]];
    if (kNormal) {
      const int64_t r = surface && t == 5 ? p.at[6] : p.at[t];
      const float tr = a.memory[SXX * n + r] + a.memory[SYY * n + r] + a.memory[SZZ * n + r];
      trace += w * (km_y<0>(a, cl, p.pulse[t]) - (2.0f / 3.0f) * mu) * tr;
    }
  }
  ONDES_UNROLL
  for (int c = 0; c < Count; ++c) term[c] = kNormal ? trace + 2.0f * sum[c] : 2.0f * sum[c];
}

// Cell (x, y, z)'s stress takes its terms, after its elastic update; szz at the surface is its
// term alone.
ONDES_CELL void km_stress_cell(const StepParams& p, float* s, const AnelasticView& a, int x, int y, int z) {
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), q = sh.idx(x, y, z);
  const bool surface = at_surface(z_plane(z, p.free_surface));
  float term[kStressComponents];
  km_terms<3>(a, km_points(a, sh, SXX, x, y, z, q), n, SXX, surface, term);
  ONDES_UNROLL
  for (int c = SXY; c <= SYZ; ++c) km_terms<1>(a, km_points(a, sh, c, x, y, z, q), n, c, false, term + c);
  ONDES_UNROLL
  for (int c = 0; c < kStressComponents; ++c) {
    const float t = -p.dt * term[c];
    if (surface && c == SZZ)
      s[c * n + q] = t;
    else
      s[c * n + q] += t;
  }
}

}  // namespace ondes

namespace ondes::cpu {
// The ksil of every cell of the block (before its stress update), and the stress's terms (after).
void km_memory(const StepParams& p, const float* v, const float* mat, char* pml, const AnelasticView& a);
void km_stress(const StepParams& p, float* s, const AnelasticView& a);
}  // namespace ondes::cpu

namespace ondes::cuda {
void km_memory(const StepParams& p, const float* v, const float* mat, char* pml, const AnelasticView& a,
               cudaStream_t stream);
void km_stress(const StepParams& p, float* s, const AnelasticView& a, cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {
void km_memory(const StepParams& p, const float* v, const float* mat, char* pml, const AnelasticView& a) {
  const BlockShape& sh = p.shape;
  const PmlView pv = pml ? pml_view(sh, pml, p.pml_cells, false) : PmlView{};
  for (int z = 0; z < sh.nz; ++z)
    for (int y = 0; y < sh.ny; ++y)
      for (int x = 0; x < sh.nx; ++x) km_memory_cell(p, a, v, mat, pv, x, y, z);
  if (pml && p.free_surface)
    for (int y = 0; y < sh.ny; ++y)
      for (int x = 0; x < sh.nx; ++x) km_above_surface(p, a, v, pv.at_plane(sh, 0), x, y);
}
void km_stress(const StepParams& p, float* s, const AnelasticView& a) {
  const BlockShape& sh = p.shape;
  for (int z = 0; z < sh.nz; ++z)
    for (int y = 0; y < sh.ny; ++y)
      for (int x = 0; x < sh.nx; ++x) km_stress_cell(p, s, a, x, y, z);
}
}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {
constexpr int kKmTx = 32, kKmTy = 8;
dim3 km_grid(const BlockShape& sh) {
  return dim3(unsigned(blocks_for(sh.nx, kKmTx)), unsigned(blocks_for(sh.ny, kKmTy)), unsigned(sh.nz));
}
__global__ void km_memory_kernel(StepParams p, const float* v, const float* mat, PmlView pv, AnelasticView a) {
  const int x = blockIdx.x * kKmTx + threadIdx.x, y = blockIdx.y * kKmTy + threadIdx.y, z = blockIdx.z;
  if (x >= p.shape.nx || y >= p.shape.ny) return;
  km_memory_cell(p, a, v, mat, pv, x, y, z);
  if (z == 0 && pv.count > 0 && p.free_surface) km_above_surface(p, a, v, pv.at_plane(p.shape, 0), x, y);
}
__global__ void km_stress_kernel(StepParams p, float* s, AnelasticView a) {
  const int x = blockIdx.x * kKmTx + threadIdx.x, y = blockIdx.y * kKmTy + threadIdx.y, z = blockIdx.z;
  if (x < p.shape.nx && y < p.shape.ny) km_stress_cell(p, s, a, x, y, z);
}
}  // namespace

void km_memory(const StepParams& p, const float* v, const float* mat, char* pml, const AnelasticView& a,
               cudaStream_t stream) {
  const PmlView pv = pml ? pml_view(p.shape, pml, p.pml_cells, false) : PmlView{};
  km_memory_kernel<<<km_grid(p.shape), dim3(kKmTx, kKmTy), 0, stream>>>(p, v, mat, pv, a);
  check_launch("km_memory_kernel");
}
void km_stress(const StepParams& p, float* s, const AnelasticView& a, cudaStream_t stream) {
  km_stress_kernel<<<km_grid(p.shape), dim3(kKmTx, kKmTy), 0, stream>>>(p, s, a);
  check_launch("km_stress_kernel");
}
}  // namespace ondes::cuda
#endif
