// The CPU rows' C-PML passes: a row's runs of PML cells (pml_row), each corrected right after the
// row's interior update while its fields are in cache (velocity_pml_run, stress_pml_run), the
// per-cell C-PML arithmetic being codelets/pml_cells.hpp's.
#pragma once
#include "codelets/pml_cells.hpp"

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {
namespace {

// The cells of row (j, k) inside the PmlBox: [i0, i1), empty if the row lies outside it.
ONDES_ROW inline std::pair<int, int> interior_span(const PmlBox& b, const BlockShape& s, int j, int k) {
  if (j < b.lo[1] || j >= b.hi[1] || k < b.lo[2] || k >= b.hi[2]) return {0, 0};
  return {std::min(b.lo[0], s.nx), std::min(std::max(b.hi[0], b.lo[0]), s.nx)};
}

// The C-PML correction of row (j, k)'s PML cells, right after the row's interior update while its
// fields are still in cache: the row's runs of PML cells damped along the same axes, each as
// run(first i, length, its first cell's place in the PML list, DampedAxes<mask>{}). A row outside
// the PmlBox in y or z is all PML: three runs, x damped in the two outside the box's x span only,
// so that the middle one neither reads nor writes x's memory variables (24 bytes a cell and
// field). One run with x damped throughout gives the same bits (inside the box's x span the x
// profile's a is zero, so those variables stay +0 and add +0, stencil.hpp's pml_memory); three
// runs move fewer bytes (docs/performance.md, Decisions: PML runs).
// A row crossing the box has the cells left and right of it (x damped only).
template <class RunFn>
ONDES_ROW inline void pml_row(const PmlBox& b, const BlockShape& s, int j, int k, RunFn&& run) {
  const int yz = int(j < b.lo[1] || j >= b.hi[1]) << 1 | int(k < b.lo[2] || k >= b.hi[2]) << 2;
  const int x_lo = std::min(b.lo[0], s.nx), x_hi = std::max(b.hi[0], x_lo);
  auto segment = [&](int i0, int i1, int mask) ONDES_ROW {
    if (i1 <= i0) return;
    const int64_t q0 = pml_index(b, s, i0, j, k);
    switch (mask) {
      case 1: run(i0, i1 - i0, q0, DampedAxes<1>{}); break;
      case 2: run(i0, i1 - i0, q0, DampedAxes<2>{}); break;
      case 3: run(i0, i1 - i0, q0, DampedAxes<3>{}); break;
      case 4: run(i0, i1 - i0, q0, DampedAxes<4>{}); break;
      case 5: run(i0, i1 - i0, q0, DampedAxes<5>{}); break;
      case 6: run(i0, i1 - i0, q0, DampedAxes<6>{}); break;
      case 7: run(i0, i1 - i0, q0, DampedAxes<7>{}); break;
      default: break;  // not a PML run
    }
  };
  segment(0, x_lo, yz | 1);
  if (yz) segment(x_lo, x_hi, yz);
  segment(x_hi, s.nx, yz | 1);
}

// A run of len PML cells of row `row` from cell i0 (place q0 in the PML list), damped along
// `damped`: their C-PML increments, added after the row's interior update. (Their whole update in
// one pass instead, for the rows outside the PmlBox, was no faster: docs/performance.md,
// Decisions: PML runs.)
// A PML run's sub-runs of cells whose points have the same classes (PerCell: Ondes3D's geological
// nodes; first: the run's first cell's place among the point words), f(t0, t1, their words): the
// classes read once a sub-run, so that a sub-run's profiles are contiguous in x as the plane's are
// and its loop vectorises; the whole run at once otherwise (no words).
template <bool PerCell, class F>
ONDES_ROW inline void by_point_words(const PmlView& pv, int64_t first, int len, F&& f) {
  if constexpr (!PerCell) {
    f(0, len, nullptr);
  } else {
    const PmlPointWords* w = pv.point_class + first;
    auto same = [&](int a, int b) { return w[a].w[0] == w[b].w[0] && w[a].w[1] == w[b].w[1]; };
    for (int t0 = 0, t1; t0 < len; t0 = t1) {
      for (t1 = t0 + 1; t1 < len && same(t1, t0);) ++t1;
      const PmlPointWords words = w[t0];
      f(t0, t1, &words);
    }
  }
}

// A run of PML cells of row (j, k) (its first cell's padded index `row`, the row's plane kind
// `plane`): len cells from i0, the first one q0 in the PML list.
struct PmlRun {
  int64_t row;
  int i0, len;
  int64_t q0;
  int j, k, plane;
};

template <class Damped, class M>
ONDES_RUN void velocity_pml_run(const StepParams& p, float* v, const float* s, const M& material, const PmlView& pv,
                                const PmlRun& r, Damped damped) {
  const M mat = material;  // in registers (as compute.hpp's velocity_row)
  const int64_t n = p.shape.cells(), sy = p.shape.sy(), sz = p.shape.sz();
  const int64_t row = r.row, q0 = r.q0;
  const int i0 = r.i0, len = r.len, j = r.j, k = r.k;
  constexpr bool kNodes = kNodeRows<M>;
  by_point_words<kNodes>(pv, q0, len, [&](int t0, int t1, const PmlPointWords* words) ONDES_ROW {
#pragma GCC ivdep
    for (int t = t0; t < t1; ++t) {
      const int64_t c = row + i0 + t;
      float dp[kVelocityComponents];
      velocity_pml_increments(p, mat.at(c), pv, {q0 + t, i0 + t, j, k}, damped,
                              velocity_diffs(ArrayAt{s, n, c, sy, sz}), dp, words);
      for (int w = 0; w < kVelocityComponents; ++w) v[w * n + c] += dp[w];
    }
  });
}
template <class Damped, class M>
ONDES_RUN void stress_pml_run(const StepParams& p, float* s, const float* v, const M& material, const PmlView& pv,
                              const PmlRun& r, Damped damped) {
  const M mat = material;  // in registers (as compute.hpp's velocity_row)
  const int64_t n = p.shape.cells(), sy = p.shape.sy(), sz = p.shape.sz();
  const int64_t row = r.row, q0 = r.q0;
  const int i0 = r.i0, len = r.len, j = r.j, k = r.k, plane = r.plane;
  constexpr bool kNodes = kNodeRows<M>;
  by_point_words<kNodes>(pv, pv.count + q0, len, [&](int t0, int t1, const PmlPointWords* words) ONDES_ROW {
#pragma GCC ivdep
    for (int t = t0; t < t1; ++t) {
      const int64_t c = row + i0 + t;
      stress_pml_rates<kNodes>(p, elastic_moduli(mat.at(c)), pv, {q0 + t, i0 + t, j, k, plane}, damped,
                               stress_diffs(ArrayAt{v, n, c, sy, sz}, plane),
                               [&](int w, float x) { s[w * n + c] += x; }, words);
    }
  });
}

}  // namespace
}  // namespace ondes::cpu
#endif
