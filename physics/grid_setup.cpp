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
  p.ondes3d_faces = c.boundaries.pml_profile == PmlProfile::Ondes3d ? 15 : 0;  // tasks/compute.hpp keeps the block's
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

// A layer as the elastic update takes it: under Ondes3D's Kristek and Moczo, its moduli as that
// method sets them (kristek_moczo_elastic).
Layer elastic_layer(const Case& c, const Layer& l) {
  return c.medium.kristek_moczo.on() ? kristek_moczo_elastic(l, c.medium.kristek_moczo, c.time.dt) : l;
}

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
        cell_material(elastic_layer(c, layer_above(c.medium, (k + 0.5) * c.grid.h)), fits, 0);
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
    const Layer layer = c.medium.model ? Layer{} : elastic_layer(c, cell_properties(c.medium, z, g.h));
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
      // Kristek and Moczo: vp of its moduli (InitializeKManelas, before InitializeABC too).
      vps[level] = c.medium.day_bradley.on() ? l.vp * std::sqrt(fits.unrelaxed(l.qp)) : elastic_layer(c, l).vp;
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

int fill_pml(const Case& c, int x0, int y0, const BlockShape& s, const std::vector<int64_t>& cells,
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
  if (classes.size() > size_t(PmlLayout::kVpClasses))  // io/case/case_validation.cpp refuses such cases
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
  return int(classes.size());
}

double energy(const BlockShape& sh, const float* v, const float* s, const float* mat, const CellRange& r, double h) {
  const int64_t n = sh.cells();
  double e = 0;
  for (int k = r.lo[2]; k < r.hi[2]; ++k)
    for (int j = r.lo[1]; j < r.hi[1]; ++j)
      for (int i = r.lo[0]; i < r.hi[0]; ++i) {
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
