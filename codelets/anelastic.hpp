// The stress update of a cell in an attenuating medium, shared by the CPU rows, the CUDA march
// (codelets/march.hpp) and the PML cells (codelets/pml_cells.hpp).
#pragma once
#include <type_traits>

#include "codelets/stencil.hpp"

namespace ondes {

// A cell's stress update in an attenuating medium (stencil.hpp's add_stress for an elastic one): a
// generalized Maxwell body of N relaxation mechanisms in every cell (physics/attenuation.hpp),
//   d sigma/dt = M_U eps' - sum_l zeta_l,   d zeta_l/dt + w_l zeta_l = w_l Y_l M_U eps',
// each modulus (lambda + 2 mu, mu) with its own Y_l (from Qp, Qs). The memory z_l = dt zeta_l is
// advanced by Crank-Nicolson, z_l' = decay_l z_l + dt_h Hooke(gain_l x moduli)(d), decay_l =
// (1 - w_l dt/2) / (1 + w_l dt/2), gain_l = Y_l w_l dt / (1 + w_l dt/2) (the cell's Q class and
// place give r: AnelasticView::relaxation), and the stress takes the mean of the old and new
// memory. At the free surface the anelastic part folds dz vz with the unrelaxed moduli, as the
// elastic part does. N memory sets: every mechanism in every cell, or (N = 1) coarse-grained, the
// cell's one mechanism of its 2 x 2 x 2 cube with the weights of physics/attenuation.hpp's
// fit_coarse_q (8 x the every-cell weights instead missed the exact solution: docs/performance.md,
// Decisions: coarse-grained mean).
// Ondes3D's Day and Bradley (a.ondes3d: physics/attenuation.hpp day_bradley_relaxation), as its
// computeIntermediates.c LocalComputeDayBradley and computeStress.c computeStress compute it: at
// the surface its memory's drive folds dz vz with the sign reversed (its dzV0z), and in its C-PML
// (FREEABS) not at all (pml); its yz, our sxz, keeps no memory (it writes fyz to [i][j][j]: only
// the cells of codelets/day_bradley.hpp relax); and the surface's images take its memory back (the
// images above it, t0.xz[1] = -t0.xz[0] and the like, get + dt ksi of the cell they mirror): a cell
// of the surface's two planes leaves its mean memory term in the image slot it mirrors into, which
// image_free_surface_column (codelets/surface.hpp) adds.

// A cell of an attenuating block: the block's anelastic buffer, the cell's relaxation
// (AnelasticView::relaxation), its padded index i (stride n), block indices (x, y, z) and z-plane
// kind, and whether it is a C-PML cell (Ondes3D's Day and Bradley folds no dz vz there).
struct AnelasticCell {
  const AnelasticView& a;
  CellRelaxation r;
  int64_t n, i;
  int x, y, z, plane;
  bool pml = false;
};
// A block's view as the cells of a kernel or row that are not Ondes3D's Day and Bradley's see it
// (Ondes3d false): its tests said where the compiler sees them, they fold away (with them, the CPU
// rows were not vectorised and the CUDA march kept the registers of Day and Bradley's paths).
// With Ondes3d, a view of Day and Bradley's (called where a.ondes3d is set), its memory in floats.
template <bool Ondes3d>
ONDES_CELL AnelasticView known_view(const AnelasticView& a) {
  AnelasticView own = a;
  if constexpr (!Ondes3d) own.ondes3d = 0, own.image_stride = 0, own.narrow = 1;
  if constexpr (Ondes3d) own.ondes3d = 1, own.narrow = 0;
  return own;
}
// f(std::true_type{}) for a block of Ondes3D's Day and Bradley (ondes3d) where Possible, else
// f(std::false_type{}): the kernels that fold its paths away (known_view) serve the others.
// Always inlined, as with_mechanisms (core/anelastic_layout.hpp).
template <bool Possible, class F>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void with_ondes3d(int ondes3d, F&& f) {
  if constexpr (Possible)
    if (ondes3d) return f(std::true_type{});
  f(std::false_type{});
}
// A cell's N memory sets, in registers: floats (Ondes3D's Day and Bradley), or narrow, each set's
// pairs of words as loaded (z or w: the other is never read, and folds away where narrowness is
// said where the compiler sees it).
template <int N>
struct CellMemory {
  static constexpr int kSets = N > 0 ? N : 1;
  float z[kSets][kStressComponents];
  uint32_t w[kSets][kMemoryPairs];
  // Set l's component k, narrow or not; its word (narrow).
  ONDES_CELL float at(int l, int k, bool narrow) const { return narrow ? pair_value(w[l][k / 2], k & 1) : z[l][k]; }
  ONDES_CELL uint16_t word(int l, int k) const { return uint16_t(w[l][k / 2] >> (16 * (k & 1))); }
};
// Narrow memory (AnelasticView::narrow, our schemes): each variable a bfloat16 word, the high half
// of its float's bits, rounded stochastically: the float's bits plus 16 random bits, truncated, so
// that the word's value is the float in expectation. Rounded to nearest, a memory whose decay over
// a step is below half a word's spacing (slow mechanisms, w dt below 2^-9 to 2^-8) would never
// decay, and the others would decay at biased rates; rounded stochastically it decays as the float
// does, with unbiased noise of up to a word's spacing a step, which the stress sums into a small
// part of its own step's increments (tests/test_physics.cpp NarrowMemoryDecaysAsTheExactMemoryDoes,
// tests/test_anelastic.cpp's exact solutions; docs/performance.md, Decisions: narrow memory). The
// random bits: the cell's seed (cell_seed: its global indices and the step) times an odd constant
// per variable, integer operations that the CPU and CUDA compute alike: their words are the same.
ONDES_CELL uint16_t round_word(float z, uint32_t random) { return uint16_t((float_bits(z) + (random >> 16)) >> 16); }
// Variable v's random bits of a cell whose seed is h.
ONDES_CELL uint32_t word_random(uint32_t h, int v) { return h * (0x2c1b3c6du * uint32_t(2 * v + 1)); }
// Whether a cell of N memory sets keeps them narrow, said where the compiler sees it for N > 1:
// more than one set is always one of our schemes (Ondes3D's keep one), and the PML kernels read
// their view as it came (codelets/pml_cells.hpp stress_pml_cells: known_view's copy spilled).
template <int N>
ONDES_CELL bool narrow_memory(const AnelasticView& a) { return N > 1 || a.narrow; }
// A cell's new memory sets, stored set by set: a float where it comes (not narrow), else its word
// kept (`word`: the set's words, the skipped components' as loaded) until the set's pairs are stored
// together (store_set).
struct NewMemory {
  const AnelasticView& a;
  int64_t n, i;
  bool narrow;
  uint32_t h;  // the cell's seed (narrow)
  uint16_t word[kStressComponents];
  // Set l's words as loaded from z0 (narrow): those of the components the update skips stay.
  template <int N>
  ONDES_CELL void start(const CellMemory<N>& z0, int l) {
    ONDES_UNROLL
    for (int k = 0; k < kStressComponents; ++k) word[k] = narrow ? z0.word(l, k) : 0;
  }
  // Variable v = 6 l + k's new value z; returns the value kept.
  ONDES_CELL float put(int v, float z) {
    if (!narrow) return a.memory[v * n + i] = z;
    word[v % kStressComponents] = round_word(z, word_random(h, v));
    return word_value(word[v % kStressComponents]);
  }
  ONDES_CELL void store_set(int l) const {
    if (!narrow) return;
    ONDES_UNROLL
    for (int p = 0; p < kMemoryPairs; ++p)
      a.pairs()[(int64_t(l) * kMemoryPairs + p) * n + i] = uint32_t(word[2 * p]) | uint32_t(word[2 * p + 1]) << 16;
  }
};
template <int N>
ONDES_CELL NewMemory new_memory(const AnelasticCell& c) {
  const bool narrow = narrow_memory<N>(c.a);
  return {c.a, c.n, c.i, narrow, narrow ? cell_seed(c.a.seed, c.x, c.y, c.z) : 0, {}};
}
// Every memory variable is loaded before any is stored: the compiler cannot tell that one
// mechanism's stores miss the next one's loads, and would otherwise wait for DRAM N times a cell
// (docs/performance.md, Decisions: anelastic loads).
template <int N>
ONDES_CELL CellMemory<N> load_memory(const AnelasticView& a, int64_t n, int64_t i) {
  CellMemory<N> m{};
  ONDES_UNROLL
  for (int l = 0; l < N; ++l) {
    if (narrow_memory<N>(a)) {
      ONDES_UNROLL
      for (int p = 0; p < kMemoryPairs; ++p) m.w[l][p] = a.pairs()[(int64_t(l) * kMemoryPairs + p) * n + i];
    } else {
      ONDES_UNROLL
      for (int c = 0; c < kStressComponents; ++c) m.z[l][c] = a.memory[(int64_t(l) * kStressComponents + c) * n + i];
    }
  }
  return m;
}
// anelastic_stress with one mechanism, not Ondes3D's (coarse-grained), rate Hooke's law of the
// unrelaxed moduli: the mechanism's drive gp x (the P part's rates) + gs x (the S part's) is Hooke's
// law of the moduli gp x P + gs x S, one evaluation instead of two (fewer instructions and
// registers, and other roundings than anelastic_stress's: docs/performance.md, Decisions:
// anelastic rates).
template <class Put>
ONDES_CELL void one_mechanism_stress(const AnelasticCell& c, const CellMemory<1>& z0, const Moduli& u, float mu,
                                     const Diffs& d, float scale, float (&rate)[kStressComponents], Put&& put) {
  const float gp = c.r.p[0], gs = c.r.s[0], decay = c.r.decay[0];
  NewMemory z1 = new_memory<1>(c);
  z1.start(z0, 0);
  float drive[kStressComponents];
  hooke(Moduli{gp * u.l2m - (2.0f * gs) * mu, gp * u.l2m, gs * u.mxy, gs * u.mxz, gs * u.myz, u.lam, u.l2m}, d,
        scale, c.plane, [&](int k, float x) { drive[k] = x; });
  ONDES_UNROLL
  for (int k = 0; k < kStressComponents; ++k) {
    if (at_surface(c.plane) && k == SZZ) continue;
    const float was = z0.at(0, k, z1.narrow);
    put(k, rate[k] - 0.5f * (was + z1.put(k, decay * was + drive[k])));
  }
  z1.store_set(0);
}
// The update of cell c whose memory sets z0 are loaded, u its moduli and mu those at its normal
// stresses (normal_shear): put(component, increment) for each stress component the cell updates
// (Hooke's law of the unrelaxed moduli less the memory's mean), the new memory stored, Ondes3D's
// image slots given their terms (in s). The CPU rows and the CUDA march call it alike.
template <int N, class Put>
ONDES_CELL void anelastic_stress(float* s, const AnelasticCell& c, const CellMemory<N>& z0, const Moduli& u, float mu,
                                 const Diffs& d, float scale, Put&& put) {
  const AnelasticView& a = c.a;
  const int plane = c.plane;
  const float fold = !a.ondes3d ? 1.0f : c.pml ? 0.0f : -1.0f;
  // Hooke's law is linear in the moduli: a mechanism's rates are gain_P x (those of lambda + 2 mu
  // alone) + gain_S x (those of mu alone), 12 values computed once instead of Hooke per mechanism
  // (fewer registers; docs/performance.md, Decisions: anelastic rates).
  float rate[kStressComponents], p_rate[kStressComponents], s_rate[kStressComponents];
  hooke(u, d, scale, plane, [&](int k, float x) { rate[k] = x; });
  if constexpr (N == 1)
    if (!a.ondes3d) return one_mechanism_stress(c, z0, u, mu, d, scale, rate, put);
  hooke(Moduli{u.l2m, u.l2m, 0.0f, 0.0f, 0.0f, fold * u.lam, u.l2m}, d, scale, plane,
        [&](int k, float x) { p_rate[k] = x; });
  hooke(Moduli{-2.0f * mu, 0.0f, u.mxy, u.mxz, u.myz, fold * u.lam, u.l2m}, d, scale, plane,
        [&](int k, float x) { s_rate[k] = x; });
  float kept[kStressComponents] = {};
  const int m0 = a.ondes3d ? a.cube_cell(c.x, c.y, c.z) : 0;
  NewMemory z1 = new_memory<N>(c);
  ONDES_UNROLL
  for (int l = 0; l < N; ++l) {
    z1.start(z0, l);
    ONDES_UNROLL
    for (int k = 0; k < kStressComponents; ++k) {
      if ((at_surface(plane) && k == SZZ) || (a.ondes3d && k == SXZ)) continue;
      const int e = a.ondes3d ? a.ondes3d_cell(k, c.x, c.y, c.z) - m0 : 0;  // k's mechanism (Day and Bradley)
      const float* shear = a.ondes3d ? c.r.shear(k) : c.r.s;  // the corner classes are Day and Bradley's
      const float gp = c.r.p[2 * (l + e)], gs = shear[2 * (l + e)], decay = c.r.decay[l + e];
      const float was = z0.at(l, k, z1.narrow);
      const float mean = 0.5f * (was + z1.put(l * kStressComponents + k, decay * was + (gp * p_rate[k] + gs * s_rate[k])));
      kept[k] += mean;
      rate[k] -= mean;
    }
    z1.store_set(l);
  }
  ONDES_UNROLL
  for (int k = 0; k < kStressComponents; ++k)
    if (!at_surface(plane) || k != SZZ) put(k, rate[k]);
  if (a.image_stride && c.z < 2) {
    const int64_t sz = a.image_stride;  // the slots image_free_surface_column mirrors this cell into
    const int64_t xz = c.z == 0 ? c.i - sz : c.i - 3 * sz;
    s[SXZ * c.n + xz] = kept[SXZ], s[SYZ * c.n + xz] = kept[SYZ];
    if (c.z == 1) s[SZZ * c.n + c.i - 2 * sz] = kept[SZZ];
  }
}
// The same on the block's arrays, m an accessor over the material.
template <int N, class M>
ONDES_CELL void add_stress_anelastic(float* s, const AnelasticCell& c, const M& m, const Diffs& d, float scale) {
  const Moduli u = elastic_moduli(m);
  anelastic_stress<N>(s, c, load_memory<N>(c.a, c.n, c.i), u, normal_shear(m, u), d, scale,
                      [&](int k, float x) { s[k * c.n + c.i] += x; });
}

}  // namespace ondes
