#include "partition/block_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "physics/interp.hpp"
#include "physics/medium.hpp"
#include "physics/pml.hpp"
#include "physics/source.hpp"

namespace ondes {
namespace {

float* alloc_floats(int64_t n) {
  void* p = nullptr;
  if (starpu_malloc(&p, n * sizeof(float)) != 0 || !p) throw std::bad_alloc();
  std::memset(p, 0, n * sizeof(float));
  return static_cast<float*>(p);
}

std::vector<PmlAxis> pml_axes(const Case& c) {
  double f = c.boundaries.pml_frequency;
  if (f <= 0)
    for (const Source& s : c.sources) f = std::max(f, stf_dominant_frequency(s.stf));
  std::vector<PmlAxis> axes(3);
  const int n[3] = {c.grid.nx, c.grid.ny, c.grid.nz};
  for (int a = 0; a < 3; ++a) {
    PmlAxis& p = axes[a];
    p.n = n[a];
    p.width = c.boundaries.pml_width;
    p.low = a < 2 || !c.boundaries.free_surface;
    p.high = true;
    p.h = c.grid.h;
    p.dt = c.time.dt;
    p.vp = vp_max(c.medium);
    p.reflection = c.boundaries.pml_reflection;
    p.frequency = f;
  }
  return axes;
}

bool is_pml(const std::vector<PmlAxis>& axes, int gi, int gj, int k) {
  return axes[0].in_pml(gi) || axes[1].in_pml(gj) || axes[2].in_pml(k);
}

// Material at the staggered points: density averaged arithmetically at the velocity points, mu
// harmonically at the shear-stress points (zero if any neighbour is fluid). The properties are
// sampled once per grid point, a z-slab at a time (each cell reads its +x, +y, +z neighbours).
void fill_material(const Case& c, BlockData& b) {
  const BlockShape& s = b.info.shape;
  const int64_t n = s.cells();
  const Grid& g = c.grid;
  const int sx = s.nx + 1, sy = s.ny + 1;
  auto sample_slab = [&](int k, std::vector<Layer>& slab) {
    const double z = std::min(k, g.nz - 1) * g.h;
    for (int j = 0; j < sy; ++j)
      for (int i = 0; i < sx; ++i)
        slab[size_t(j) * sx + i] = c.medium.model ? properties_at(c.medium, std::min(b.info.x0 + i, g.nx - 1) * g.h,
                                                                  std::min(b.info.y0 + j, g.ny - 1) * g.h, z)
                                                  : cell_properties(c.medium, z, g.h);
  };
  auto mu_of = [](const Layer& l) { return l.rho * l.vs * l.vs; };
  auto harmonic = [](std::initializer_list<double> v) {
    double inv = 0;
    for (double x : v) {
      if (x <= 0) return 0.0;
      inv += 1.0 / x;
    }
    return v.size() / inv;
  };
  std::vector<Layer> here(size_t(sx) * sy), below(size_t(sx) * sy);
  sample_slab(0, here);
  float* m = b.material;
  for (int k = 0; k < s.nz; ++k) {
    sample_slab(k + 1, below);
    for (int j = 0; j < s.ny; ++j)
      for (int i = 0; i < s.nx; ++i) {
        const size_t p = size_t(j) * sx + i;
        const Layer &c0 = here[p], &px = here[p + 1], &py = here[p + sx], &pxy = here[p + sx + 1];
        const Layer &pz = below[p], &pxz = below[p + 1], &pyz = below[p + sx];
        const int64_t q = s.idx(i, j, k);
        m[BX * n + q] = static_cast<float>(2.0 / (c0.rho + px.rho));
        m[BY * n + q] = static_cast<float>(2.0 / (c0.rho + py.rho));
        m[BZ * n + q] = static_cast<float>(2.0 / (c0.rho + pz.rho));
        const double mu = mu_of(c0);
        m[LAM * n + q] = static_cast<float>(c0.rho * c0.vp * c0.vp - 2 * mu);
        m[MU * n + q] = static_cast<float>(mu);
        m[MUXY * n + q] = static_cast<float>(harmonic({mu, mu_of(px), mu_of(py), mu_of(pxy)}));
        m[MUXZ * n + q] = static_cast<float>(harmonic({mu, mu_of(px), mu_of(pz), mu_of(pxz)}));
        m[MUYZ * n + q] = static_cast<float>(harmonic({mu, mu_of(py), mu_of(pz), mu_of(pyz)}));
      }
    std::swap(here, below);
  }
}

void fill_pml(const Case& c, BlockData& b) {
  const auto axes = pml_axes(c);
  const BlockShape& s = b.info.shape;
  std::vector<int64_t> cells;
  for (int k = 0; k < s.nz; ++k)
    for (int j = 0; j < s.ny; ++j)
      for (int i = 0; i < s.nx; ++i)
        if (is_pml(axes, b.info.x0 + i, b.info.y0 + j, k)) cells.push_back(s.idx(i, j, k));
  if (cells.empty()) return;
  const PmlLayout l = PmlLayout::of(s, static_cast<int64_t>(cells.size()));
  void* p = nullptr;
  if (starpu_malloc(&p, l.bytes) != 0 || !p) throw std::bad_alloc();
  std::memset(p, 0, l.bytes);
  b.pml = static_cast<char*>(p);
  b.pml_bytes = l.bytes;
  b.pml_cells = static_cast<int64_t>(cells.size());
  std::memcpy(b.pml, cells.data(), cells.size() * sizeof(int64_t));
  float* prof = reinterpret_cast<float*>(b.pml + l.profiles_offset);
  const int n_axis[3] = {s.nx, s.ny, s.nz};
  const int origin[3] = {b.info.x0, b.info.y0, 0};
  for (int a = 0; a < 3; ++a) {
    float* t = prof + PmlLayout::axis_offset(s, a);
    for (int half = 0; half < 2; ++half)
      for (int i = 0; i < n_axis[a]; ++i)
        axes[a].coefficients(origin[a] + i + 0.5 * half, &t[2 * half * n_axis[a] + i],
                             &t[(2 * half + 1) * n_axis[a] + i]);
  }
}

// The trilinear points of a field with the given offset around position x, as (global i, j, k, w).
struct WeightedPoint {
  int gi, gj, k;
  double w;
};
std::vector<WeightedPoint> spread(const Grid& g, const std::array<double, 3>& x, const double* offset) {
  const Stencil1D sx = stencil_1d(x[0], g.h, offset[0], g.nx);
  const Stencil1D sy = stencil_1d(x[1], g.h, offset[1], g.ny);
  const Stencil1D sz = stencil_1d(x[2], g.h, offset[2], g.nz);
  std::vector<WeightedPoint> out;
  for (int dk = 0; dk < 2; ++dk)
    for (int dj = 0; dj < 2; ++dj)
      for (int di = 0; di < 2; ++di) {
        const double w = (di ? sx.frac : 1 - sx.frac) * (dj ? sy.frac : 1 - sy.frac) * (dk ? sz.frac : 1 - sz.frac);
        if (w != 0) out.push_back({sx.i0 + di, sy.i0 + dj, sz.i0 + dk, w});
      }
  return out;
}

void set_time_function(SourcePoint& p, const TimeFunction& f) {
  p.stf = static_cast<int32_t>(f.kind);
  p.f0 = f.f0;
  p.t0 = f.t0;
  p.duration = f.duration;
}

// A force F s(t) adds dt b F s(t) / h^3 to the velocity; a moment tensor removes dt M s(t) / h^3
// from the stress (stress glut). Each is spread trilinearly over the field's own staggered grid.
void fill_sources(const Case& c, BlockData& b) {
  const Grid& g = c.grid;
  const double vol = g.h * g.h * g.h;
  const BlockShape& s = b.info.shape;
  for (const Source& src : c.sources) {
    const bool force = src.kind == SourceKind::Force;
    const int ncomp = force ? 3 : 6;
    for (int comp = 0; comp < ncomp; ++comp) {
      const double amp = force ? src.force[comp] : src.moment[comp];
      if (amp == 0) continue;
      for (const WeightedPoint& wp : spread(g, src.position, force ? kVelocityOffset[comp] : kStressOffset[comp])) {
        if (!b.info.contains(wp.gi, wp.gj) || wp.k < 0 || wp.k >= g.nz) continue;
        if (!force && comp == SZZ && wp.k == 0 && c.boundaries.free_surface) continue;  // szz = 0 there
        SourcePoint p{};
        p.idx = s.idx(wp.gi - b.info.x0, wp.gj - b.info.y0, wp.k);
        p.comp = comp;
        set_time_function(p, src.stf);
        if (force) {
          p.coef = c.time.dt * b.material[comp * s.cells() + p.idx] * amp * wp.w / vol;
          b.force_points.push_back(p);
        } else {
          p.coef = -c.time.dt * amp * wp.w / vol;
          b.moment_points.push_back(p);
        }
      }
    }
  }
  // Points on the same value one after another, in source order: a CUDA thread per run of them
  // adds in the CPU's order (same rounding), and runs are independent (no atomics).
  const int64_t n = s.cells();
  for (auto* pts : {&b.force_points, &b.moment_points})
    std::stable_sort(pts->begin(), pts->end(), [n](const SourcePoint& a, const SourcePoint& b) {
      return source_target(a, n) < source_target(b, n);
    });
}

void alloc_boundary(BlockData& b, int dir) {
  b.velocity_out[dir] = HostFloats(boundary_floats(b.info.shape, dir, kVelocityComponents));
  b.stress_out[dir] = HostFloats(boundary_floats(b.info.shape, dir, kStressComponents));
}

template <class T>
void register_vector(starpu_data_handle_t* h, T* data, size_t count) {
  starpu_vector_data_register(h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(data), count, sizeof(T));
}

void unregister(starpu_data_handle_t& h) {
  if (h) starpu_data_unregister(h);
  h = nullptr;
}

}  // namespace

HostFloats::HostFloats(size_t n) : p_(alloc_floats(static_cast<int64_t>(n))), n_(n) {}
HostFloats::~HostFloats() {
  if (p_) starpu_free(p_);
}

size_t block_bytes(const Case& c, const BlockInfo& b) {
  const BlockShape& s = b.shape;
  size_t bytes = sizeof(float) * s.cells() * (kVelocityComponents + kStressComponents + kMaterialComponents);
  for (int d = 0; d < kDirections; ++d)
    if (b.neighbour[d] >= 0) bytes += sizeof(float) * boundary_floats(s, d, kVelocityComponents + kStressComponents);
  // A cell is in the PML when it is in any axis's PML: all cells but those inside on every axis.
  const auto axes = pml_axes(c);
  const int n[3] = {s.nx, s.ny, s.nz}, origin[3] = {b.x0, b.y0, 0};
  int64_t inside = 1;
  for (int a = 0; a < 3; ++a) {
    int64_t count = 0;
    for (int i = 0; i < n[a]; ++i) count += !axes[a].in_pml(origin[a] + i);
    inside *= count;
  }
  const int64_t pml = int64_t(s.nx) * s.ny * s.nz - inside;
  if (pml) bytes += PmlLayout::of(s, pml).bytes;
  return bytes;
}

std::vector<BlockData> build_blocks(const Case& c, const Decomposition& d, const RankMap& map, int rank) {
  std::vector<BlockData> blocks(d.blocks.size());
  for (size_t i = 0; i < blocks.size(); ++i) {
    BlockData& b = blocks[i];
    b.info = d.blocks[i];
    b.local = map.owner(b.info.id) == rank;
    if (!b.local) {
      for (int dir = 0; dir < kDirections; ++dir) {
        const int nb = b.info.neighbour[dir];
        if (nb >= 0 && map.owner(nb) == rank) alloc_boundary(b, dir);
      }
      continue;
    }
    const int64_t n = b.info.shape.cells();
    b.velocity = alloc_floats(kVelocityComponents * n);
    b.stress = alloc_floats(kStressComponents * n);
    b.material = alloc_floats(kMaterialComponents * n);
    fill_material(c, b);
    fill_pml(c, b);
    fill_sources(c, b);
    for (int dir = 0; dir < kDirections; ++dir)
      if (b.info.neighbour[dir] >= 0) alloc_boundary(b, dir);
  }
  return blocks;
}

void register_handles(std::vector<BlockData>& blocks) {
  for (BlockData& b : blocks) {
    const int64_t n = b.info.shape.cells();
    if (b.velocity) register_vector(&b.h_velocity, b.velocity, kVelocityComponents * n);
    if (b.stress) register_vector(&b.h_stress, b.stress, kStressComponents * n);
    if (b.material) register_vector(&b.h_material, b.material, kMaterialComponents * n);
    if (b.pml) register_vector(&b.h_pml, b.pml, b.pml_bytes);
    if (b.local) register_vector(&b.h_peak, &b.peak, 1);
    if (!b.force_points.empty()) register_vector(&b.h_force, b.force_points.data(), b.force_points.size());
    if (!b.moment_points.empty()) register_vector(&b.h_moment, b.moment_points.data(), b.moment_points.size());
    for (int dir = 0; dir < kDirections; ++dir)
      if (!b.velocity_out[dir].empty()) {
        register_vector(&b.h_velocity_out[dir], b.velocity_out[dir].data(), b.velocity_out[dir].size());
        register_vector(&b.h_stress_out[dir], b.stress_out[dir].data(), b.stress_out[dir].size());
      }
  }
}

std::vector<int64_t> global_pml_cells(const BlockData& b, const Grid& g) {
  const BlockShape& s = b.info.shape;
  const int64_t* local = reinterpret_cast<const int64_t*>(b.pml);
  std::vector<int64_t> out(b.pml_cells);
  for (int64_t p = 0; p < b.pml_cells; ++p) {
    const int64_t q = local[p];
    const int i = static_cast<int>(q % s.sy()) - kGhost;
    const int j = static_cast<int>((q / s.sy()) % (s.ny + 2 * kGhost)) - kGhost;
    const int k = static_cast<int>(q / s.sz()) - kGhost;
    out[p] = (static_cast<int64_t>(k) * g.ny + (b.info.y0 + j)) * g.nx + (b.info.x0 + i);
  }
  return out;
}

void release_blocks(std::vector<BlockData>& blocks) {
  for (BlockData& b : blocks) {
    for (starpu_data_handle_t* h :
         {&b.h_velocity, &b.h_stress, &b.h_material, &b.h_pml, &b.h_force, &b.h_moment, &b.h_peak})
      unregister(*h);
    for (int dir = 0; dir < kDirections; ++dir) {
      unregister(b.h_velocity_out[dir]);
      unregister(b.h_stress_out[dir]);
    }
    for (void* p : {static_cast<void*>(b.velocity), static_cast<void*>(b.stress), static_cast<void*>(b.material),
                    static_cast<void*>(b.pml)})
      if (p) starpu_free(p);
    b.velocity = b.stress = b.material = nullptr;
    b.pml = nullptr;
    b.velocity_out = {};
    b.stress_out = {};
  }
}

}  // namespace ondes
