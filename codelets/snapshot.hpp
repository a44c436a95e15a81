// Wavefield snapshots, shared by the CPU and CUDA kernels: a plane of a block's velocity copied to
// a buffer, and the running peak ground velocity of its top face. Values are taken at each
// component's own staggered point (half a cell off the grid point along that component).
#pragma once
#include <cmath>

#include "codelets/layout.hpp"

namespace ondes {

// Plane `index` (block-local) normal to `axis` (0 x, 1 y, 2 z). Its buffer holds [3][n2][n1]:
// components, then the slow in-plane axis, then the fast one (x for y- and z-planes, y for x-planes).
struct PlaneArgs {
  BlockShape shape;
  int axis = 2;
  int index = 0;
};

ONDES_HD inline int plane_n1(const BlockShape& s, int axis) { return axis == 0 ? s.ny : s.nx; }
ONDES_HD inline int plane_n2(const BlockShape& s, int axis) { return axis == 2 ? s.ny : s.nz; }
ONDES_HD inline int64_t plane_points(const BlockShape& s, int axis) {
  return static_cast<int64_t>(plane_n1(s, axis)) * plane_n2(s, axis);
}

// Cell of in-plane point (a fast, b slow).
ONDES_HD inline int64_t plane_cell(const PlaneArgs& p, int a, int b) {
  switch (p.axis) {
    case 0: return p.shape.idx(p.index, a, b);
    case 1: return p.shape.idx(a, p.index, b);
    default: return p.shape.idx(a, b, p.index);
  }
}

// Point q of the plane (q = b n1 + a), all three components.
ONDES_HD inline void extract_plane_point(const PlaneArgs& p, const float* v, int64_t q, float* plane) {
  const int n1 = plane_n1(p.shape, p.axis);
  const int64_t cell = plane_cell(p, static_cast<int>(q % n1), static_cast<int>(q / n1));
  const int64_t n = p.shape.cells(), np = plane_points(p.shape, p.axis);
  for (int c = 0; c < 3; ++c) plane[c * np + q] = v[c * n + cell];
}

// Peak ground velocity at top-face point (i, j): pgv[0] horizontal |(vx, vy)|, pgv[1] |v|; each
// [ny][nx]. NaN leaves the peak as it was (the watchdog reports those).
ONDES_HD inline void update_pgv_point(const BlockShape& s, const float* v, int i, int j, float* pgv) {
  const int64_t cell = s.idx(i, j, 0), n = s.cells();
  const float vx = v[cell], vy = v[n + cell], vz = v[2 * n + cell];
  const float horizontal = sqrtf(vx * vx + vy * vy), total = sqrtf(vx * vx + vy * vy + vz * vz);
  const int64_t q = static_cast<int64_t>(j) * s.nx + i, area = static_cast<int64_t>(s.nx) * s.ny;
  pgv[q] = fmaxf(pgv[q], horizontal);
  pgv[area + q] = fmaxf(pgv[area + q], total);
}

}  // namespace ondes
