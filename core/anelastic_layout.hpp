// The anelastic buffer of a block (attenuating media): its layout and the view the stress
// codelets read (codelets/anelastic.hpp anelastic_stress, codelets/day_bradley.hpp).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/layout.hpp"

namespace ondes {

// A block's anelastic buffer (attenuating media; physics/attenuation.hpp, anelastic.hpp's
// anelastic_stress): the memory variables [set][StressComponent][cells] (stress units; bfloat16
// words or floats: AnelasticShape::narrow_memory), then
// the Q classes, then per class and mechanism the gains of the P and shear moduli, then each
// mechanism's decay over a step. Layered media: a class per z plane (int32, ghost planes
// included: an index into the case's distinct (Qp, Qs) pairs; a class constant along a row keeps
// the CPU loop vectorised). 3D models (per_cell): a class per padded cell, Qp's rung of
// physics/attenuation.hpp's ladder in the low 16 bits and Qs's in the high ones, the classes being
// the rungs (a rung's P and S gains are the same: a gain depends on Q alone). Ondes3D's Day and
// Bradley on a geological model (per_cell = kCornerClasses): a class per padded cell, four bytes,
// each the class of the Qs its stress points take (DayBradley's corners; its P gain is that of its
// normal stresses' Qs too: computeIntermediates.c `Apx = Q2A(Qsx, ...)`), byte CornerByte. Every mechanism in
// every cell: one memory set per mechanism. Coarse-grained (mechanisms = 1): one memory set, and
// kCubeCells mechanisms, cell (i, j, k) relaxing with mechanism cube_cell(i, j, k) alone.
// The counts travel with the task arguments (a GPU codelet could not read them from device memory).
constexpr int kMaxMechanisms = 8;
constexpr int kCubeCells = 8;  // of a 2 x 2 x 2 cube
// Calls f(std::integral_constant<int, N>{}) for the attenuating stress update's memory sets N (3 to
// kMaxMechanisms: physics/attenuation.hpp's mechanisms_for; 1: coarse-grained), or N = 0 for an
// elastic one.
// Always inlined: called from a CPU sweep compiled in several clones (ONDES_SWEEP), it must be
// part of each (a function of its own is compiled once, for the build's -march).
template <class F>
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline void with_mechanisms(int n, F&& f) {
  switch (n) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 5: f(std::integral_constant<int, 5>{}); break;
    case 6: f(std::integral_constant<int, 6>{}); break;
    case 7: f(std::integral_constant<int, 7>{}); break;
    case 8: f(std::integral_constant<int, 8>{}); break;
    default: f(std::integral_constant<int, 0>{}); break;
  }
}
static_assert(kMaxMechanisms == 8, "with_mechanisms lists the counts");
// The attenuation a compute_stress task applies: mechanisms 0 for an elastic medium, 1 for a
// coarse-grained one; parity: bit 0 the block's first x index's parity, bit 1 its first y's (the
// cube cells follow the global indices, so every layout relaxes a cell alike).
// Ondes3D's Day and Bradley cells (ondes3d = 1; physics/attenuation.hpp DayBradley): a stress
// point's relaxation time follows the signs and parities of its Ondes3D cell's indices as C's %
// gives them (computeIntermediates.c ComputeIntermediates: tk from imp % 2, jmp % 2 and k % 2,
// each -1, 0 or 1). origin: the Ondes3D (jmp, imp, k) of the block's normal stresses at (0, 0, 0),
// its k counted up; Ondes3D's cell of a point of ours shifts by one along its x for sxy and syz
// (its xy and xz lie half a cell before its xx), and down one for sxz and syz (its xz and yz half
// a cell above its xx). images: its surface's images take the memory back (anelastic.hpp
// anelastic_stress). yz_skew, x0: where its misplaced fyz drives sxz's memory
// (codelets/day_bradley.hpp); yz_skew kNoSkew: nowhere; yz_levels 0: in the next column along its
// y (a layered grid's few levels), else its arrays' z levels, the drive landing in the column's own
// cell (a geological grid's).
constexpr int kOndes3dCubeCells = 27, kNoSkew = -2147483647 - 1;
// per_cell values: a class per plane, a class per cell (Qp | Qs << 16), four corner classes a cell.
enum PerCellClasses : int { kPlaneClasses = 0, kCellClasses = 1, kCornerClasses = 2 };
// The corner classes' bytes: the normal stresses', sxy's, sxz's and syz's.
enum CornerByte : int { kNormalCorner = 0, kXyCorner = 1, kXzCorner = 2, kYzCorner = 3 };
constexpr int kMaxCornerClasses = 256;
ONDES_HD constexpr int ondes3d_cube_cell(int imp_mod, int jmp_mod, int k_mod) {
  return (imp_mod + 1) + 3 * (jmp_mod + 1) + 9 * (k_mod + 1);
}
// Ondes3D's Kristek and Moczo (kristek_moczo = 1; codelets/kristek_moczo.hpp): one memory set (its
// six ksil a cell), a class per plane (int32: the class of the plane's layer in the low 16 bits,
// that of the layer half a cell above in the high ones: its k2ly0 and k2ly2), per class and
// pulsation its Ylkap~ and Ylmu~ (the P and S slots), and the decays el then the drives' weights fl
// of the four pulsations; origin: the Ondes3D local (j, i, k) of the block's normal stresses at
// (0, 0, 0).
constexpr int kKmPulsations = 4;
struct AnelasticShape {
  int mechanisms = 0, classes = 0, parity = 0, per_cell = 0;
  int ondes3d = 0, images = 0, yz_skew = kNoSkew, x0 = 0, yz_levels = 0;
  int origin[3] = {0, 0, 0};
  int kristek_moczo = 0;
  // Stochastic rounding of narrow memory (codelets/anelastic.hpp round_word): the block's part of
  // the seeds (its origin's: partition/block_data.cpp) and the step's (block_seed and the time of
  // its stress: step_seed).
  uint32_t block_seed = 0, seed = 0;
  // Our schemes keep their memory sets in bfloat16 words (codelets/anelastic.hpp round_word);
  // Ondes3D's Day and Bradley and Kristek and Moczo in floats, as Ondes3D does.
  ONDES_HD bool narrow_memory() const { return mechanisms > 0 && !ondes3d && !kristek_moczo; }
  ONDES_HD int memory_bytes() const { return narrow_memory() ? 2 : 4; }
  ONDES_HD int gain_sets() const {
    return kristek_moczo ? kKmPulsations : ondes3d ? kOndes3dCubeCells : mechanisms == 1 ? kCubeCells : mechanisms;
  }
  // The decay floats: one a gain set, and with Kristek and Moczo each pulsation's fl too.
  ONDES_HD int decays() const { return (kristek_moczo ? 2 : 1) * gain_sets(); }
};
// The seeds of narrow memory's stochastic rounding (codelets/anelastic.hpp round_word), so that a
// cell's random bits follow its global indices and the step, whatever the blocks: a block's part
// (block_seed, from its origin) plus the step's (step_seed), and a cell's from those and its
// block-local indices (cell_seed): mix32 of seed + (x0 + x) A + (y0 + y) B + z C, modulo 2^32.
// mix32: C. Wellons' lowbias32 (every output bit depends on every input bit).
ONDES_HD constexpr uint32_t mix32(uint32_t x) {
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu;
  return x ^ (x >> 16);
}
constexpr uint32_t kSeedX = 0x9e3779b1u, kSeedY = 0x85ebca77u, kSeedZ = 0xc2b2ae3du;
constexpr uint32_t block_seed(int x0, int y0) { return uint32_t(x0) * kSeedX + uint32_t(y0) * kSeedY; }
// t: the time of the stress update (the same double on every path that submits it).
inline uint32_t step_seed(uint32_t block, double t) {
  uint64_t b = 0;
  std::memcpy(&b, &t, sizeof b);
  return block + mix32(uint32_t(b) ^ uint32_t(b >> 32));
}
ONDES_HD inline uint32_t cell_seed(uint32_t seed, int x, int y, int z) {
  return mix32(seed + uint32_t(x) * kSeedX + uint32_t(y) * kSeedY + uint32_t(z) * kSeedZ);
}

// A float's bits and back; a bfloat16 word's value (the word the high half of a float's bits).
#if defined(__CUDA_ARCH__)
ONDES_HD inline uint32_t float_bits(float x) { return __float_as_uint(x); }
ONDES_HD inline float bits_float(uint32_t b) { return __uint_as_float(b); }
#else
ONDES_HD inline uint32_t float_bits(float x) { return __builtin_bit_cast(uint32_t, x); }
ONDES_HD inline float bits_float(uint32_t b) { return __builtin_bit_cast(float, b); }
#endif
ONDES_HD inline float word_value(uint16_t w) { return bits_float(uint32_t(w) << 16); }
// Narrow memory keeps a set's six words by pairs, a 32-bit word each (one load and one store for
// two variables; a prefetched cell holds half the registers): pair p holds component 2 p in its low
// half and 2 p + 1 in its high half. The value of a pair's half h (0 low, 1 high):
constexpr int kMemoryPairs = kStressComponents / 2;
ONDES_HD inline float pair_value(uint32_t pair, int h) { return bits_float(h ? pair & 0xffff0000u : pair << 16); }

struct AnelasticLayout {
  int64_t class_offset = 0, gains_offset = 0, decay_offset = 0, bytes = 0;  // the memory starts at 0
  ONDES_HD static AnelasticLayout of(const BlockShape& s, const AnelasticShape& q) {
    AnelasticLayout l;
    l.class_offset = q.memory_bytes() * int64_t(kStressComponents) * q.mechanisms * s.cells();
    l.gains_offset = l.class_offset + 4 * (q.per_cell ? s.cells() : int64_t(s.nz) + 2 * kGhost);
    l.decay_offset = l.gains_offset + 4 * int64_t(2) * q.gain_sets() * q.classes;
    l.bytes = l.decay_offset + 4 * int64_t(q.decays());
    return l;
  }
};
// A cell's relaxation: mechanism l's gains p[2 l] (P modulus) and s[2 l] (shear), its decay[l];
// with corner classes sxy's, sxz's and syz's shear gains at s + o[0], o[1], o[2] (else 0).
struct CellRelaxation {
  const float* p;
  const float* s;
  const float* decay;
  int o[3];
  // The shear gains of component c (StressComponent).
  ONDES_HD const float* shear(int c) const { return c < SXY ? s : s + o[c - SXY]; }
};
struct AnelasticView {
  float* memory;
  const int32_t* cls;  // [plane] from k = -kGhost, or per_cell [padded cell]
  const float* gains;  // [class][mechanism][P, S]
  const float* decay;  // [mechanism]
  int sets, parity, per_cell;  // AnelasticShape::gain_sets(), parity, per_cell
  int ondes3d, yz_skew, x0, origin[3], yz_levels;  // AnelasticShape's
  int64_t image_stride;                 // AnelasticShape::images: a plane's cells (BlockShape::sz); else 0
  int kristek_moczo;                    // AnelasticShape's
  int narrow;                           // AnelasticShape::narrow_memory(): the memory in pairs()
  uint32_t seed;                        // AnelasticShape's
  // The memory sets as pairs of bfloat16 words (kMemoryPairs): [set][pair][padded cell].
  ONDES_HD uint32_t* pairs() const { return reinterpret_cast<uint32_t*>(memory); }
  // Cell (i, j, k)'s mechanism in its cube, coarse-grained (block-local indices); Ondes3D's Day and
  // Bradley: that of its normal stresses.
  ONDES_HD int cube_cell(int i, int j, int k) const {
    if (ondes3d) return ondes3d_cell(SXX, i, j, k);
    return ((i + parity) & 1) | (((j + (parity >> 1)) & 1) << 1) | ((k & 1) << 2);
  }
  // Ondes3D's Day and Bradley: component c's mechanism at cell (i, j, k).
  ONDES_HD int ondes3d_cell(int c, int i, int j, int k) const {
    const int dx = c == SXY || c == SYZ, dz = c == SXZ || c == SYZ;
    return ondes3d_cube_cell((j + origin[1] + dx) % 2, (i + origin[0]) % 2, (origin[2] - k - dz) % 2);
  }

  // The relaxation of cell (i, j, k), padded index q, for N memory sets: its class's N mechanisms,
  // or, coarse-grained (N = 1), its cube cell's one.
  template <int N>
  ONDES_HD CellRelaxation relaxation(int i, int j, int k, int64_t q) const {
    const float *p, *s;
    int o[3] = {0, 0, 0};
    if (per_cell == kCornerClasses) {
      const uint32_t c = uint32_t(cls[q]), normal = c & 0xff;
      p = gains + 2 * sets * normal, s = p + 1;
      for (int b = 0; b < 3; ++b) o[b] = 2 * sets * (int((c >> (8 * (b + 1))) & 0xff) - int(normal));
    } else if (per_cell) {
      const int32_t c = cls[q];
      p = gains + 2 * sets * (c & 0xffff), s = gains + 2 * sets * (c >> 16) + 1;
    } else {
      p = gains + 2 * sets * cls[k + kGhost], s = p + 1;
    }
    if constexpr (N == 1) {
      const int l = cube_cell(i, j, k);
      return {p + 2 * l, s + 2 * l, decay + l, {o[0], o[1], o[2]}};
    } else {
      return {p, s, decay, {o[0], o[1], o[2]}};
    }
  }
};
// f(float index, pair index, half) for every memory variable of `sets` sets over `cells` cells.
template <class F>
void for_memory_words(int sets, int64_t cells, F&& f) {
  for (int v = 0; v < sets * kStressComponents; ++v)
    for (int64_t i = 0; i < cells; ++i)
      f(size_t(v * cells + i), size_t((v / 2) * cells + i), v & 1);
}
// A block's memory sets as floats, [set][component][cell] (a checkpoint's: narrow memory's pairs of
// words widened, exactly), and back (a checkpoint's floats into words rounded to nearest even:
// exact for a narrow run's).
inline std::vector<float> memory_floats(const char* buffer, const BlockShape& s, const AnelasticShape& q) {
  std::vector<float> z(size_t(kStressComponents) * q.mechanisms * s.cells());
  if (!q.narrow_memory()) std::memcpy(z.data(), buffer, z.size() * sizeof(float));
  else
    for_memory_words(q.mechanisms, s.cells(), [&](size_t f, size_t p, int h) {
      z[f] = pair_value(reinterpret_cast<const uint32_t*>(buffer)[p], h);
    });
  return z;
}
inline void store_memory_floats(const std::vector<float>& z, char* buffer, const AnelasticShape& q) {
  if (!q.narrow_memory()) return void(std::memcpy(buffer, z.data(), z.size() * sizeof(float)));
  auto* pairs = reinterpret_cast<uint32_t*>(buffer);
  const int64_t cells = int64_t(z.size()) / (kStressComponents * q.mechanisms);
  for_memory_words(q.mechanisms, cells, [&](size_t f, size_t p, int h) {
    const uint32_t b = float_bits(z[f]), w = (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;
    pairs[p] = h ? (pairs[p] & 0xffffu) | (w << 16) : (pairs[p] & 0xffff0000u) | w;
  });
}

ONDES_HD inline AnelasticView anelastic_view(char* buffer, const BlockShape& s, const AnelasticShape& q) {
  const AnelasticLayout l = AnelasticLayout::of(s, q);
  return {reinterpret_cast<float*>(buffer), reinterpret_cast<const int32_t*>(buffer + l.class_offset),
          reinterpret_cast<const float*>(buffer + l.gains_offset), reinterpret_cast<const float*>(buffer + l.decay_offset),
          q.gain_sets(), q.parity, q.per_cell, q.ondes3d, q.yz_skew, q.x0, {q.origin[0], q.origin[1], q.origin[2]},
          q.yz_levels, q.images ? s.sz() : 0, q.kristek_moczo, q.narrow_memory(), q.seed};
}

}  // namespace ondes
