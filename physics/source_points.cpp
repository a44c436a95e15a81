// The source points of a block (physics/grid_setup.hpp: source_points): forces and moment tensors
// spread trilinearly on each field's staggered grid, and Ondes3D's points as Ondes3D's body forces.
#include "physics/grid_setup.hpp"
#include "physics/source.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <map>

#include "physics/attenuation.hpp"
#include "physics/interp.hpp"
#include "physics/medium.hpp"
#include "physics/pml.hpp"

namespace ondes {

namespace {

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

// Ondes3D's point sources (StfKind::Held) as Ondes3D applies them (original/src/
// computeVeloAndSource.c, computeSeisMoment and computeVelocity): the moment accumulated so far,
// spread trilinearly over the 8 vx nodes around the point, each node's share as body forces on
// the velocity points around it. An entry: the Ondes3D component it pushes (0 vx east, 1 vy
// north, 2 vz up), its node's offset from the corner (i east, j north, k up, in cells), the factor
// and the moment component (Ondes3D's axes: xx, yy, zz, xy, xz, yz) it takes.
struct ForceEntry {
  int comp, di, dj, dk;
  double factor;
  int m;
};
enum : int { OXX, OYY, OZZ, OXY, OXZ, OYZ };
constexpr ForceEntry kOndes3dForces[] = {
    {0, 0, 1, 0, 0.5, OXY},     {0, 0, -1, 0, -0.5, OXY},    {0, 0, 0, 1, 0.5, OXZ},      {0, 0, 0, -1, -0.5, OXZ},
    {1, 0, 0, 0, 0.5, OXY},     {1, 0, -1, 0, 0.5, OXY},     {1, 0, 0, 0, 0.5, OYY},      {1, 0, -1, 0, -0.5, OYY},
    {1, 0, 0, 1, 0.125, OYZ},   {1, 0, -1, 1, 0.125, OYZ},   {1, 0, 0, -1, -0.125, OYZ},  {1, 0, -1, -1, -0.125, OYZ},
    {2, 0, 0, 0, 0.5, OXZ},     {2, 0, 0, -1, 0.5, OXZ},     {2, 0, 1, 0, 0.125, OYZ},    {2, 0, 1, -1, 0.125, OYZ},
    {2, 0, -1, 0, -0.125, OYZ}, {2, 0, -1, -1, -0.125, OYZ}, {2, 0, 0, 0, 0.5, OZZ},      {2, 0, 0, -1, -0.5, OZZ},
    {1, -1, 0, 0, -0.5, OXY},   {1, -1, -1, 0, -0.5, OXY},   {1, -1, 0, 0, 0.5, OYY},     {1, -1, -1, 0, -0.5, OYY},
    {1, -1, 0, 1, 0.125, OYZ},  {1, -1, -1, 1, 0.125, OYZ},  {1, -1, 0, -1, -0.125, OYZ}, {1, -1, -1, -1, -0.125, OYZ},
    {0, -1, 0, 0, -0.5, OXX},   {2, -1, 1, 0, 0.125, OYZ},   {2, -1, 1, -1, 0.125, OYZ},  {2, -1, -1, 0, -0.125, OYZ},
    {2, -1, -1, -1, -0.125, OYZ}, {2, -1, 0, 0, 0.5, OZZ},   {2, -1, 0, -1, -0.5, OZZ},   {2, -1, 0, 0, -0.5, OXZ},
    {2, -1, 0, -1, -0.5, OXZ},  {0, 1, 0, 0, 0.5, OXX}};

// The moment accumulated by the velocity update at t = n dt, n = 0, 1, ...: Ondes3D's step n + 1,
// whose moment holds sample ceil(l dt / step) x dt of every step l <= n + 1 (samples scaled to a
// unit sum x step: a fraction of the point's moment). The last entry holds from there on.
std::vector<double> held_moment(const TimeFunction& f, double dt, int steps) {
  std::vector<double> out;
  const double count = static_cast<double>(f.samples.size());
  double acc = 0;
  for (int64_t l = 1; static_cast<int64_t>(out.size()) < std::max(steps, 1); ++l) {
    const double i = std::ceil((dt * double(l)) / f.step);  // Ondes3D's expression, in the same arithmetic
    if (i >= count) break;
    acc += f.samples[static_cast<size_t>(i)] * dt;
    out.push_back(acc);
  }
  if (out.empty()) out.push_back(0.0);
  return out;
}

// The buoyancy the velocity update gives point comp of padded cell idx (core/layout.hpp).
float velocity_buoyancy(const Case& c, const float* material, const BlockShape& s, int64_t idx, int comp) {
  if (c.medium.ondes3d_nodes()) return node_buoyancy(material, s.cells(), idx, s.sy(), s.sz(), comp);
  return buoyancy_at(material, s.cells(), idx, comp == VX ? 1 : comp == VY ? s.sy() : s.sz());
}

// Ondes3D's body forces of moment source src (project axes: m = Mxx Myy Mzz Mxy Mxz Myz, x north,
// y east, z down) in block (x0, y0, s), merged by the value they update, with the accumulated
// moment as their time function (samples from sample0). The grid of a .prm case puts Ondes3D's vx
// nodes on the project's vy points, its vy on vx, its vz on vz (io/ondes3d_prm.cpp, Geometry), so
// every force lands on a point: corner (a, b, c) is the vx node at east (a + 1/2) h, north b h,
// depth c h; Ondes3D's vx, vy and vz of a node sit 0, (1/2, 1/2, 0) and (1/2, 0, 1/2) cells from it
// (east, north, up).
void ondes3d_force_points(const Case& c, const Source& src, int x0, int y0, const BlockShape& s,
                          const float* material, int64_t sample0, std::vector<SourcePoint>& out) {
  const double h = c.grid.h;
  const auto& m = src.moment;
  const double ondes[6] = {m[1], m[0], m[2], m[3], -m[5], -m[4]};  // east, north, up
  const double fe = src.position[1] / h - 0.5, fn = src.position[0] / h, fd = src.position[2] / h;
  const int a0 = static_cast<int>(std::floor(fe)), b0 = static_cast<int>(std::floor(fn));
  const int c0 = static_cast<int>(std::ceil(fd));
  const double w[3] = {fe - a0, fn - b0, c0 - fd};  // Ondes3D's xweight, yweight, zweight
  std::map<std::pair<int, int64_t>, double> sum;  // (component, cell) -> coefficient
  for (int iw = 0; iw < 8; ++iw) {
    const int di = iw & 1, dj = (iw >> 1) & 1, dk = iw >> 2;
    const double weight = (di ? w[0] : 1 - w[0]) * (dj ? w[1] : 1 - w[1]) * (dk ? w[2] : 1 - w[2]);
    if (weight == 0) continue;
    const int a = a0 + di, b = b0 + dj, cc = c0 - dk;
    for (const ForceEntry& e : kOndes3dForces) {
      // The project's component and cell (north, east, depth) of the entry, and its sign (z: up).
      const int comp = e.comp == 0 ? VY : e.comp == 1 ? VX : VZ;
      const int gi = b + e.dj, gj = a + e.di + (e.comp == 0 ? 0 : 1), gk = cc - e.dk - (e.comp == 2 ? 1 : 0);
      if (gi < x0 || gi >= x0 + s.nx || gj < y0 || gj >= y0 + s.ny || gk < 0 || gk >= c.grid.nz) continue;
      const int64_t idx = s.idx(gi - x0, gj - y0, gk);
      const double sign = e.comp == 2 ? -1.0 : 1.0;
      sum[{comp, idx}] += sign * c.time.dt * velocity_buoyancy(c, material, s, idx, comp) * e.factor *
                          ondes[e.m] * weight / (h * h * h * h);
    }
  }
  for (const auto& [key, coef] : sum) {
    SourcePoint p{};
    p.comp = key.first;
    p.idx = key.second;
    p.coef = coef;
    p.stf = StfKind::Held;
    p.t0 = c.time.dt;
    p.sample0 = sample0;
    out.push_back(p);
  }
}

}  // namespace

// A force F s(t) adds dt b F s(t) / h^3 to the velocity; a moment tensor removes dt M s(t) / h^3
// from the stress (stress glut). Each is spread trilinearly over the field's own staggered grid.
// Ondes3D's points (StfKind::Held) go to the velocity as its body forces (ondes3d_force_points).
BlockSources source_points(const Case& c, int x0, int y0, const BlockShape& s, const float* material) {
  const Grid& g = c.grid;
  const double vol = g.h * g.h * g.h;
  BlockSources out;
  for (const Source& src : c.sources) {
    if (src.stf.kind == StfKind::Held) {
      std::vector<SourcePoint> points;
      const int64_t sample0 = static_cast<int64_t>(out.force_samples.size());
      ondes3d_force_points(c, src, x0, y0, s, material, sample0, points);
      if (points.empty()) continue;
      const std::vector<double> moment = held_moment(src.stf, c.time.dt, c.time.steps);
      for (SourcePoint& p : points) p.duration = static_cast<double>(moment.size());
      out.force_samples.insert(out.force_samples.end(), moment.begin(), moment.end());
      out.force.insert(out.force.end(), points.begin(), points.end());
      continue;
    }
    const bool force = src.kind == SourceKind::Force;
    const int ncomp = force ? 3 : 6;
    int64_t sample0 = -1;  // where this source's samples start in the block's, once a point needs them
    for (int comp = 0; comp < ncomp; ++comp) {
      const double amp = force ? src.force[comp] : src.moment[comp];
      if (amp == 0) continue;
      for (const WeightedPoint& wp : spread(g, src.position, force ? kVelocityOffset[comp] : kStressOffset[comp])) {
        if (wp.gi < x0 || wp.gi >= x0 + s.nx || wp.gj < y0 || wp.gj >= y0 + s.ny || wp.k < 0 || wp.k >= g.nz) continue;
        if (!force && comp == SZZ && wp.k == 0 && c.boundaries.free_surface) continue;  // szz = 0 there
        SourcePoint p{};
        p.idx = s.idx(wp.gi - x0, wp.gj - y0, wp.k);
        p.comp = comp;
        p.stf = src.stf.kind;
        p.f0 = src.stf.f0;
        p.t0 = src.stf.t0;
        p.duration = src.stf.duration;
        if (src.stf.kind == StfKind::Sampled) {
          std::vector<double>& samples = force ? out.force_samples : out.moment_samples;
          if (sample0 < 0) {
            sample0 = static_cast<int64_t>(samples.size());
            samples.insert(samples.end(), src.stf.samples.begin(), src.stf.samples.end());
          }
          p.f0 = 1.0 / src.stf.step;
          p.duration = static_cast<double>(src.stf.samples.size());
          p.sample0 = sample0;
        }
        if (force) {
          p.coef = c.time.dt * velocity_buoyancy(c, material, s, p.idx, comp) * amp * wp.w / vol;
          out.force.push_back(p);
        } else {
          p.coef = -c.time.dt * amp * wp.w / vol;
          out.moment.push_back(p);
        }
      }
    }
  }
  // Points on the same value one after another, in source order: a CUDA thread per run of them
  // adds in the CPU's order (same rounding), and runs are independent (no atomics).
  const int64_t n = s.cells();
  for (auto* pts : {&out.force, &out.moment})
    std::stable_sort(pts->begin(), pts->end(), [n](const SourcePoint& a, const SourcePoint& b) {
      return source_target(a, n) < source_target(b, n);
    });
  return out;
}

}  // namespace ondes
