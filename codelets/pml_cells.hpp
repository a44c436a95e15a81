// The C-PML cells of a block, beside its interior update (codelets/compute.hpp): one cell's
// memory-variable update and additive correction (shared by CPU and CUDA), then on the CPU each
// row's runs of PML cells corrected right after the row's interior update (the runs damped along
// the same axes, one instantiation per damped-axes mask); on the GPU, one thread per PML cell in the
// block's PML list order, the interior update and the C-PML correction together. The same per-cell
// functions of stencil.hpp on both, hence the same bits.
#pragma once
#include <algorithm>
#include <utility>

#include "codelets/kernel_support.hpp"
#include "codelets/material.hpp"
#include "codelets/anelastic.hpp"
#include "codelets/stencil.hpp"
#include "core/diff_places.hpp"
#include "core/fast_div.hpp"
#include "core/pml_layout.hpp"

namespace ondes {

// ---- C-PML: one cell's memory-variable update, then the additive correction ----

// The parts of a block's PML buffer (PmlLayout): the cells' padded indices, sorted; the profiles;
// the memory variables, [18][count]. xy_int, xy_half: the x and y profiles of plane k's integer and
// half levels' vp classes, set by at_plane(k) before any cell of the plane; one_class: the block's
// levels are all of class 0 (StepParams::pml_classes == 1), whose profiles are taken without
// reading the plane's classes (on the GPU that load came before the profiles' on every thread's
// path). (Two named pointers, not an array: an array indexed in the unrolled loop went to local
// memory on the GPU, 8-56 bytes of stack in the PML kernels.)
struct PmlView {
  const int64_t* cells;
  const float* z;
  const int* classes;
  const float* xy_tables;
  float* psi;
  int64_t count;
  const float* xy_int;
  const float* xy_half;
  const PmlPointWords* point_class;  // Ondes3D's geological nodes: the cells' points' classes, or null
  const float* point_tables;
  ONDES_HD PmlView at_plane(const BlockShape& s, int k, bool one_class = false) const {
    PmlView v = *this;
    v.xy_int = one_class ? xy_tables : xy_tables + classes[2 * k] * PmlLayout::xy_floats(s);
    v.xy_half = one_class ? xy_tables : xy_tables + classes[2 * k + 1] * PmlLayout::xy_floats(s);
    return v;
  }
};
// (No test of pml for null here: with one, the CUDA PML kernels kept more values live and spilled
// 8-56 bytes; a block without PML cells takes no view.)
ONDES_CELL PmlView pml_view(const BlockShape& s, char* pml, int64_t count, bool point_classes) {
  const PmlLayout l = PmlLayout::of(s, count);
  return {reinterpret_cast<const int64_t*>(pml),
          reinterpret_cast<const float*>(pml + l.z_offset),
          reinterpret_cast<const int*>(pml + l.classes_offset),
          reinterpret_cast<const float*>(pml + l.xy_offset),
          reinterpret_cast<float*>(pml + l.psi_offset),
          count,
          nullptr,
          nullptr,
          point_classes ? reinterpret_cast<const PmlPointWords*>(pml + l.point_offset) : nullptr,
          reinterpret_cast<const float*>(pml + l.point_tables_offset)};
}

// A PML cell: its place p in the block's PML list (and its memory variables'), (i, j, k) in the
// block, and for the stress its plane's kind (z_plane).
struct PmlAt {
  int64_t p;
  int i, j, k;
  int plane = kInterior;
};

// psi <- b psi + a d/h for the nine differences of PML cell at.p, at (i, j, k) of the block; d is
// replaced by the new psi. Where the differences live is a template argument (kVelocityPlaces or
// kStressPlaces), so each difference's profile is known at compile time: along a run of cells in x
// the x profiles are contiguous and the y and z ones constant, and the CPU loop vectorises.
// The axes along which a PML cell is damped (bit a): those whose coordinate lies outside the
// PmlBox. Along the others the profile's a is zero at the cell (integer and half positions alike,
// physics/pml.hpp), so their memory variables stay +0 for ever (b x +0 + (+-0) = +0) and so do
// the corrections: pml_memory writes +0 for them without reading or writing memory, the same bits
// as the recursion would give. DampedAxes<M> is the mask known at compile time (a CPU run of
// cells with the same mask), DampedMask the one a CUDA thread computes.
ONDES_CELL int damped_axes(const PmlBox& b, int i, int j, int k) {
  return int(i < b.lo[0] || i >= b.hi[0]) | int(j < b.lo[1] || j >= b.hi[1]) << 1 |
         int(k < b.lo[2] || k >= b.hi[2]) << 2;
}
template <int Mask>
struct DampedAxes {
  ONDES_HD constexpr bool operator()(int a) const { return (Mask >> a) & 1; }
};
struct DampedMask {
  int mask;
  ONDES_HD bool operator()(int a) const { return (mask >> a) & 1; }
};

// PerCell: the coefficients are those of the class of the difference's field point
// (PmlView::point_class, Ondes3D's geological nodes) rather than of the cell's plane; `words`, where
// given, the cell's classes already read (a CPU run of cells of the same classes: by_point_words).
// Store false: the new memory in d only (Kristek and Moczo's ksil, driven by it before the stress
// update writes it: codelets/kristek_moczo.hpp).
template <uint32_t Axes, uint32_t Halves, uint32_t ZHalves, bool PerCell, class Damped, bool Store = true>
ONDES_CELL void pml_memory(const StepParams& sp, const PmlView& v, PmlAt at, int psi_base,
                           const Damped& damped, Diffs& d, const PmlPointWords* words = nullptr) {
  constexpr DiffPlaces where{Axes, Halves};
  const BlockShape& s = sp.shape;
  const float inv_h = sp.inv_h;
  const int64_t p = at.p;
  const int ijk[3] = {at.i, at.j, at.k};
  const int n_axis[3] = {s.nx, s.ny, s.nz};
  // Every memory variable is loaded before any is stored: the compiler cannot tell that a store
  // misses the next variable's load, and would otherwise wait for memory once per variable (the
  // CUDA PML kernels ran latency-bound).
  float old[9];
  ONDES_UNROLL
  for (int q = 0; q < 9; ++q)
    if (damped(where.axis(q))) old[q] = v.psi[(psi_base + q) * v.count + p];
  // PerCell: the classes of the cell's points of this update, one load with the memory variables'
  const PmlPointWords cls = !PerCell ? PmlPointWords{} : words ? *words : v.point_class[(psi_base == 0 ? 0 : v.count) + p];
  ONDES_UNROLL
  for (int q = 0; q < 9; ++q) {
    const int a = where.axis(q);
    if (!damped(a)) {
      d.d[q] = 0.0f;
      continue;
    }
    // PerCell: the point class's tables; else x and y: the tables of the class of the field's level
    // (ZHalves: the fields half a cell down), z: the block's
    const int point = cls.of(pml_point_slot(pml_point(psi_base + q)));
    const float* base = PerCell  ? v.point_tables + point * PmlLayout::point_floats(s) + PmlLayout::axis_offset(s, a)
                        : a == 2 ? v.z
                                 : ((ZHalves >> q) & 1 ? v.xy_half : v.xy_int) + PmlLayout::axis_offset(s, a);
    const float* t = base + 2 * where.half(q) * n_axis[a];
    const float ca = t[ijk[a]], cb = t[n_axis[a] + ijk[a]];
    const float m = cb * old[q] + ca * (d.d[q] * inv_h);
    if (Store) v.psi[(psi_base + q) * v.count + p] = m;
    d.d[q] = m;
  }
}

// The C-PML part of PML cell p's update (at (i, j, k) of the block, damped along `damped`), from
// the differences d of its interior update: the memory variables, then the additive term, as
// increments (velocity) or rates put per component (stress, like hooke). A PML cell's new value is
// (old + interior increment) + C-PML increment, in that order everywhere: the CPU rows add the
// second in a pass of their own over the PML runs, the CUDA kernels both in registers.
template <class M, class Damped>
ONDES_CELL void velocity_pml_increments(const StepParams& sp, const M& m, const PmlView& pv, PmlAt at,
                                        const Damped& damped, Diffs d, float (&dv)[kVelocityComponents],
                                        const PmlPointWords* words = nullptr) {
  pml_memory<kVelocityPlaces.axes, kVelocityPlaces.halves, kVelocityZHalves, kOndes3dNodes<M>>(sp, pv, at, 0, damped, d,
                                                                                              words);
  velocity_increments(m, d, sp.dt, dv);
}
// PerCell: Ondes3D's geological nodes (PmlView::point_class; words as pml_memory's).
template <bool PerCell, class Damped, class Put>
ONDES_CELL void stress_pml_rates(const StepParams& sp, const Moduli& u, const PmlView& pv, PmlAt at,
                                 const Damped& damped, Diffs d, Put&& put, const PmlPointWords* words = nullptr) {
  pml_memory<kStressPlaces.axes, kStressPlaces.halves, kStressZHalves, PerCell>(sp, pv, at, 9, damped, d, words);
  hooke(u, d, sp.dt, at.plane, put);
}

// The whole update of PML cell p (padded index `cell`), for the CUDA per-cell kernels: the interior
// one and the C-PML one from the same differences d and moduli, computed once, then Ondes3D's q0
// damping, with one load and one store of the cell (the damping as a pass of its own reloaded and
// stored the cell again). The CPU rows keep two passes: this form was no faster there (docs/
// performance.md, Decisions: one-pass PML cells).
template <class M, class Damped>
ONDES_CELL void velocity_pml_update(const StepParams& sp, float* v, const M& m, const PmlView& pv, PmlAt at,
                                    int64_t cell, const Damped& damped, const Diffs& d) {
  const int64_t n = sp.shape.cells();
  float old[kVelocityComponents], dv[kVelocityComponents], dp[kVelocityComponents];
  ONDES_UNROLL
  for (int c = 0; c < kVelocityComponents; ++c) old[c] = v[c * n + cell];  // before the memory's stores
  velocity_increments(m, d, sp.dt_h, dv);
  velocity_pml_increments(sp, m, pv, at, damped, d, dp);
  ONDES_UNROLL
  for (int c = 0; c < kVelocityComponents; ++c) old[c] = (old[c] + dv[c]) + dp[c];
  if (sp.damping.layers) damp_velocity(sp.damping.plane(at.k), old);
  ONDES_UNROLL
  for (int c = 0; c < kVelocityComponents; ++c) v[c * n + cell] = old[c];
}
template <class M, class Damped>
ONDES_CELL void stress_pml_update(const StepParams& sp, float* s, const M& m, const PmlView& pv, PmlAt at,
                                  int64_t cell, const Damped& damped, const Diffs& d) {
  const int64_t n = sp.shape.cells();
  const Moduli u = elastic_moduli(m);
  float now[kStressComponents];
  ONDES_UNROLL
  for (int c = 0; c < kStressComponents; ++c) now[c] = s[c * n + cell];
  hooke(u, d, sp.dt_h, at.plane, [&](int c, float x) { now[c] += x; });
  stress_pml_rates<kOndes3dNodes<M>>(sp, u, pv, at, damped, d, [&](int c, float x) { now[c] += x; });
  if (sp.damping.layers) damp_stress(sp.damping.plane(at.k), now);
  ONDES_UNROLL
  for (int c = 0; c < kStressComponents; ++c) s[c * n + cell] = now[c];
}

// The whole stress update of PML cell p in an attenuating medium: its C-PML memory first, then the
// anelastic update with the stretched differences d + h psi, so that the relaxation is driven by
// the strain rate the PML makes (driven by d alone, the layer reflected S waves: the PML check of
// tests/test_anelastic.cpp). LoadsFirst (the CUDA kernel): the cell's stress and memory sets loaded
// with the C-PML memory, before its stores, which the compiler cannot tell miss them (after them,
// the kernel waited for DRAM twice more); the CPU's vector loops load them after (loaded first, the
// runs were slower): docs/performance.md, Decisions: anelastic PML loads.
template <int N, bool LoadsFirst, class M, class Damped>
ONDES_CELL void anelastic_stress_pml_cell(const StepParams& sp, float* s, const AnelasticCell& c, const M& m,
                                          const PmlView& pv, int64_t p, const Damped& damped, Diffs d) {
  CellMemory<N> z0;
  float now[kStressComponents];
  auto load = [&] {
    z0 = load_memory<N>(c.a, c.n, c.i);
    ONDES_UNROLL
    for (int k = 0; k < kStressComponents; ++k) now[k] = s[k * c.n + c.i];
  };
  if constexpr (LoadsFirst) load();
  Diffs psi = d;
  pml_memory<kStressPlaces.axes, kStressPlaces.halves, kStressZHalves, false>(sp, pv, {p, c.x, c.y, c.z}, 9, damped,
                                                                              psi);
  ONDES_UNROLL
  for (int q = 0; q < 9; ++q) d.d[q] += psi.d[q] / sp.inv_h;
  if constexpr (!LoadsFirst) return add_stress_anelastic<N>(s, c, m, d, sp.dt_h);
  const Moduli u = elastic_moduli(m);
  anelastic_stress<N>(s, c, z0, u, normal_shear(m, u), d, sp.dt_h, [&](int k, float x) { now[k] += x; });
  ONDES_UNROLL
  for (int k = 0; k < kStressComponents; ++k)
    if (!at_surface(c.plane) || k != SZZ) s[k * c.n + c.i] = now[k];
}

}  // namespace ondes

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {

namespace {

// A PML thread's cell: its place t in the PML list (and its memory variables'), its padded index,
// (i, j, k) and the axes it is damped along.
struct PmlCell {
  int64_t t, q;
  int i, j, k;
  DampedMask damped;
};
// Cell t of the block's PML list, found by arithmetic from the PmlBox (the inverse of pml_index:
// (k, j, i) order, a plane outside the box's z span all PML, in a plane crossing it the rows outside
// its y span whole and the others their cells left and right of it), in integers of type I, each
// quotient by div(x, d) (d: PmlSizes' index of the divisor). Not loaded from the list: that load came
// before every other one (the PML kernels ran latency-bound). Not in box order either: in list
// order a plane's PML cells are updated together (docs/performance.md, Decisions: PML cell order).
struct PmlSizes {
  enum { kFull, kPlane, kRow, kNx, kCount };  // nx * ny, a crossing plane's PML cells, a crossing row's, nx
  int64_t d[kCount];
  ONDES_HD static PmlSizes of(const BlockShape& s, const PmlBox& b) {
    const int64_t nx = s.nx, box_x = b.hi[0] - b.lo[0], box_y = b.hi[1] - b.lo[1], row = nx - box_x;
    return {{nx * s.ny, (s.ny - box_y) * nx + box_y * row, row, nx}};
  }
};
template <class I, class Div>
__device__ inline void pml_place(const BlockShape& s, const PmlBox& b, const PmlSizes& z, I t, int& i, int& j, int& k,
                                 Div&& div) {
  const I nx = s.nx, box_x = b.hi[0] - b.lo[0], box_y = b.hi[1] - b.lo[1];
  const I full = I(z.d[PmlSizes::kFull]), row_pml = I(z.d[PmlSizes::kRow]), plane_pml = I(z.d[PmlSizes::kPlane]);
  const I before = I(b.lo[2]) * full, crossing = I(b.hi[2] - b.lo[2]) * plane_pml;
  auto in_full = [&](I r) { j = int(div(r, PmlSizes::kNx)), i = int(r - I(j) * nx); };
  if (t < before) {
    k = int(div(t, PmlSizes::kFull)), in_full(t - I(k) * full);
    return;
  }
  if (t >= before + crossing) {
    const I u = t - before - crossing, d = div(u, PmlSizes::kFull);
    k = b.hi[2] + int(d), in_full(u - d * full);
    return;
  }
  const I u = t - before, d = div(u, PmlSizes::kPlane), r = u - d * plane_pml, rows_before = I(b.lo[1]) * nx;
  k = b.lo[2] + int(d);
  if (r < rows_before) return in_full(r);
  if (r < rows_before + box_y * row_pml) {
    const I w = r - rows_before, e = div(w, PmlSizes::kRow), c = w - e * row_pml;
    j = b.lo[1] + int(e), i = int(c < I(b.lo[0]) ? c : c + box_x);
    return;
  }
  in_full(r - rows_before - box_y * row_pml + I(b.hi[1]) * nx);
}
// pml_place's divisors as multiply-and-shift (core/fast_div.hpp), computed once a launch, for
// blocks of at most INT32_MAX cells (the others divide). Why: each PML thread found its cell by two
// or three dependent 32-bit divisions (~20 instructions each, a reciprocal among them) before its
// first load.
struct PmlDivisors {
  FastDiv by[PmlSizes::kCount];
  static PmlDivisors of(const BlockShape& s, const PmlBox& b) {
    const PmlSizes z = PmlSizes::of(s, b);
    PmlDivisors p;
    for (int d = 0; d < PmlSizes::kCount; ++d) p.by[d] = FastDiv(unsigned(std::clamp<int64_t>(z.d[d], 1, INT32_MAX)));
    return p;
  }
};
__device__ inline PmlCell pml_cell(const StepParams& p, const PmlDivisors& fd, int64_t t) {
  int i, j, k;
  const PmlSizes z = PmlSizes::of(p.shape, p.pml);
  if (p.shape.cells() <= INT32_MAX)
    pml_place<uint32_t>(p.shape, p.pml, z, uint32_t(t), i, j, k, [&](uint32_t x, int d) { return fd.by[d](x); });
  else
    pml_place<int64_t>(p.shape, p.pml, z, t, i, j, k, [&](int64_t x, int d) { return x / z.d[d]; });
  return {t, p.shape.idx(i, j, k), i, j, k, DampedMask{damped_axes(p.pml, i, j, k)}};
}

// One thread per PML cell: the interior update and the C-PML correction. Four thread blocks of
// 256 per SM (64 registers): at five (48) both kernels spill, at three they are slower. One cell a
// thread: two (t and t + count/2) no longer share their neighbourhoods with the neighbouring
// warps' (docs/performance.md, Decisions: PML kernel bounds). The list's length comes in the
// StepParams (pml_cells), its divisors apart, the buffers apart: the length in a struct parameter
// with the divisors, or all of them in one, made both kernels spill (docs/performance.md,
// Decisions: PML kernel parameters).
template <bool Save, int Form>
__global__ void __launch_bounds__(256, 4) velocity_pml_cells(StepParams p, float* __restrict__ v, const float* __restrict__ s,
                                   const float* __restrict__ mat, char* pml, BoundaryBuffers e, PmlDivisors fd) {
  if (thread_index() >= p.pml_cells) return;
  const PmlCell c = pml_cell(p, fd, thread_index());
  const PmlView pv = pml_view(p.shape, pml, p.pml_cells, Form == kNodeForm).at_plane(p.shape, c.k, p.pml_classes == 1);
  const auto m = velocity_material<Form>(mat, p.shape, c.q, c.i, c.j, c.k);
  const Diffs d = velocity_diffs(array_at(s, p.shape, c.q));
  velocity_pml_update(p, v, m, pv, {c.t, c.i, c.j, c.k}, c.q, c.damped, d);
  if (Save) save_cell_edges(p.shape, e, kVelocityKind, v, c.q, c.i, c.j, c.k);
}

// Thread blocks of 256 an SM for the stress kernel of N memory sets: elastic four (64 registers);
// attenuating fewer, so that the cell's stress and memory, loaded with the C-PML memory
// (anelastic_stress_pml_cell), stay in registers: three with one set (80), two with more (128); at
// four they spilled (docs/performance.md, Decisions: anelastic PML loads).
constexpr int stress_pml_blocks(int n) { return n == 0 ? 4 : n == 1 ? 3 : 2; }
// Ondes3d: a is Ondes3D's Day and Bradley's (anelastic.hpp known_view; with more than one memory
// set, never: the view is then read as it came, a copy of it spilled those kernels: docs/
// performance.md, Decisions: anelastic PML view).
template <bool Save, int N, int Form, bool Ondes3d>
__global__ void __launch_bounds__(256, stress_pml_blocks(N))
    stress_pml_cells(StepParams p, float* __restrict__ s, const float* __restrict__ v, const float* __restrict__ mat,
                     char* pml, AnelasticView block, BoundaryBuffers e, PmlDivisors fd) {
  const AnelasticView& a = N == 1 ? known_view<Ondes3d>(block) : block;
  if (thread_index() >= p.pml_cells) return;
  const PmlCell c = pml_cell(p, fd, thread_index());
  const PmlView pv = pml_view(p.shape, pml, p.pml_cells, Form == kNodeForm).at_plane(p.shape, c.k, p.pml_classes == 1);
  const int plane = z_plane(c.k, p.free_surface);
  const auto m = stress_material<Form, N>(mat, p.shape, c.q, c.i, c.j, c.k);
  const Diffs d = stress_diffs(array_at(v, p.shape, c.q), plane);
  if constexpr (N == 0) {
    stress_pml_update(p, s, m, pv, {c.t, c.i, c.j, c.k, plane}, c.q, c.damped, d);
  } else {
    const AnelasticCell cell{a, a.relaxation<N>(c.i, c.j, c.k, c.q), p.shape.cells(), c.q, c.i, c.j, c.k, plane, true};
    anelastic_stress_pml_cell<N, true>(p, s, cell, m, pv, c.t, c.damped, d);
    if (p.damping.layers) damp_field<kStressComponents>(p.damping.plane(c.k), s, p.shape.cells(), c.q);
  }
  if (Save) save_cell_edges(p.shape, e, kStressKind, s, c.q, c.i, c.j, c.k);
}

}  // namespace
}  // namespace ondes::cuda
#endif
