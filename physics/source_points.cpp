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
// moment as their time function (emitter `emitter`). The grid of a .prm case puts Ondes3D's vx
// nodes on the project's vy points, its vy on vx, its vz on vz (io/ondes3d/ondes3d_prm.cpp, Geometry), so
// every force lands on a point: corner (a, b, c) is the vx node at east (a + 1/2) h, north b h,
// depth c h; Ondes3D's vx, vy and vz of a node sit 0, (1/2, 1/2, 0) and (1/2, 0, 1/2) cells from it
// (east, north, up).
void ondes3d_force_points(const Case& c, const Source& src, int x0, int y0, const BlockShape& s,
                          const float* material, int32_t emitter, std::vector<SourcePoint>& out) {
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
  for (const auto& [key, coef] : sum) out.push_back({coef, key.first * s.cells() + key.second, emitter, 0});
}

// The emitter of time function f in set (its index): its parameters and, sampled, its samples;
// held (Ondes3D's histories), the moment accumulated at each of the run's steps (held_moment), one
// after another until held_by_step lays them out by step.
int32_t add_emitter(const TimeFunction& f, const TimeStepping& time, SourceSet& set) {
  SourceEmitter e{f.f0, f.t0, f.duration, 0, 1, f.kind};
  if (f.kind == StfKind::Held) {
    const std::vector<double> moment = held_moment(f, time.dt, time.steps);
    e = {0.0, time.dt, static_cast<double>(moment.size()), static_cast<int64_t>(set.samples.size()), 1,
         StfKind::Held};
    set.samples.insert(set.samples.end(), moment.begin(), moment.end());
  } else if (f.kind == StfKind::Sampled) {
    e.f0 = 1.0 / f.step;
    e.duration = static_cast<double>(f.samples.size());
    e.sample0 = static_cast<int64_t>(set.samples.size());
    set.samples.insert(set.samples.end(), f.samples.begin(), f.samples.end());
  }
  set.emitters.push_back(e);
  return static_cast<int32_t>(set.emitters.size() - 1);
}

// Source src spread trilinearly over its field's own staggered grid in block (x0, y0, s), into set
// (its points and, if any lands in the block, its emitter and samples).
void spread_source(const Case& c, const Source& src, int x0, int y0, const BlockShape& s, const float* material,
                   SourceSet& set) {
  const Grid& g = c.grid;
  const double vol = g.h * g.h * g.h;
  const bool force = src.kind == SourceKind::Force;
  const int ncomp = force ? 3 : 6;
  int32_t emitter = -1;  // its index in set.emitters, once a point lands in the block
  for (int comp = 0; comp < ncomp; ++comp) {
    const double amp = force ? src.force[comp] : src.moment[comp];
    if (amp == 0) continue;
    for (const WeightedPoint& wp : spread(g, src.position, force ? kVelocityOffset[comp] : kStressOffset[comp])) {
      if (wp.gi < x0 || wp.gi >= x0 + s.nx || wp.gj < y0 || wp.gj >= y0 + s.ny || wp.k < 0 || wp.k >= g.nz) continue;
      if (!force && comp == SZZ && wp.k == 0 && c.boundaries.free_surface) continue;  // szz = 0 there
      if (emitter < 0) emitter = add_emitter(src.stf, c.time, set);
      const int64_t idx = s.idx(wp.gi - x0, wp.gj - y0, wp.k);
      const double coef = force ? c.time.dt * velocity_buoyancy(c, material, s, idx, comp) * amp * wp.w / vol
                                : -c.time.dt * amp * wp.w / vol;
      set.points.push_back({coef, comp * s.cells() + idx, emitter, 0});
    }
  }
}

// The set's held emitters' samples by step (core/layout.hpp SourceEmitter): step n's of every held
// emitter one after another, after the others' samples; an emitter's steps past its last unused (0).
void held_by_step(SourceSet& set) {
  std::vector<SourceEmitter*> held;
  int64_t steps = 0;
  for (SourceEmitter& e : set.emitters)
    if (e.stf == StfKind::Held) held.push_back(&e), steps = std::max(steps, static_cast<int64_t>(e.duration));
  if (held.empty()) return;
  std::vector<double> samples{0.0};
  for (SourceEmitter& e : set.emitters)
    if (e.stf == StfKind::Sampled) {
      const auto from = set.samples.begin() + e.sample0;
      e.sample0 = static_cast<int64_t>(samples.size());
      samples.insert(samples.end(), from, from + static_cast<int64_t>(e.duration));
    }
  const int64_t base = static_cast<int64_t>(samples.size()), stride = static_cast<int64_t>(held.size());
  samples.resize(base + steps * stride, 0.0);
  for (int64_t h = 0; h < stride; ++h) {
    SourceEmitter& e = *held[h];
    for (int64_t n = 0; n < static_cast<int64_t>(e.duration); ++n)
      samples[base + n * stride + h] = set.samples[e.sample0 + n];
    e.sample0 = base + h, e.stride = stride;
  }
  set.samples = std::move(samples);
}

}  // namespace

// A force F s(t) adds dt b F s(t) / h^3 to the velocity; a moment tensor removes dt M s(t) / h^3
// from the stress (stress glut). Each is spread trilinearly over the field's own staggered grid.
// Ondes3D's points (StfKind::Held) go to the velocity as its body forces (ondes3d_force_points).
BlockSources source_points(const Case& c, int x0, int y0, const BlockShape& s, const float* material) {
  BlockSources out;
  for (const Source& src : c.sources) {
    if (src.stf.kind == StfKind::Held) {  // its emitter next in out.force, if a point lands in the block
      SourceSet& set = out.force;
      const size_t before = set.points.size();
      ondes3d_force_points(c, src, x0, y0, s, material, static_cast<int32_t>(set.emitters.size()), set.points);
      if (set.points.size() > before) add_emitter(src.stf, c.time, set);
      continue;
    }
    spread_source(c, src, x0, y0, s, material, src.kind == SourceKind::Force ? out.force : out.moment);
  }
  // Points on the same value one after another, in source order, each run's length on its first:
  // a CUDA thread per run adds in the CPU's order (same rounding), and runs are independent (no
  // atomics).
  for (SourceSet* set : {&out.force, &out.moment}) {
    held_by_step(*set);
    std::vector<SourcePoint>& pts = set->points;
    std::stable_sort(pts.begin(), pts.end(), [](const SourcePoint& a, const SourcePoint& b) { return a.target < b.target; });
    for (size_t q = 0, end = 0; q < pts.size(); q = end) {
      for (end = q; end < pts.size() && pts[end].target == pts[q].target; ++end) {}
      pts[q].run = static_cast<int32_t>(end - q);
    }
  }
  return out;
}

}  // namespace ondes
