// compute_velocity / compute_stress of one block: the other field's ghosts from the neighbours' boundary buffers
// `ghosts` (null where the block has none; the CUDA march reads x faces straight from them: XHalo), the interior
// sweep over the per-cell stencils of stencil.hpp, then the C-PML correction of the block's PML cells (pml may be
// null), for the stress the free-surface images, and the updated field's edges into the boundary buffers of
// `edges` (null where not wanted). CPU loops and CUDA kernels run the same per-cell code.
#pragma once
#include <algorithm>
#include <type_traits>
#include "codelets/anelastic.hpp"
#include "codelets/day_bradley.hpp"
#include "core/execution_policy.hpp"
#include "codelets/kernel_support.hpp"
#include "codelets/kristek_moczo.hpp"
#include "codelets/march.hpp"
#include "codelets/material.hpp"
#include "codelets/pml_cells.hpp"
#include "codelets/pml_runs.hpp"
#include "codelets/stencil.hpp"
#include "codelets/surface.hpp"

namespace ondes {
// The arrays of a block one field's update reads and writes: the field it updates, the other one
// (whose ghosts it fills), the material, the C-PML memory of its PML cells (null: none; their
// count is the StepParams' pml_cells), and for the stress the anelastic buffer of shape q (null:
// elastic).
struct UpdateArrays {
  float* field;
  float* other;
  const float* mat;
  char* pml;
  char* anelastic;
  AnelasticShape q{};
};
}  // namespace ondes

namespace ondes::cpu {
void compute_velocity(const StepParams& p, const UpdateArrays& a, const BoundaryBuffers& ghosts,
                      const BoundaryBuffers& edges);
void compute_stress(const StepParams& p, const UpdateArrays& a, const BoundaryBuffers& ghosts,
                    const BoundaryBuffers& edges);
}  // namespace ondes::cpu

namespace ondes {
// The steps of a block's update (CUDA), for chained windows that run the PML cells beside the march
// on a second stream (tasks/chain.cpp): the other field's ghosts from the neighbours' buffers, the
// march over the cells inside the PML box, the PML cells, the free-surface images, in that order
// where all are run at once (kAllSteps). The march and the PML cells touch disjoint cells and may
// run at the same time, after the ghosts and before the images.
enum UpdateSteps : int { kGhostsStep = 1, kMarchStep = 2, kPmlStep = 4, kImagesStep = 8, kAllSteps = 15 };
}  // namespace ondes

namespace ondes::cuda {
// g: the march kernels' launch geometry (ExecutionPolicy::march).
void compute_velocity(const StepParams& p, const UpdateArrays& a, const BoundaryBuffers& ghosts,
                      const BoundaryBuffers& edges, const MarchGeometry& g, cudaStream_t stream, int steps = kAllSteps);
void compute_stress(const StepParams& p, const UpdateArrays& a, const BoundaryBuffers& ghosts,
                    const BoundaryBuffers& edges, const MarchGeometry& g, cudaStream_t stream, int steps = kAllSteps);
}  // namespace ondes::cuda

namespace ondes {

// One cell's stress update: elastic (N = 0) or with N memory sets (c: the cell).
template <int N, class M>
ONDES_CELL void stress_cell(float* s, const AnelasticCell& c, const M& m, const Diffs& d, float scale) {
  if constexpr (N == 0)
    add_stress(s, c.n, c.i, m, d, scale, c.plane);
  else
    add_stress_anelastic<N>(s, c, m, d, scale);
}
// The memory sets the cells' own stress update carries: none for an elastic medium, and none with
// Kristek and Moczo, whose memory has passes of its own (codelets/kristek_moczo.hpp).
inline int update_mechanisms(const char* anelastic, const AnelasticShape& q) {
  return anelastic && !q.kristek_moczo ? q.mechanisms : 0;
}
}  // namespace ondes

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {
namespace {

// A row of a block's cells: (x0 .. x0 + nx - 1, j, k) from padded index `at`, in arrays of stride
// n a component, sy a row and sz a plane.
struct CellRow {
  int64_t at;
  int x0, j, k, nx;
  int64_t n, sy, sz;
};

// One x row of interior cells. The component arrays never overlap, hence ivdep; the z-plane kind
// is a template parameter so the row has no branch and vectorises.
template <class M>
ONDES_RUN void velocity_row(float* v, const float* s, const M& material, const CellRow& r, float scale) {
  const int64_t row = r.at, n = r.n, sy = r.sy, sz = r.sz;
  const int nx = r.nx;
  const M mat = material;  // in registers (docs/performance.md, Decisions: material by value)
#pragma GCC ivdep
  for (int64_t i = row; i < row + nx; ++i)
    add_velocity(v, n, i, mat.at(i), velocity_diffs(ArrayAt{s, n, i, sy, sz}), scale);
}

// The relaxations of the cells of row (j, k) from x0 on, for N memory sets: in a layered medium the plane's, or
// (coarse-grained, N = 1) the two cube cells the row's cells alternate between, loaded once and selected per cell
// (gathered per cell, the row ran far below what its bytes allow); in a 3D model, or with Ondes3D's Day and
// Bradley (PerCell), each cell's own, gathered. (PerCell is a template parameter: tested at run time in the loop,
// it cost the layered rows their vectorisation.)
template <int N, bool PerCell>
struct RowRelaxation {
  const AnelasticView& a;
  int x0, j, k;
  CellRelaxation even, odd;
  float gp[2], gs[2], decay[2];
  ONDES_ROW RowRelaxation(const AnelasticView& view, int x, int row_j, int row_k)
      : a(view), x0(x), j(row_j), k(row_k) {
    if constexpr (N == 0 || PerCell) return;
    even = a.relaxation<N>(x0, j, k, 0), odd = a.relaxation<N>(x0 + 1, j, k, 0);
    if constexpr (N == 1) {
      gp[0] = even.p[0], gp[1] = odd.p[0], gs[0] = even.s[0], gs[1] = odd.s[0];
      decay[0] = even.decay[0], decay[1] = odd.decay[0];
    }
  }
  // Cell x0 + t's (padded index q), coarse-grained in g and d.
  ONDES_ROW CellRelaxation at(int t, int64_t q, float (&g)[2], float& d) const {
    if constexpr (N == 0) return {};
    if constexpr (PerCell) return a.relaxation<N>(x0 + t, j, k, q);
    if constexpr (N != 1) return even;
    const bool o = t & 1;
    g[0] = o ? gp[1] : gp[0], g[1] = o ? gs[1] : gs[0], d = o ? decay[1] : decay[0];
    return {&g[0], &g[1], &d};
  }
};

// Ondes3D's q0 damping of a row's cells, C components (the plane's factors once a row, not a layer
// search a cell).
template <int C>
ONDES_ROW inline void damp_row(const Q0Damping::Plane& f, float* x, int64_t n, int64_t row, int nx) {
#pragma GCC ivdep
  for (int64_t i = row; i < row + nx; ++i) damp_field<C>(f, x, n, i);
}

// N: the memory sets of an attenuating medium (0: elastic), a the block's anelastic buffer; a row's cells are
// (x0 .. x0 + nx - 1, j, k) from padded index row. (add_stress_anelastic's steps one loop at a time over runs of
// 64 cells, to stream fewer arrays at once, was slower: docs/performance.md, Decisions: anelastic rows.)
template <int Plane, int N, bool PerCell, bool Ondes3d, class M>
ONDES_RUN void stress_row(float* s, const AnelasticView& a, const float* v, const M& material, const CellRow& r,
                          float scale) {
  const int64_t row = r.at, n = r.n, sy = r.sy, sz = r.sz;
  const int x0 = r.x0, j = r.j, k = r.k, nx = r.nx;
  const M mat = material;  // as velocity_row's
  const AnelasticView own = known_view<Ondes3d>(a);
  const RowRelaxation<N, PerCell> relax(own, x0, j, k);
#pragma GCC ivdep
  for (int t = 0; t < nx; ++t) {
    const int64_t i = row + t;
    float g[2], d;
    const AnelasticCell c{own, relax.at(t, i, g, d), n, i, x0 + t, j, k, Plane};
    stress_cell<N>(s, c, mat.at(i), stress_diffs(ArrayAt{v, n, i, sy, sz}, Plane), scale);
  }
}
template <int N, bool PerCell, bool Ondes3d, class M>
ONDES_ROW inline void stress_row_of(int plane, float* s, const AnelasticView& a, const float* v, const M& mat,
                                    const CellRow& r, float scale) {
  if (plane == kSurface)
    stress_row<kSurface, N, PerCell, Ondes3d>(s, a, v, mat, r, scale);
  else if (plane == kSurfaceFourth)
    stress_row<kSurfaceFourth, N, PerCell, Ondes3d>(s, a, v, mat, r, scale);
  else if (plane == kBelowSurface)
    stress_row<kBelowSurface, N, PerCell, Ondes3d>(s, a, v, mat, r, scale);
  else
    stress_row<kInterior, N, PerCell, Ondes3d>(s, a, v, mat, r, scale);
}

// The PML cells of run r in an attenuating medium (anelastic_stress_pml_cell). Interior: r's plane is kInterior,
// said where the compiler sees it (read at run time, the plane's tests kept the loop from being vectorised:
// docs/performance.md, Decisions: anelastic PML rows); the planes near the surface read it at run time. p by value:
// the memory's 32-bit stores may alias a referenced one's ints, reloaded each cell (Decisions: parameters by value).
template <bool Interior, int N, bool PerCell, bool Ondes3d, class Damped, class M>
ONDES_RUN void anelastic_pml_run(const StepParams p, float* s, const AnelasticView& a, const float* v,
                                 const M& material, const PmlView& pv, const PmlRun& r, Damped damped) {
  const int64_t n = p.shape.cells(), sy = p.shape.sy(), sz = p.shape.sz(), row = r.row, q0 = r.q0;
  const int i0 = r.i0, len = r.len, j = r.j, k = r.k, plane = Interior ? int(kInterior) : r.plane;
  const M mat = material;                                   // as velocity_row's
  const AnelasticView own = known_view<Ondes3d>(a);
  const RowRelaxation<N, PerCell> relax(own, i0, j, k);
#pragma GCC ivdep
  for (int t = 0; t < len; ++t) {
    const int64_t c = row + i0 + t;
    float g[2], d;
    const AnelasticCell cell{own, relax.at(t, c, g, d), n, c, i0 + t, j, k, plane, true};
    anelastic_stress_pml_cell<N, false>(p, s, cell, mat.at(c), pv, q0 + t, damped,
                                        stress_diffs(ArrayAt{v, n, c, sy, sz}, plane));
  }
}

}  // namespace

// The sweeps (external linkage: GCC's target_clones dispatches through an ifunc).
ONDES_SWEEP void velocity_sweep(const StepParams& p, float* v, const float* s, const float* mat, char* pml,
                                int64_t count) {
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz();
  const PmlView pv = pml ? pml_view(sh, pml, count, p.node_material) : PmlView{};
  for (int k = 0; k < sh.nz; ++k)
    with_material(p, {bool(p.uniform_planes), bool(p.parity_planes)}, mat, k, [&](const auto& plane) ONDES_ROW {
      const PmlView pk = pml ? pv.at_plane(sh, k) : pv;
      for (int j = 0; j < sh.ny; ++j) {
        const int64_t row = sh.idx(0, j, k);
        const auto m = plane.row(j);
        velocity_row(v, s, m, {row, 0, j, k, sh.nx, n, sy, sz}, p.dt_h);
        if (pml)
          pml_row(p.pml, sh, j, k, [&](int i0, int len, int64_t q0, auto damped) ONDES_ROW {
            velocity_pml_run(p, v, s, m, pk, {row, i0, len, q0, j, k, kInterior}, damped);
          });
        if (p.damping.layers) damp_row<kVelocityComponents>(p.damping.plane(k), v, n, row, sh.nx);
      }
    });
}

// PerCell: each cell's relaxation gathered (a 3D model's, Day and Bradley's); Ondes3d: Day and Bradley's.
template <int N, bool PerCell, bool Ondes3d>
ONDES_ROW inline void stress_sweep_n(const StepParams& p, float* s, const float* v, const float* mat, char* pml,
                                     int64_t count, const AnelasticView& a) {
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz();
  const PmlView pv = pml ? pml_view(sh, pml, count, p.node_material) : PmlView{};
  // A 3D model's relaxations vary per cell, and so does its material: no plane or parity form for it.
  const MaterialRead read{p.uniform_planes && !a.per_cell, p.parity_planes && !a.per_cell};
  for (int k = 0; k < sh.nz; ++k) {
    const int plane = z_plane(k, p.free_surface);
    const PmlView pk = pml ? pv.at_plane(sh, k) : pv;
    with_material<N <= 1>(p, read, mat, k, [&](const auto& planar) ONDES_ROW {
      for (int j = 0; j < sh.ny; ++j) {
        const int64_t row = sh.idx(0, j, k);
        const auto m = planar.row(j);
        // Attenuating, a PML cell has its whole update in the PML pass (anelastic_stress_pml_cell).
        const auto [i0, i1] = N && pml ? interior_span(p.pml, sh, j, k) : std::pair{0, sh.nx};
        if (i1 > i0)
          stress_row_of<N, PerCell, Ondes3d>(plane, s, a, v, m, {row + i0, i0, j, k, i1 - i0, n, sy, sz}, p.dt_h);
        if (pml)
        pml_row(p.pml, sh, j, k, [&](int i0, int len, int64_t q0, auto damped) ONDES_ROW {
          if constexpr (N == 0) {
            stress_pml_run(p, s, v, m, pk, {row, i0, len, q0, j, k, plane}, damped);
          } else if (plane == kInterior) {
            anelastic_pml_run<true, N, PerCell, Ondes3d>(p, s, a, v, m, pk, {row, i0, len, q0, j, k, plane}, damped);
          } else {
            anelastic_pml_run<false, N, PerCell, Ondes3d>(p, s, a, v, m, pk, {row, i0, len, q0, j, k, plane}, damped);
          }
        });
        if (p.damping.layers) damp_row<kStressComponents>(p.damping.plane(k), s, n, row, sh.nx);
      }
    });
  }
  if constexpr (N == 1) ondes3d_sxz_columns(p, s, v, mat, a);  // after every cell's own update
  if (a.kristek_moczo) km_stress(p, s, a);                        // the same
  freeze_faces(p, kStressKind, s);  // before the images, as on the GPU
  if (p.free_surface)
    for (int j = 0; j < sh.ny; ++j)
      for (int i = 0; i < sh.nx; ++i) image_free_surface_column(sh, s, i, j, image_damping(p), a.image_stride);
}

ONDES_SWEEP void stress_sweep(const StepParams& p, float* s, const float* v, const float* mat, char* pml,
                              int64_t count, char* anelastic, AnelasticShape q) {
  const AnelasticView a = anelastic ? anelastic_view(anelastic, p.shape, q) : AnelasticView{};
  with_mechanisms(update_mechanisms(anelastic, q), [&](auto n) ONDES_ROW {
    constexpr int N = decltype(n)::value;
    with_ondes3d<N == 1>(a.ondes3d, [&](auto ondes3d) ONDES_ROW {
      if (a.per_cell || ondes3d)  // Ondes3D's Day and Bradley: each component its mechanism (anelastic_layout.hpp)
        stress_sweep_n<N, true, decltype(ondes3d)::value>(p, s, v, mat, pml, count, a);
      else
        stress_sweep_n<N, false, false>(p, s, v, mat, pml, count, a);
    });
  });
}

void compute_velocity(const StepParams& p, const UpdateArrays& a, const BoundaryBuffers& ghosts,
                      const BoundaryBuffers& edges) {
  float *v = a.field, *s = a.other;
  const float* mat = a.mat;
  char* pml = a.pml;
  const int64_t count = p.pml_cells;
  load_ghosts(p.shape, kStressKind, ghosts, s);
  velocity_sweep(p, v, s, mat, pml, count);
  freeze_faces(p, kVelocityKind, v);
  save_edges(p.shape, kVelocityKind, v, edges);
}

void compute_stress(const StepParams& p, const UpdateArrays& a, const BoundaryBuffers& ghosts,
                    const BoundaryBuffers& edges) {
  float *s = a.field, *v = a.other;
  const float* mat = a.mat;
  char *pml = a.pml, *anelastic = a.anelastic;
  const int64_t count = p.pml_cells;
  const AnelasticShape& q = a.q;
  load_ghosts(p.shape, kVelocityKind, ghosts, v);
  if (p.free_surface == kOndes3dSurface) ondes3d_surface(p, v, mat, ghosts, free_abs(p, s, pml, anelastic, q));
  if (anelastic && q.kristek_moczo) km_memory(p, v, mat, pml, anelastic_view(anelastic, p.shape, q));
  stress_sweep(p, s, v, mat, pml, count, anelastic, q);
  save_edges(p.shape, kStressKind, s, edges);
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

// A block's cells are updated by two kernels that touch disjoint cells: the cells inside the
// PmlBox by march.hpp's z-marching kernels, with no C-PML code, and the PML cells, one thread each
// in the block's PML list order (pml_place), by a kernel that applies the interior update and the
// C-PML correction together (docs/performance.md, Decisions: PML cell kernels).
constexpr int kTx = 32, kTy = 16;

dim3 xy_grid(const BlockShape& s) { return dim3((s.nx + kTx - 1) / kTx, (s.ny + kTy - 1) / kTy); }

__global__ void image_kernel(BlockShape sh, float* s, float a, bool kept) {
  const int i = blockIdx.x * kTx + threadIdx.x, j = blockIdx.y * kTy + threadIdx.y;
  if (i >= sh.nx || j >= sh.ny) return;
  image_free_surface_column(sh, s, i, j, a, kept);
}

}  // namespace

void compute_velocity(const StepParams& p, const UpdateArrays& a, const BoundaryBuffers& ghosts,
                      const BoundaryBuffers& edges, const MarchGeometry& g, cudaStream_t stream, int steps) {
  float *v = a.field, *s = a.other;
  const float* mat = a.mat;
  const int64_t pml_cells = p.pml_cells;
  const PmlBox b = interior(p);
  const XHalo h = march::x_halo(p.shape, b, ghosts);
  if (steps & kGhostsStep) load_ghosts(p.shape, kStressKind, ghosts, s, stream, h);
  if (steps & kMarchStep)
    march::march_block<march::Velocity>("velocity_march", g, p, {b, v, s, mat, material_form(p), {edges, h}}, stream);
  if (pml_cells > 0 && (steps & kPmlStep)) {
    auto k = of_form(material_form(p), [&](auto form) {
      constexpr int F = decltype(form)::value;
      return any(edges) ? velocity_pml_cells<true, F> : velocity_pml_cells<false, F>;
    });
    k<<<blocks_for(pml_cells, 256), 256, 0, stream>>>(p, v, s, mat, a.pml, edges, PmlDivisors::of(p.shape, p.pml));
    check_launch("velocity_pml_cells");
  }
  if (steps & kImagesStep) freeze_faces(p, kVelocityKind, v, stream);
}

void compute_stress(const StepParams& p, const UpdateArrays& arrays, const BoundaryBuffers& ghosts,
                    const BoundaryBuffers& edges, const MarchGeometry& g, cudaStream_t stream, int steps) {
  float *s = arrays.field, *v = arrays.other;
  const float* mat = arrays.mat;
  char *pml = arrays.pml, *anelastic = arrays.anelastic;
  const int64_t pml_cells = p.pml_cells;
  const AnelasticShape& q = arrays.q;
  const PmlBox b = interior(p);
  const AnelasticView a = anelastic ? anelastic_view(anelastic, p.shape, q) : AnelasticView{};
  // Ondes3D's Day and Bradley's sxz pass (day_bradley.hpp) reads the velocity's x ghosts from the
  // arrays: with it, no x halo is read from the buffers.
  const bool sxz_pass = anelastic && q.yz_skew != kNoSkew;
  const XHalo h = sxz_pass ? XHalo{} : march::x_halo(p.shape, b, ghosts);
  if (steps & kGhostsStep) load_ghosts(p.shape, kVelocityKind, ghosts, v, stream, h);
  if ((steps & kGhostsStep) && p.free_surface == kOndes3dSurface)
    ondes3d_surface(p, v, mat, ghosts, free_abs(p, s, pml, anelastic, q), stream);
  if ((steps & kGhostsStep) && a.kristek_moczo) km_memory(p, v, mat, pml, a, stream);
  with_mechanisms(update_mechanisms(anelastic, q), [&](auto n) {
    constexpr int N = decltype(n)::value;
    const int f = stress_form(material_form(p), N);
    // Ondes3D's Day and Bradley (one memory set) in kernels of their own: the others' fold its paths away.
    with_ondes3d<N == 1>(a.ondes3d, [&](auto ondes3d) {
      constexpr bool D = decltype(ondes3d)::value;
      if (steps & kMarchStep) {
        using S = march::Stress<N, D>;
        march::march_block<S::template Kernel, S::kMaxBlocks>("stress_march", g, p, {b, s, v, mat, f, {edges, h}},
                                                              stream, a);
      }
      if (pml_cells > 0 && (steps & kPmlStep)) {
        auto k = of_form(f, [&](auto form) {
          constexpr int F = stress_form(decltype(form)::value, N);
          return any(edges) ? stress_pml_cells<true, N, F, D> : stress_pml_cells<false, N, F, D>;
        });
        k<<<blocks_for(pml_cells, 256), 256, 0, stream>>>(p, s, v, mat, pml, a, edges, PmlDivisors::of(p.shape, p.pml));
        check_launch("stress_pml_cells");
      }
    });
  });
  if ((steps & kImagesStep) && sxz_pass) {  // after every cell's own update
    ondes3d_sxz_kernel<<<xy_grid(p.shape), dim3(kTx, kTy), 0, stream>>>(p, s, v, mat, a, edges);
    check_launch("ondes3d_sxz_kernel");
  }
  if ((steps & kImagesStep) && a.kristek_moczo) {  // after every cell's own update; its edges again
    km_stress(p, s, a, stream);
    if (any(edges)) save_edges(p.shape, kStressKind, s, edges, stream);
  }
  if (steps & kImagesStep) freeze_faces(p, kStressKind, s, stream);
  if (p.free_surface && (steps & kImagesStep)) {
    image_kernel<<<xy_grid(p.shape), dim3(kTx, kTy), 0, stream>>>(p.shape, s, image_damping(p), a.image_stride);
    check_launch("image_kernel");
  }
}

}  // namespace ondes::cuda
#endif
