// Wavefield snapshots, shared by the CPU and CUDA kernels: a plane of a block's velocity copied to
// a buffer (or added to its displacement), and the running peak ground velocity of its top face.
// Values are taken at each component's own staggered point (half a cell off the grid point along
// that component).
#pragma once
#include <cmath>

#include "codelets/kernel_support.hpp"
#include "core/plane_layout.hpp"

namespace ondes {

// Cell of in-plane point (a fast, b slow).
ONDES_HD inline int64_t plane_cell(const PlaneArgs& p, int a, int b) {
  switch (p.axis) {
    case 0: return p.shape.idx(p.index, a, b);
    case 1: return p.shape.idx(a, p.index, b);
    default: return p.shape.idx(a, b, p.index);
  }
}

// Point q of the plane (q = b n1 + a), all three components: copied, or (accumulate = dt) added to
// the running displacement.
ONDES_HD inline void extract_plane_point(const PlaneArgs& p, const float* v, int64_t q, float* plane) {
  const int n1 = plane_n1(p.shape, p.axis);
  const int64_t cell = plane_cell(p, static_cast<int>(q % n1), static_cast<int>(q / n1));
  const int64_t n = p.shape.cells(), np = plane_points(p.shape, p.axis);
  for (int c = 0; c < 3; ++c) {
    float& out = plane[c * np + q];
    out = p.accumulate != 0.0f ? out + p.accumulate * v[c * n + cell] : v[c * n + cell];
  }
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

namespace ondes::cpu {
// A plane of the velocity into plane[3][n2][n1].
void extract_plane(const PlaneArgs& p, const float* v, float* plane);
// Running peak ground velocity of the top face, pgv[2][ny][nx].
void update_pgv(const BlockShape& shape, const float* v, float* pgv);
}  // namespace ondes::cpu

namespace ondes::cuda {
void extract_plane(const PlaneArgs& p, const float* v, float* plane, cudaStream_t stream);
void update_pgv(const BlockShape& shape, const float* v, float* pgv, cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

void extract_plane(const PlaneArgs& p, const float* v, float* plane) {
  const int64_t n = plane_points(p.shape, p.axis);
  for (int64_t q = 0; q < n; ++q) extract_plane_point(p, v, q, plane);
}

void update_pgv(const BlockShape& s, const float* v, float* pgv) {
  for (int j = 0; j < s.ny; ++j)
    for (int i = 0; i < s.nx; ++i) update_pgv_point(s, v, i, j, pgv);
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

__global__ void plane_kernel(PlaneArgs p, const float* v, float* plane) {
  const int64_t q = thread_index();
  if (q < plane_points(p.shape, p.axis)) extract_plane_point(p, v, q, plane);
}

__global__ void pgv_kernel(BlockShape s, const float* v, float* pgv) {
  const int64_t q = thread_index();
  if (q < int64_t(s.nx) * s.ny) update_pgv_point(s, v, static_cast<int>(q % s.nx), static_cast<int>(q / s.nx), pgv);
}

}  // namespace

void extract_plane(const PlaneArgs& p, const float* v, float* plane, cudaStream_t stream) {
  const int64_t n = plane_points(p.shape, p.axis);
  plane_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(p, v, plane);
  check_launch("plane_kernel");
}

void update_pgv(const BlockShape& s, const float* v, float* pgv, cudaStream_t stream) {
  const int64_t n = int64_t(s.nx) * s.ny;
  pgv_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(s, v, pgv);
  check_launch("pgv_kernel");
}

}  // namespace ondes::cuda
#endif
