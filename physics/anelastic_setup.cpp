// A block's anelastic buffer filled for a case (physics/grid_setup.hpp anelastic_shape,
// fill_anelastic; core/anelastic_layout.hpp): the Q classes of its planes or cells, their gains and
// the mechanisms' decays.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "physics/attenuation.hpp"
#include "physics/grid_setup.hpp"
#include "physics/medium.hpp"
#include "physics/model3d.hpp"

namespace ondes {

namespace {
// Ondes3D's Day and Bradley on its geological nodes: corner classes (core/anelastic_layout.hpp).
bool corner_classes(const Case& c) { return c.medium.day_bradley.on() && c.medium.ondes3d_nodes(); }

// The distinct 1/Qs of a categorical model's samples (its materials'), in order of first use: a
// corner class is a pair of them (Ondes3D's averageInverseDouble2 of the two nodes' Qs).
std::vector<float> material_inv_qs(const Model3D& m) {
  std::vector<float> out;
  float last = -1;
  for (float v : m.inv_qs) {
    if (v == last) continue;
    last = v;
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  if (out.size() * out.size() > size_t(kMaxCornerClasses))
    throw std::invalid_argument(m.path + ": Ondes3D's Day and Bradley on a geological model takes at most 16 "
                                "distinct Qs among its materials");
  return out;
}

// The distinct (Qp, Qs) of the grid's planes, in depth order: the anelastic buffer's classes.
std::vector<std::pair<double, double>> q_classes(const Case& c) {
  std::vector<std::pair<double, double>> out;
  for (int k = 0; k < c.grid.nz; ++k) {
    const Layer l = cell_properties(c.medium, k * c.grid.h, c.grid.h);
    if (std::find(out.begin(), out.end(), std::pair{l.qp, l.qs}) == out.end()) out.emplace_back(l.qp, l.qs);
  }
  return out;
}
}  // namespace

AnelasticShape anelastic_shape(const Case& c) {
  if (!c.medium.attenuating()) return {};
  AnelasticShape q = c.medium.model_q ? AnelasticShape{memory_sets(c.medium), kQLevels, 0, 1}
                                      : AnelasticShape{memory_sets(c.medium), static_cast<int>(q_classes(c).size())};
  if (const DayBradley& d = c.medium.day_bradley; d.on()) {  // the grid's origin; each block adds its own
    q.ondes3d = 1;
    q.images = c.boundaries.free_surface;
    q.yz_skew = d.yz_skew.value_or(kNoSkew);
    q.yz_levels = d.yz_levels;
    if (corner_classes(c)) {
      const int m = static_cast<int>(material_inv_qs(*c.medium.model).size());
      q.per_cell = kCornerClasses, q.classes = m * m;
    }
    for (int a = 0; a < 3; ++a) q.origin[a] = d.origin[a];
  }
  if (const KristekMoczo& m = c.medium.kristek_moczo; m.on()) {
    q.kristek_moczo = 1;
    q.classes = static_cast<int>(c.medium.layers.size());
    for (int a = 0; a < 3; ++a) q.origin[a] = m.origin[a];
  }
  return q;
}

namespace {
// A 3D model's classes: each padded cell's rungs of Qp and Qs (the cell's properties as
// fill_material takes them), and the gains of every rung a cell uses (the others stay zero).
template <class GainFn>
void fill_cell_classes(const Case& c, int x0, int y0, const BlockShape& s, int nm, int32_t* cls, float* gains,
                       GainFn&& gain) {
  const Grid& g = c.grid;
  auto at = [](int v, int count) { return std::min(std::max(v, 0), count - 1); };
  std::vector<bool> used(kQLevels, false);
  for (int k = -kGhost; k < s.nz + kGhost; ++k)
    for (int j = -kGhost; j < s.ny + kGhost; ++j)
      for (int i = -kGhost; i < s.nx + kGhost; ++i) {
        const Layer l = properties_at(c.medium, at(x0 + i, g.nx) * g.h, at(y0 + j, g.ny) * g.h, at(k, g.nz) * g.h);
        const int lp = q_level(l.qp), ls = q_level(l.qs);
        cls[s.idx(i, j, k)] = lp | ls << 16;
        used[lp] = used[ls] = true;
      }
  for (int level = 0; level < kQLevels; ++level)
    if (used[level])
      for (int l = 0; l < nm; ++l) gains[(level * nm + l) * 2] = gains[(level * nm + l) * 2 + 1] = gain(level_q(level), l);
}
// Ondes3D's Day and Bradley on its nodes (computeIntermediates.c ComputeIntermediates, model ==
// GEOLOGICAL): a stress point's Qs the harmonic mean of two nodes' (averageInverseDouble2), the
// normal stresses' along y (its x corner, whose Qs gives the P gain too: `Apx = Q2A(Qsx, ...)`),
// sxy's along x (its y corner), sxz's and syz's along z (its z corner; its yz, our sxz, takes the
// z corner's as well: `Qsxyz` averages the same two nodes); class a m + b of nodes' materials a, b.
template <class GainFn>
void fill_corner_classes(const Case& c, int x0, int y0, const BlockShape& s, int nm, int32_t* cls, float* gains,
                         GainFn&& gain) {
  const std::vector<float> inv = material_inv_qs(*c.medium.model);
  const int m = static_cast<int>(inv.size());
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b)
      for (int l = 0; l < nm; ++l)
        gains[((a * m + b) * nm + l) * 2] = gains[((a * m + b) * nm + l) * 2 + 1] =
            gain(2.0 / (double(inv[a]) + double(inv[b])), l);
  const Grid& g = c.grid;
  auto at = [](int v, int count) { return std::min(std::max(v, 0), count - 1); };
  std::vector<uint8_t> node(s.cells());  // each padded cell's node's material, as fill_material_planes places it
  for (int k = -kGhost; k < s.nz + kGhost; ++k)
    for (int j = -kGhost; j < s.ny + kGhost; ++j)
      for (int i = -kGhost; i < s.nx + kGhost; ++i) {
        const double q = properties_at(c.medium, at(x0 + i, g.nx) * g.h, at(y0 + j, g.ny) * g.h - 0.5 * g.h,
                                       at(k, g.nz) * g.h).qs;
        int best = 0;
        for (int a = 1; a < m; ++a)
          if (std::abs(inv[a] - 1.0 / q) < std::abs(inv[best] - 1.0 / q)) best = a;
        node[s.idx(i, j, k)] = uint8_t(best);
      }
  for (int k = -kGhost; k < s.nz + kGhost; ++k)
    for (int j = -kGhost; j < s.ny + kGhost; ++j)
      for (int i = -kGhost; i < s.nx + kGhost; ++i) {
        auto n = [&](int di, int dj, int dk) {  // a neighbour's, the padded block's last cells their own
          return int(node[s.idx(std::min(i + di, s.nx + kGhost - 1), std::min(j + dj, s.ny + kGhost - 1),
                                std::min(k + dk, s.nz + kGhost - 1))]);
        };
        const uint32_t corner[4] = {uint32_t(n(0, 0, 0) * m + n(0, 1, 0)), uint32_t(n(0, 1, 0) * m + n(1, 1, 0)),
                                    uint32_t(n(0, 0, 0) * m + n(0, 0, 1)), uint32_t(n(0, 1, 0) * m + n(0, 1, 1))};
        cls[s.idx(i, j, k)] = int32_t(corner[kNormalCorner] | corner[kXyCorner] << 8 | corner[kXzCorner] << 16 |
                                      corner[kYzCorner] << 24);
      }
}
}  // namespace

namespace {
// Ondes3D's Kristek and Moczo on layers (AnelasticShape::kristek_moczo): a class a layer, each
// plane's its own layer's and that of the level half a cell above it (alloAndInit_LayerModel.c
// k2ly0, k2ly2 with POSITION: the layer at the point's depth, an interface's upper one), the
// pulsations' decays and weights (computeIntermediates.c: el = (2 - wl dt) / (2 + wl dt),
// fl = wl dt / (2 + wl dt)).
void fill_kristek_moczo(const Case& c, const BlockShape& s, const AnelasticLayout& layout, char* buffer) {
  auto* cls = reinterpret_cast<int32_t*>(buffer + layout.class_offset);
  auto* gains = reinterpret_cast<float*>(buffer + layout.gains_offset);
  auto* decay = reinterpret_cast<float*>(buffer + layout.decay_offset);
  const std::vector<Layer>& layers = c.medium.layers;
  const double dt = c.time.dt;
  for (size_t l = 0; l < layers.size(); ++l) {
    const KristekMoczoCoefficients k = kristek_moczo(layers[l], c.medium.kristek_moczo, dt);
    for (int p = 0; p < kKmPulsations; ++p) {
      gains[(l * kKmPulsations + p) * 2] = static_cast<float>(k.y_kap[p]);
      gains[(l * kKmPulsations + p) * 2 + 1] = static_cast<float>(k.y_mu[p]);
    }
  }
  const std::array<double, 4> pulsations =
      kristek_moczo_pulsations(c.medium.kristek_moczo.w_min, c.medium.kristek_moczo.w_max);
  for (int p = 0; p < kKmPulsations; ++p) {
    const double w = pulsations[p];
    decay[p] = static_cast<float>((2.0 - w * dt) / (2.0 + w * dt));
    decay[kKmPulsations + p] = static_cast<float>(w * dt / (2.0 + w * dt));
  }
  auto index = [&](double z) {
    const Layer& l = layer_above(c.medium, z);
    return static_cast<int32_t>(&l - layers.data());
  };
  for (int z = -kGhost; z < s.nz + kGhost; ++z) {
    const int k0 = std::min(std::max(z, 0), c.grid.nz - 1);
    cls[z + kGhost] = index(k0 * c.grid.h) | index((k0 - 0.5) * c.grid.h) << 16;
  }
}
}  // namespace

void fill_anelastic(const Case& c, int x0, int y0, const BlockShape& s, char* buffer) {
  if (c.medium.kristek_moczo.on()) return fill_kristek_moczo(c, s, AnelasticLayout::of(s, anelastic_shape(c)), buffer);
  const std::vector<std::pair<double, double>> classes =
      c.medium.model_q ? std::vector<std::pair<double, double>>{} : q_classes(c);
  const AnelasticShape shape = anelastic_shape(c);
  const int nm = shape.gain_sets();
  const AnelasticLayout layout = AnelasticLayout::of(s, shape);
  auto* cls = reinterpret_cast<int32_t*>(buffer + layout.class_offset);
  auto* gains = reinterpret_cast<float*>(buffer + layout.gains_offset);
  auto* decay = reinterpret_cast<float*>(buffer + layout.decay_offset);
  QFits fits = q_fits(c.medium);
  auto gain = [&](double q, int l) {  // 0 for an elastic modulus
    return q > 0 ? static_cast<float>(step_coefficients(fits.of(q), l, c.time.dt).gain) : 0.0f;
  };
  for (size_t q = 0; q < classes.size(); ++q)
    for (int l = 0; l < nm; ++l) {
      gains[(q * nm + l) * 2] = gain(classes[q].first, l);
      gains[(q * nm + l) * 2 + 1] = gain(classes[q].second, l);
    }
  const Relaxation& band = fits.of(1.0);  // the mechanisms' frequencies are the band's, whatever Q
  for (int l = 0; l < nm; ++l) decay[l] = static_cast<float>(step_coefficients(band, l, c.time.dt).decay);
  if (corner_classes(c)) return fill_corner_classes(c, x0, y0, s, nm, cls, gains, gain);
  if (c.medium.model_q) return fill_cell_classes(c, x0, y0, s, nm, cls, gains, gain);
  for (int k = -kGhost; k < s.nz + kGhost; ++k) {
    const Layer layer = cell_properties(c.medium, std::min(std::max(k, 0), c.grid.nz - 1) * c.grid.h, c.grid.h);
    cls[k + kGhost] = static_cast<int32_t>(
        std::find(classes.begin(), classes.end(), std::pair{layer.qp, layer.qs}) - classes.begin());
  }
}

}  // namespace ondes
