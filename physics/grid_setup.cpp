#include "physics/grid_setup.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <map>
#include <stdexcept>

#include "core/diff_places.hpp"
#include "core/pml_layout.hpp"
#include "physics/attenuation.hpp"
#include "physics/interp.hpp"
#include "physics/medium.hpp"
#include "physics/model3d.hpp"
#include "physics/pml.hpp"

namespace ondes {

StepParams step_params(const Case& c) {
  StepParams p;
  p.dt = static_cast<float>(c.time.dt);
  p.dt_h = static_cast<float>(c.time.dt / c.grid.h);
  p.inv_h = static_cast<float>(1.0 / c.grid.h);
  p.free_surface = !c.boundaries.free_surface                          ? kNoSurface
                   : c.boundaries.surface == SurfaceScheme::Ondes3d ? kOndes3dSurface
                                                                    : kImagingSurface;
  p.node_material = c.medium.ondes3d_nodes();
  p.ondes3d_faces = c.boundaries.pml_profile == PmlProfile::Ondes3d ? 7 : 0;  // tasks/compute.hpp keeps the block's
  if (c.medium.damped()) {  // case validation keeps the layers within kMaxDampedLayers
    Q0Damping& d = p.damping;
    d.layers = static_cast<int>(c.medium.layers.size());
    for (int l = 0; l < d.layers; ++l) {
      const Layer& layer = c.medium.layers[l];
      d.top[l] = static_cast<float>(layer.top / c.grid.h);
      d.factor[l] = layer.q0 > 0 ? static_cast<float>(std::exp(-M_PI * c.medium.q0_frequency * c.time.dt / layer.q0)) : 1.0f;
    }
  }
  return p;
}

namespace {

// A cell's material (core/layout.hpp: density, lambda, 1/mu) from its properties.
std::array<float, kMaterialComponents> cell_material(const Layer& l, QFits& fits, int cube) {
  const double mu = l.rho * l.vs * l.vs * fits.unrelaxed(l.qs, cube);
  std::array<float, kMaterialComponents> v{};
  v[RHO] = l.vp > 0 ? static_cast<float>(l.rho) : 0.0f;  // vacuum: no mass (layout.hpp's buoyancy)
  v[LAM] = static_cast<float>(l.rho * l.vp * l.vp * fits.unrelaxed(l.qp, cube) - 2 * mu);
  v[IMU] = mu > 0 ? static_cast<float>(1.0 / mu) : INFINITY;
  return v;
}

// An Ondes3D node's material (core/layout.hpp: density, 1/kappa, 1/mu): its vacuum keeps its
// density (its velocities there move, driven by the ground's stresses: computeVeloAndSource.c).
// With Day and Bradley every material's moduli unrelaxed as alloAndInit.c InitializeDayBradley
// does: mu by its Qs' factor, kappa + 4 mu / 3 by its Qp's (fits: QFits::unrelaxed).
std::array<float, kMaterialComponents> node_material(const Layer& l, QFits& fits) {
  double mu = l.rho * l.vs * l.vs, kappa = l.rho * l.vp * l.vp - 4.0 / 3.0 * mu;
  if (l.qp > 0) {
    const double relaxed = mu;
    mu = relaxed * fits.unrelaxed(l.qs);
    kappa = (kappa + 4.0 / 3.0 * relaxed) * fits.unrelaxed(l.qp) - 4.0 / 3.0 * mu;
  }
  std::array<float, kMaterialComponents> v{};
  v[RHO] = static_cast<float>(l.rho);
  v[IKAP] = kappa > 0 ? static_cast<float>(1.0 / kappa) : INFINITY;
  v[IMU] = mu > 0 ? static_cast<float>(1.0 / mu) : INFINITY;
  return v;
}

// Each plane's z partner (core/layout.hpp), read by the kernels where every plane is uniform: the
// next plane's material, which the points half a cell below the plane's cells (vz, sxz, syz)
// average with theirs. With Ondes3D's layer sampling those points take the layer at their own
// depth instead (Ondes3D's k2ly2): the partner is then the material whose averages with the
// plane's (buoyancy: 2 / (rho + rho'), shear_mean: the harmonic mean) are that layer's: the plane's
// own where the layer is the plane's, else 2 x the layer's - the plane's (density and 1/mu), which
// gives the layer's values to a float rounding. A fluid or vacuum, where that has no positive
// solution, keeps the average.
void fill_z_partners(const Case& c, const BlockShape& s, QFits& fits, float* m) {
  const int64_t n = s.cells();
  float* partners = m + kMaterialComponents * n;
  const bool ondes3d = c.medium.layer_sampling == LayerSampling::Ondes3d && !c.medium.model;
  for (int k = 0; k < s.nz; ++k) {
    float* p = partners + z_partner_offset(k);
    const int64_t here = s.idx(-kGhost, -kGhost, k), next = s.idx(-kGhost, -kGhost, k + 1);
    for (int v = 0; v < kMaterialComponents; ++v) p[v] = m[v * n + next];
    if (!ondes3d) continue;
    const std::array<float, kMaterialComponents> mid =
        cell_material(layer_above(c.medium, (k + 0.5) * c.grid.h), fits, 0);
    const float rho = m[RHO * n + here], imu = m[IMU * n + here];
    if (mid[RHO] == rho && mid[IMU] == imu) {
      for (int v = 0; v < kMaterialComponents; ++v) p[v] = m[v * n + here];
      continue;
    }
    const double rho2 = 2.0 * mid[RHO] - rho, imu2 = 2.0 * double(mid[IMU]) - imu;
    if (rho2 > 0 && imu2 > 0 && std::isfinite(imu2))
      p[RHO] = static_cast<float>(rho2), p[LAM] = m[LAM * n + here], p[IMU] = static_cast<float>(imu2);
  }
}

}  // namespace

// The properties of every padded cell, ghosts included (the stencils read the +x, +y, +z
// neighbours' to average at the staggered points); a position outside the grid takes the nearest
// grid point's, as does the block's ghost beyond the grid's last cell.
void fill_material(const Case& c, int x0, int y0, const BlockShape& s, float* m) {
  fill_material_planes(c, x0, y0, s, m, -kGhost, s.nz + kGhost);
  fill_material_partners(c, s, m);
}

void fill_material_planes(const Case& c, int x0, int y0, const BlockShape& s, float* m, int k_begin, int k_end) {
  const int64_t n = s.cells();
  const Grid& g = c.grid;
  QFits fits = q_fits(c.medium);
  auto at = [](int v, int count) { return std::min(std::max(v, 0), count - 1); };
  const bool nodes = c.medium.ondes3d_nodes();
  const double node_y = nodes ? -0.5 * g.h : 0.0;  // a cell's node lies half a cell below it in y
  for (int k = k_begin; k < k_end; ++k) {
    const double z = at(k, g.nz) * g.h;
    const Layer layer = c.medium.model ? Layer{} : cell_properties(c.medium, z, g.h);
    for (int j = -kGhost; j < s.ny + kGhost; ++j)
      for (int i = -kGhost; i < s.nx + kGhost; ++i) {
        const Layer l = c.medium.model
                            ? properties_at(c.medium, at(x0 + i, g.nx) * g.h, at(y0 + j, g.ny) * g.h + node_y, z)
                            : layer;
        // Attenuating: the unrelaxed moduli, whose phase velocities at q_reference are vp and vs
        // (coarse-grained: the cube's, each cell's its own; the cube cells follow global indices).
        const int cube = ((x0 + i) & 1) | ((y0 + j) & 1) << 1 | (k & 1) << 2;
        const int64_t q = s.idx(i, j, k);
        const std::array<float, kMaterialComponents> v = nodes ? node_material(l, fits) : cell_material(l, fits, cube);
        for (int p = 0; p < kMaterialComponents; ++p) m[p * n + q] = v[p];
      }
  }
}

void fill_material_partners(const Case& c, const BlockShape& s, float* m) {
  QFits fits = q_fits(c.medium);
  fill_z_partners(c, s, fits, m);
}

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

void fill_anelastic(const Case& c, int x0, int y0, const BlockShape& s, char* buffer) {
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

PmlBox pml_box(const Case& c, int x0, int y0, const BlockShape& s) {
  const PmlRegion region = PmlRegion::of(c);
  const int origin[3] = {x0, y0, 0}, n[3] = {s.nx, s.ny, s.nz};
  PmlBox b;
  for (int a = 0; a < 3; ++a) {
    b.lo[a] = std::min(std::max(region.lo(a) - origin[a], 0), n[a]);
    b.hi[a] = std::max(std::min(region.hi(a) - origin[a], n[a]), b.lo[a]);
  }
  return b;
}

std::vector<int64_t> pml_cells(const Case& c, int x0, int y0, const BlockShape& s) {
  const PmlRegion region = PmlRegion::of(c);
  std::vector<int64_t> cells;
  for (int k = 0; k < s.nz; ++k)
    for (int j = 0; j < s.ny; ++j)
      for (int i = 0; i < s.nx; ++i)
        if (region.contains(x0 + i, y0 + j, k)) cells.push_back(s.idx(i, j, k));
  return cells;
}

// The vp of each z level's C-PML profiles (2k: plane k, 2k + 1: k + 1/2): the case's largest, but
// with Ondes3D's profile on layers the level's own layer's, as Ondes3D takes each cell's vp: at its
// plane for vx, vy, the normal stresses and sxy, half a cell down for vz, sxz and syz
// (computeVeloAndSource.c computeVelocity: vp, vpxz; computeIntermediates.c: vpx, vpz).
static std::vector<double> pml_level_vps(const Case& c, const BlockShape& s, double vp_max) {
  std::vector<double> vps(2 * size_t(s.nz), vp_max);
  if (c.boundaries.pml_profile == PmlProfile::Ondes3d && !c.medium.model && c.medium.layers.size() > 1) {
    QFits fits = q_fits(c.medium);
    for (int level = 0; level < 2 * s.nz; ++level) {
      const Layer& l = layer_above(c.medium, 0.5 * level * c.grid.h);
      // Ondes3D's Day and Bradley: vp of its unrelaxed moduli (InitializeDayBradley before InitializeABC).
      vps[level] = c.medium.day_bradley.on() ? l.vp * std::sqrt(fits.unrelaxed(l.qp)) : l.vp;
    }
  }
  return vps;
}

namespace {

// Ondes3D's moduli of a node (RhoVpVs2MuKap) and its averages (inlineFunctions.h: a harmonic mean
// is zero where a modulus is below PRECISION_INVERSE, 1e-6; RhoMuKap2Vp).
struct NodeModuli {
  double rho, mu, kap;
};
double harmonic(std::initializer_list<double> v) {
  double sum = 0;
  for (double x : v) {
    if (x <= 1e-6) return 0;
    sum += 1 / x;
  }
  return double(v.size()) / sum;
}
double node_vp(double rho, double mu, double kap) { return std::sqrt((kap + 4.0 / 3.0 * mu) / rho); }

// The vp Ondes3D's C-PML gives the project's field points of global cell (x, y, z) of a geological
// model (Medium::ondes3d_nodes), from the nodes n(dx, dy, dz) of cells (x + dx, y + dy, z + dz):
// vx, vy, vz, the normal stresses, sxy, sxz, syz. Velocities: computeVeloAndSource.c
// computeVelocity, its vp (at a node: the project's vy), vpxy and vpxz, whose density is the first
// node's plus the other three's mu, over four (as Ondes3D has it: its vy and vz are damped a
// thousand times less than vx in its C-PML, and its seismograms show it). Stresses:
// computeIntermediates.c, vpx, vpy, vpz, vpxyz of arithmetic mean densities and harmonic moduli.
template <class NodeFn>
std::array<double, 7> ondes3d_point_vps(NodeFn&& n) {
  const NodeModuli a = n(0, 0, 0), x = n(1, 0, 0), y = n(0, 1, 0), xy = n(1, 1, 0), z = n(0, 0, 1), yz = n(0, 1, 1);
  const NodeModuli xz = n(1, 0, 1), xyz = n(1, 1, 1);
  auto four = [](const NodeModuli& m1, const NodeModuli& m2, const NodeModuli& m3, const NodeModuli& m4) {
    return node_vp((m1.rho + m2.mu + m3.mu + m4.mu) * 0.25, harmonic({m1.mu, m2.mu, m3.mu, m4.mu}),
                   harmonic({m1.kap, m2.kap, m3.kap, m4.kap}));
  };
  auto two = [](const NodeModuli& m1, const NodeModuli& m2) {
    return node_vp(0.5 * (m1.rho + m2.rho), harmonic({m1.mu, m2.mu}), harmonic({m1.kap, m2.kap}));
  };
  // CornerXYZ's order: its i (the project's y), j (x), k (-z)
  const NodeModuli c[8] = {z, a, xz, x, yz, y, xyz, xy};
  double rho8 = 0;
  for (const NodeModuli& m : c) rho8 += m.rho;
  const double vp8 = node_vp(rho8 / 8.0, harmonic({c[0].mu, c[1].mu, c[2].mu, c[3].mu, c[4].mu, c[5].mu, c[6].mu, c[7].mu}),
                             harmonic({c[0].kap, c[1].kap, c[2].kap, c[3].kap, c[4].kap, c[5].kap, c[6].kap, c[7].kap}));
  return {four(a, x, y, xy), node_vp(y.rho, y.mu, y.kap), four(z, a, yz, y), two(a, y), two(y, xy), vp8, two(yz, y)};
}

}  // namespace

// The vps of a PML cell's seven field points (ondes3d_point_vps' order is PmlPoint's), from the
// nodes the block's material holds (fill_material_planes; its ghosts are the neighbours' or the
// grid edge's nodes), numbered in order of first appearance.
PmlPointClasses pml_point_classes(const BlockShape& s, const std::vector<int64_t>& cells, const float* mat) {
  const int64_t count = static_cast<int64_t>(cells.size()), n = s.cells();
  PmlPointClasses out;
  out.words.resize(size_t(2 * count));
  std::map<double, uint32_t> index;
  for (int64_t p = 0; p < count; ++p) {
    const int64_t q = cells[p];
    const std::array<double, 7> vp = ondes3d_point_vps([&](int dx, int dy, int dz) {
      const int64_t at = q + dx + dy * s.sy() + dz * s.sz();  // 1/kappa and 1/mu are infinite where zero
      return NodeModuli{mat[RHO * n + at], 1.0 / double(mat[IMU * n + at]), 1.0 / double(mat[IKAP * n + at])};
    });
    for (int f = 0; f < PmlLayout::kPoints; ++f) {
      auto [it, added] = index.try_emplace(vp[f], uint32_t(out.vps.size()));
      if (added) {
        if (int64_t(out.vps.size()) == PmlLayout::kMaxPointClasses)
          throw std::runtime_error("the geological model gives a block's C-PML more than " +
                                   std::to_string(PmlLayout::kMaxPointClasses) + " distinct P velocities");
        out.vps.push_back(vp[f]);
      }
      const int slot = pml_point_slot(f);
      out.words[size_t((f < kPointNormal ? 0 : count) + p)].w[slot >> 1] |= it->second << (16 * (slot & 1));
    }
  }
  return out;
}

void fill_pml(const Case& c, int x0, int y0, const BlockShape& s, const std::vector<int64_t>& cells,
              const PmlPointClasses& points, char* pml) {
  const auto axes = pml_axes(c);
  const PmlLayout l = PmlLayout::of(s, static_cast<int64_t>(cells.size()), int64_t(points.vps.size()));
  std::copy(cells.begin(), cells.end(), reinterpret_cast<int64_t*>(pml));
  const std::vector<double> level_vp = pml_level_vps(c, s, axes[0].vp);
  std::vector<double> classes;  // the distinct vps, in order of first use
  int* level_class = reinterpret_cast<int*>(pml + l.classes_offset);
  for (size_t level = 0; level < level_vp.size(); ++level) {
    auto it = std::find(classes.begin(), classes.end(), level_vp[level]);
    if (it == classes.end()) it = classes.insert(classes.end(), level_vp[level]);
    level_class[level] = int(it - classes.begin());
  }
  if (classes.size() > size_t(PmlLayout::kVpClasses))  // io/case_validation.cpp refuses such cases
    throw std::logic_error("more C-PML vp classes than PmlLayout holds");
  const int n_axis[3] = {s.nx, s.ny, s.nz};
  const int origin[3] = {x0, y0, 0};
  // Axis a's profiles [a_int, b_int, a_half, b_half] into t; by_level: each z level's own vp.
  auto fill = [&](PmlAxis axis, int a, float* t, bool by_level) {
    for (int half = 0; half < 2; ++half)
      for (int i = 0; i < n_axis[a]; ++i) {
        if (by_level) axis.vp = level_vp[2 * i + half];
        axis.coefficients(origin[a] + i + 0.5 * half, &t[2 * half * n_axis[a] + i], &t[(2 * half + 1) * n_axis[a] + i]);
      }
  };
  // The first n_axes axes' profiles at each of vps, a class every `stride` floats from base.
  auto fill_classes = [&](const std::vector<double>& vps, int n_axes, float* base, int64_t stride) {
    for (size_t cls = 0; cls < vps.size(); ++cls)
      for (int a = 0; a < n_axes; ++a) {
        PmlAxis axis = axes[a];
        axis.vp = vps[cls];
        fill(axis, a, base + int64_t(cls) * stride + PmlLayout::axis_offset(s, a), false);
      }
  };
  fill(axes[2], 2, reinterpret_cast<float*>(pml + l.z_offset), true);
  fill_classes(classes, 2, reinterpret_cast<float*>(pml + l.xy_offset), PmlLayout::xy_floats(s));
  std::copy(points.words.begin(), points.words.end(), reinterpret_cast<PmlPointWords*>(pml + l.point_offset));
  fill_classes(points.vps, 3, reinterpret_cast<float*>(pml + l.point_tables_offset), PmlLayout::point_floats(s));
}

double energy(const BlockShape& sh, const float* v, const float* s, const float* mat, int i0, int i1, int j0, int j1,
              int k0, int k1, double h) {
  const int64_t n = sh.cells();
  double e = 0;
  for (int k = k0; k < k1; ++k)
    for (int j = j0; j < j1; ++j)
      for (int i = i0; i < i1; ++i) {
        const int64_t q = sh.idx(i, j, k);
        double kin = 0;
        const int64_t stride[3] = {1, sh.sy(), sh.sz()};
        for (int c = 0; c < 3; ++c) kin += double(v[c * n + q]) * v[c * n + q] / buoyancy_at(mat, n, q, stride[c]);
        // Strain energy of an isotropic solid: (1/4mu)(s:s - lam/(3lam+2mu) tr(s)^2).
        const double lam = mat[LAM * n + q], mu = mu_at(mat, n, q);
        const double xx = s[SXX * n + q], yy = s[SYY * n + q], zz = s[SZZ * n + q];
        const double xy = s[SXY * n + q], xz = s[SXZ * n + q], yz = s[SYZ * n + q];
        const double tr = xx + yy + zz;
        const double ss = xx * xx + yy * yy + zz * zz + 2 * (xy * xy + xz * xz + yz * yz);
        e += 0.5 * kin + (ss - lam / (3 * lam + 2 * mu) * tr * tr) / (4 * mu);
      }
  return e * h * h * h;
}

}  // namespace ondes
