// compute_velocity / compute_stress of one block: the interior sweep over the per-cell stencils of
// stencil.hpp, then the C-PML correction of the block's PML cells (pml may be null), and for the
// stress the free-surface images. CPU loops and CUDA kernels run the same per-cell code.
#pragma once
#include <algorithm>
#include "codelets/kernel_support.hpp"
#include "codelets/stencil.hpp"

namespace ondes::cpu {
void compute_velocity(const StepParams& p, float* v, const float* s, const float* mat, char* pml, int64_t pml_cells);
void compute_stress(const StepParams& p, float* s, const float* v, const float* mat, char* pml, int64_t pml_cells);
}  // namespace ondes::cpu

namespace ondes::cuda {
void compute_velocity(const StepParams& p, float* v, const float* s, const float* mat, char* pml, int64_t pml_cells,
                      cudaStream_t stream);
void compute_stress(const StepParams& p, float* s, const float* v, const float* mat, char* pml, int64_t pml_cells,
                    cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {
namespace {

// One x row of interior cells. The component arrays never overlap, hence ivdep; the z-plane kind
// is a template parameter so the row has no branch and vectorises.
void velocity_row(float* v, const float* s, const float* mat, int64_t row, int nx, int64_t n, int64_t sy, int64_t sz,
                  float scale) {
#pragma GCC ivdep
  for (int64_t i = row; i < row + nx; ++i)
    add_velocity(v, n, i, ArrayAt{mat, n, i, sy, sz}, velocity_diffs(ArrayAt{s, n, i, sy, sz}), scale);
}

template <int Plane>
void stress_row(float* s, const float* v, const float* mat, int64_t row, int nx, int64_t n, int64_t sy, int64_t sz,
                float scale) {
#pragma GCC ivdep
  for (int64_t i = row; i < row + nx; ++i)
    add_stress(s, n, i, ArrayAt{mat, n, i, sy, sz}, stress_diffs(ArrayAt{v, n, i, sy, sz}, Plane), scale, Plane);
}

// The C-PML correction of row (j, k)'s PML cells, right after the row's interior update while its
// fields are still in cache: the row's runs of PML cells damped along the same axes, each as
// run(first i, length, its first cell's place in the PML list, DampedAxes<mask>{}). A row outside
// the PmlBox in y or z is all PML (x damped only outside the box's x span); a row crossing the box
// has the cells left and right of it (x damped only).
template <class RunFn>
void pml_row(const PmlBox& b, const BlockShape& s, int j, int k, RunFn&& run) {
  const int yz = int(j < b.lo[1] || j >= b.hi[1]) << 1 | int(k < b.lo[2] || k >= b.hi[2]) << 2;
  const int x_lo = std::min(b.lo[0], s.nx), x_hi = std::max(b.hi[0], x_lo);
  auto segment = [&](int i0, int i1, int mask) {
    if (i1 <= i0) return;
    const int64_t q0 = pml_index(b, s, i0, j, k);
    switch (mask) {
      case 1: run(i0, i1 - i0, q0, DampedAxes<1>{}); break;
      case 2: run(i0, i1 - i0, q0, DampedAxes<2>{}); break;
      case 3: run(i0, i1 - i0, q0, DampedAxes<3>{}); break;
      case 4: run(i0, i1 - i0, q0, DampedAxes<4>{}); break;
      case 5: run(i0, i1 - i0, q0, DampedAxes<5>{}); break;
      case 6: run(i0, i1 - i0, q0, DampedAxes<6>{}); break;
      case 7: run(i0, i1 - i0, q0, DampedAxes<7>{}); break;
      default: break;  // not a PML run
    }
  };
  segment(0, x_lo, yz | 1);
  if (yz) segment(x_lo, x_hi, yz);
  segment(x_hi, s.nx, yz | 1);
}

}  // namespace

void compute_velocity(const StepParams& p, float* v, const float* s, const float* mat, char* pml, int64_t count) {
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz();
  const PmlView pv = pml ? pml_view(sh, pml, count) : PmlView{nullptr, nullptr, nullptr, 0};
  for (int k = 0; k < sh.nz; ++k)
    for (int j = 0; j < sh.ny; ++j) {
      const int64_t row = sh.idx(0, j, k);
      velocity_row(v, s, mat, row, sh.nx, n, sy, sz, p.dt_h);
      if (!pml) continue;
      pml_row(p.pml, sh, j, k, [&](int i0, int len, int64_t q0, auto damped) {
#pragma GCC ivdep
        for (int t = 0; t < len; ++t) {
          const int64_t c = row + i0 + t;
          velocity_pml_cell(p, v, ArrayAt{mat, n, c, sy, sz}, pv, q0 + t, c, i0 + t, j, k, damped,
                            velocity_diffs(ArrayAt{s, n, c, sy, sz}));
        }
      });
    }
}

void compute_stress(const StepParams& p, float* s, const float* v, const float* mat, char* pml, int64_t count) {
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz();
  const PmlView pv = pml ? pml_view(sh, pml, count) : PmlView{nullptr, nullptr, nullptr, 0};
  for (int k = 0; k < sh.nz; ++k) {
    const int plane = z_plane(k, p.free_surface);
    for (int j = 0; j < sh.ny; ++j) {
      const int64_t row = sh.idx(0, j, k);
      if (plane == kSurface)
        stress_row<kSurface>(s, v, mat, row, sh.nx, n, sy, sz, p.dt_h);
      else if (plane == kBelowSurface)
        stress_row<kBelowSurface>(s, v, mat, row, sh.nx, n, sy, sz, p.dt_h);
      else
        stress_row<kInterior>(s, v, mat, row, sh.nx, n, sy, sz, p.dt_h);
      if (!pml) continue;
      pml_row(p.pml, sh, j, k, [&](int i0, int len, int64_t q0, auto damped) {
#pragma GCC ivdep
        for (int t = 0; t < len; ++t) {
          const int64_t c = row + i0 + t;
          stress_pml_cell(p, s, ArrayAt{mat, n, c, sy, sz}, pv, q0 + t, c, i0 + t, j, k, plane, damped,
                          stress_diffs(ArrayAt{v, n, c, sy, sz}, plane));
        }
      });
    }
  }
  if (p.free_surface)
    for (int j = 0; j < sh.ny; ++j)
      for (int i = 0; i < sh.nx; ++i) image_free_surface_column(sh, s, i, j);
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

// A block's cells are updated by two kernels that touch disjoint cells: the cells inside the
// PmlBox by a lean kernel with no C-PML code (so it needs few registers and keeps many warps in
// flight), and the PML cells, one thread each from the block's PML list, by a kernel that applies
// the interior update and the C-PML correction together. The interior kernel comes in two forms,
// chosen by the launch geometry (Geometry; ONDES_CUDA_GEOMETRY=TXxTYxKZxB overrides it, for tuning
// on a new GPU): KZ = 0, one thread per cell of an x-y tile of one plane, the plane the fastest
// grid index (so the +-2 planes a stencil reads are still in L2); KZ > 0, z-marching ("2.5D"): a
// thread block walks down KZ planes of a TX x TY tile, staging at each plane the components
// differentiated in x or y in shared memory (2-cell halo, read once by coalesced rows) and sliding
// those differentiated in z through a 4-value register window per thread. Both read through
// stencil.hpp's accessors, so the arithmetic is the CPU's (ArrayAt; VelocityAt, RhoAt, StressAt,
// ImuAt for the z-marching form). B bounds the registers (3 blocks of 512 threads per SM: 40).
struct Geometry {
  int tx = 32, ty = 16, kz = 0, min_blocks = 3;
};

Geometry read_geometry() {
  Geometry g;
  if (const char* e = std::getenv("ONDES_CUDA_GEOMETRY")) {
    Geometry r;
    const int got = std::sscanf(e, "%dx%dx%dx%d", &r.tx, &r.ty, &r.kz, &r.min_blocks);
    if (got >= 3 && r.tx > 0 && r.ty > 0 && r.kz >= 0 && r.tx * r.ty <= 512 && r.tx % 32 == 0 && r.min_blocks >= 1 &&
        r.min_blocks <= 3)
      g = r;
    else
      std::fprintf(stderr,
                   "ondes3d: ONDES_CUDA_GEOMETRY=%s ignored (TXxTYxKZ[xB], TX a multiple of 32, TX*TY <= 512, B 1-3)\n",
                   e);
  }
  return g;
}
const Geometry& geometry() {
  static const Geometry g = read_geometry();
  return g;
}

// The interior cells: the PmlBox, or the whole block when the case has no C-PML.
PmlBox interior(const StepParams& p, int64_t pml_cells) {
  if (pml_cells > 0) return p.pml;
  PmlBox b;
  b.hi[0] = p.shape.nx, b.hi[1] = p.shape.ny, b.hi[2] = p.shape.nz;
  return b;
}
bool empty(const PmlBox& b) { return b.hi[0] <= b.lo[0] || b.hi[1] <= b.lo[1] || b.hi[2] <= b.lo[2]; }

dim3 zxy_grid(const PmlBox& b, const Geometry& g) {
  const int nz = b.hi[2] - b.lo[2], nx = b.hi[0] - b.lo[0], ny = b.hi[1] - b.lo[1];
  return dim3(g.kz > 0 ? (nz + g.kz - 1) / g.kz : nz, (nx + g.tx - 1) / g.tx, (ny + g.ty - 1) / g.ty);
}

// One thread per interior cell.
template <int MinBlocks>
__global__ void __launch_bounds__(512, MinBlocks)
    velocity_cells(StepParams p, PmlBox b, float* __restrict__ v, const float* __restrict__ s,
                   const float* __restrict__ mat) {
  const BlockShape& sh = p.shape;
  const int i = b.lo[0] + blockIdx.y * blockDim.x + threadIdx.x, j = b.lo[1] + blockIdx.z * blockDim.y + threadIdx.y;
  const int k = b.lo[2] + blockIdx.x;
  if (i >= b.hi[0] || j >= b.hi[1]) return;
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz(), q = sh.idx(i, j, k);
  add_velocity(v, n, q, ArrayAt{mat, n, q, sy, sz}, velocity_diffs(ArrayAt{s, n, q, sy, sz}), p.dt_h);
}

template <int MinBlocks>
__global__ void __launch_bounds__(512, MinBlocks)
    stress_cells(StepParams p, PmlBox b, float* __restrict__ s, const float* __restrict__ v,
                 const float* __restrict__ mat) {
  const BlockShape& sh = p.shape;
  const int i = b.lo[0] + blockIdx.y * blockDim.x + threadIdx.x, j = b.lo[1] + blockIdx.z * blockDim.y + threadIdx.y;
  const int k = b.lo[2] + blockIdx.x;
  if (i >= b.hi[0] || j >= b.hi[1]) return;
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz(), q = sh.idx(i, j, k);
  const int plane = z_plane(k, p.free_surface);
  add_stress(s, n, q, ArrayAt{mat, n, q, sy, sz}, stress_diffs(ArrayAt{v, n, q, sy, sz}, plane), p.dt_h, plane);
}

// (i, j, k) of the cell at padded index c.
struct CellPlace {
  int i, j, k;
};
__device__ inline CellPlace place_of(const BlockShape& sh, int64_t c) {
  const int64_t sy = sh.sy(), sz = sh.sz(), r = c % sz;
  return {int(r % sy) - kGhost, int(r / sy) - kGhost, int(c / sz) - kGhost};
}

// One thread per PML cell: the interior update and the C-PML correction (its place in the list is
// its memory variables' place).
__global__ void velocity_pml_cells(StepParams p, float* __restrict__ v, const float* __restrict__ s,
                                   const float* __restrict__ mat, char* pml, int64_t count) {
  const int64_t t = thread_index();
  if (t >= count) return;
  const BlockShape& sh = p.shape;
  const PmlView pv = pml_view(sh, pml, count);
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz(), q = pv.cells[t];
  const CellPlace c = place_of(sh, q);
  const ArrayAt m{mat, n, q, sy, sz};
  const Diffs d = velocity_diffs(ArrayAt{s, n, q, sy, sz});
  add_velocity(v, n, q, m, d, p.dt_h);
  velocity_pml_cell(p, v, m, pv, t, q, c.i, c.j, c.k, DampedMask{damped_axes(p.pml, c.i, c.j, c.k)}, d);
}

__global__ void stress_pml_cells(StepParams p, float* __restrict__ s, const float* __restrict__ v,
                                 const float* __restrict__ mat, char* pml, int64_t count) {
  const int64_t t = thread_index();
  if (t >= count) return;
  const BlockShape& sh = p.shape;
  const PmlView pv = pml_view(sh, pml, count);
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz(), q = pv.cells[t];
  const CellPlace c = place_of(sh, q);
  const int plane = z_plane(c.k, p.free_surface);
  const ArrayAt m{mat, n, q, sy, sz};
  const Diffs d = stress_diffs(ArrayAt{v, n, q, sy, sz}, plane);
  add_stress(s, n, q, m, d, p.dt_h, plane);
  stress_pml_cell(p, s, m, pv, t, q, c.i, c.j, c.k, plane, DampedMask{damped_axes(p.pml, c.i, c.j, c.k)}, d);
}

constexpr int kHalo = 2;  // a tile's halo on each side, x and y (the 4th-order stencil's reach)

// Where a thread block's tiles are: the tile's first column, the shared-memory pitch and rows, and
// this thread's centre in a tile.
struct TileFrame {
  int i0, j0, pitch, rows, centre;
  __device__ static TileFrame here(const PmlBox& b) {
    TileFrame f;
    f.i0 = b.lo[0] + blockIdx.y * blockDim.x;
    f.j0 = b.lo[1] + blockIdx.z * blockDim.y;
    f.pitch = blockDim.x + 2 * kHalo;
    f.rows = blockDim.y + 2 * kHalo;
    f.centre = (threadIdx.y + kHalo) * f.pitch + threadIdx.x + kHalo;
    return f;
  }
  __device__ int size() const { return pitch * rows; }
};

// Plane k of N arrays into N tiles, halo included (cells beyond the block's ghosts are left
// alone: no thread reads them). All N loads of a position are issued before their stores.
template <int N>
__device__ void load_tiles(float* const (&tile)[N], const float* const (&src)[N], const BlockShape& sh,
                           const TileFrame& f, int k) {
  for (int ly = threadIdx.y; ly < f.rows; ly += blockDim.y) {
    const int gj = f.j0 - kHalo + ly;
    if (gj >= sh.ny + kGhost) break;
    for (int lx = threadIdx.x; lx < f.pitch; lx += blockDim.x) {
      const int gi = f.i0 - kHalo + lx;
      if (gi >= sh.nx + kGhost) break;
      const int64_t g = sh.idx(gi, gj, k);
      float t[N];
#pragma unroll
      for (int q = 0; q < N; ++q) t[q] = src[q][g];
#pragma unroll
      for (int q = 0; q < N; ++q) tile[q][ly * f.pitch + lx] = t[q];
    }
  }
}

// The stress components as the velocity stencil reads them: sxx, sxy, syy, and the x/y offsets of
// sxz and syz from the plane's tiles; sxz, syz, szz along z from the windows (planes k-2..k+1 for
// sxz, syz; k-1..k+2 for szz).
struct VelocityAt {
  const float *xx, *xy, *xz, *yy, *yz;
  int pitch, centre;
  float wxz[4], wyz[4], wzz[4];
  template <int C, int DX, int DY, int DZ>
  __device__ float at() const {
    if constexpr (DZ != 0 || (DX == 0 && DY == 0 && (C == SXZ || C == SYZ || C == SZZ))) {
      static_assert(DX == 0 && DY == 0, "no diagonal offsets");
      if constexpr (C == SXZ) return wxz[DZ + 2];
      else if constexpr (C == SYZ) return wyz[DZ + 2];
      else {
        static_assert(C == SZZ, "only sxz, syz, szz are differentiated in z");
        return wzz[DZ + 1];
      }
    } else {
      const int e = centre + DY * pitch + DX;
      if constexpr (C == SXX) return xx[e];
      else if constexpr (C == SXY) return xy[e];
      else if constexpr (C == SXZ) return xz[e];
      else if constexpr (C == SYY) return yy[e];
      else {
        static_assert(C == SYZ, "szz is not differentiated in x or y");
        return yz[e];
      }
    }
  }
};

// The density around a velocity cell: x and y neighbours from the tile, z from registers.
struct RhoAt {
  const float* tile;
  int pitch, centre;
  float here, up;
  template <int C, int DX, int DY, int DZ>
  __device__ float at() const {
    static_assert(C == RHO, "the velocity update reads the density only");
    if constexpr (DZ == 1) return up;
    else if constexpr (DX == 0 && DY == 0) return here;
    else return tile[centre + DY * pitch + DX];
  }
};

template <int MinBlocks>
__global__ void __launch_bounds__(512, MinBlocks)
    velocity_march(StepParams p, PmlBox b, float* __restrict__ v, const float* __restrict__ s,
                   const float* __restrict__ mat, int kz) {
  extern __shared__ float smem[];
  const BlockShape& sh = p.shape;
  const TileFrame f = TileFrame::here(b);
  const int i = f.i0 + threadIdx.x, j = f.j0 + threadIdx.y;
  const bool active = i < b.hi[0] && j < b.hi[1];
  const int64_t n = sh.cells(), sz = sh.sz();
  const float *sxx = s + SXX * n, *sxy = s + SXY * n, *sxz = s + SXZ * n, *syy = s + SYY * n, *syz = s + SYZ * n,
              *szz = s + SZZ * n, *rho = mat + RHO * n;
  float* const tiles[6] = {smem, smem + f.size(), smem + 2 * f.size(), smem + 3 * f.size(), smem + 4 * f.size(),
                           smem + 5 * f.size()};
  const float* const srcs[6] = {sxx, sxy, sxz, syy, syz, rho};
  VelocityAt at{tiles[0], tiles[1], tiles[2], tiles[3], tiles[4], f.pitch, f.centre, {}, {}, {}};
  RhoAt m{tiles[5], f.pitch, f.centre, 0, 0};
  const int k0 = b.lo[2] + blockIdx.x * kz, k1 = min(b.hi[2], k0 + kz);
  int64_t q = active ? sh.idx(i, j, k0) : 0;
  if (active)
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      at.wxz[d] = sxz[q + (d - 2) * sz];
      at.wyz[d] = syz[q + (d - 2) * sz];
      at.wzz[d] = szz[q + (d - 1) * sz];
    }
  if (active) m.here = rho[q];
  for (int k = k0; k < k1; ++k, q += sz) {
    if (active) {
      at.wxz[3] = sxz[q + sz];
      at.wyz[3] = syz[q + sz];
      at.wzz[3] = szz[q + 2 * sz];
      m.up = rho[q + sz];
    }
    __syncthreads();  // the previous plane's tiles are read
    load_tiles<6>(tiles, srcs, sh, f, k);
    __syncthreads();
    if (active) {
      add_velocity(v, n, q, m, velocity_diffs(at), p.dt_h);
    }
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      at.wxz[d] = at.wxz[d + 1];
      at.wyz[d] = at.wyz[d + 1];
      at.wzz[d] = at.wzz[d + 1];
    }
    m.here = m.up;
  }
}

// The velocity components as the stress stencil reads them: x/y offsets from the plane's tiles,
// z from the windows (planes k-1..k+2 for vx, vy; k-2..k+1 for vz).
struct StressAt {
  const float *x, *y, *z;
  int pitch, centre;
  float wx[4], wy[4], wz[4];
  template <int C, int DX, int DY, int DZ>
  __device__ float at() const {
    if constexpr (DZ != 0 || (DX == 0 && DY == 0)) {
      static_assert(DX == 0 && DY == 0, "no diagonal offsets");
      if constexpr (C == VX) return wx[DZ + 1];
      else if constexpr (C == VY) return wy[DZ + 1];
      else return wz[DZ + 2];
    } else {
      const int e = centre + DY * pitch + DX;
      if constexpr (C == VX) return x[e];
      else if constexpr (C == VY) return y[e];
      else return z[e];
    }
  }
};

// lambda and 1/mu around a stress cell: lambda at the cell, 1/mu from the tiles of planes k and k+1.
struct ImuAt {
  const float *lo, *hi;
  int pitch, centre;
  float lam;
  template <int C, int DX, int DY, int DZ>
  __device__ float at() const {
    if constexpr (C == LAM) {
      static_assert(DX == 0 && DY == 0 && DZ == 0, "lambda is read at the cell only");
      return lam;
    } else {
      static_assert(C == IMU && (DZ == 0 || DZ == 1), "1/mu at planes k and k+1");
      return (DZ == 0 ? lo : hi)[centre + DY * pitch + DX];
    }
  }
};

template <int MinBlocks>
__global__ void __launch_bounds__(512, MinBlocks)
    stress_march(StepParams p, PmlBox b, float* __restrict__ s, const float* __restrict__ v,
                 const float* __restrict__ mat, int kz) {
  extern __shared__ float smem[];
  const BlockShape& sh = p.shape;
  const TileFrame f = TileFrame::here(b);
  const int i = f.i0 + threadIdx.x, j = f.j0 + threadIdx.y;
  const bool active = i < b.hi[0] && j < b.hi[1];
  const int64_t n = sh.cells(), sz = sh.sz();
  const float *vx = v + VX * n, *vy = v + VY * n, *vz = v + VZ * n, *lam = mat + LAM * n, *imu = mat + IMU * n;
  float* const vtiles[3] = {smem, smem + f.size(), smem + 2 * f.size()};
  float* const mtiles[2] = {smem + 3 * f.size(), smem + 4 * f.size()};  // 1/mu of planes k, k+1 by parity
  StressAt at{vtiles[0], vtiles[1], vtiles[2], f.pitch, f.centre, {}, {}, {}};
  const int k0 = b.lo[2] + blockIdx.x * kz, k1 = min(b.hi[2], k0 + kz);
  int64_t q = active ? sh.idx(i, j, k0) : 0;
  if (active)
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      at.wx[d] = vx[q + (d - 1) * sz];
      at.wy[d] = vy[q + (d - 1) * sz];
      at.wz[d] = vz[q + (d - 2) * sz];
    }
  {
    float* const first[1] = {mtiles[0]};
    const float* const src[1] = {imu};
    load_tiles<1>(first, src, sh, f, k0);
  }
  for (int k = k0; k < k1; ++k, q += sz) {
    float l = 0;
    if (active) {
      at.wx[3] = vx[q + 2 * sz];
      at.wy[3] = vy[q + 2 * sz];
      at.wz[3] = vz[q + sz];
      l = lam[q];
    }
    __syncthreads();  // the previous plane's tiles are read
    {
      float* const t[4] = {vtiles[0], vtiles[1], vtiles[2], mtiles[(k - k0 + 1) & 1]};
      const float* const src[4] = {vx, vy, vz, imu + sz};  // 1/mu of plane k + 1
      load_tiles<4>(t, src, sh, f, k);
    }
    __syncthreads();
    if (active) {
      const ImuAt m{mtiles[(k - k0) & 1], mtiles[(k - k0 + 1) & 1], f.pitch, f.centre, l};
      const int plane = z_plane(k, p.free_surface);
      add_stress(s, n, q, m, stress_diffs(at, plane), p.dt_h, plane);
    }
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      at.wx[d] = at.wx[d + 1];
      at.wy[d] = at.wy[d + 1];
      at.wz[d] = at.wz[d + 1];
    }
  }
}

constexpr int kTx = 32, kTy = 16;
dim3 xy_grid(const BlockShape& s) { return dim3((s.nx + kTx - 1) / kTx, (s.ny + kTy - 1) / kTy); }

__global__ void image_kernel(BlockShape sh, float* s) {
  const int i = blockIdx.x * kTx + threadIdx.x, j = blockIdx.y * kTy + threadIdx.y;
  if (i >= sh.nx || j >= sh.ny) return;
  image_free_surface_column(sh, s, i, j);
}

// Shared memory of a thread block: `tiles` planes of (TX + 4) x (TY + 4) floats.
size_t tile_bytes(const Geometry& g, int tiles) {
  return sizeof(float) * tiles * size_t(g.tx + 2 * kHalo) * (g.ty + 2 * kHalo);
}

// The interior kernel of the geometry's form and register bound.
template <template <int> class Kernel, class... Args>
void launch(const char* name, const Geometry& g, const PmlBox& b, size_t shared, cudaStream_t stream, Args... args) {
  if (empty(b)) return;
  auto k = g.min_blocks == 1 ? Kernel<1>::fn : g.min_blocks == 2 ? Kernel<2>::fn : Kernel<3>::fn;
  k<<<zxy_grid(b, g), dim3(g.tx, g.ty), shared, stream>>>(args...);
  check_launch(name);
}
template <int B> struct VelocityCells { static constexpr auto fn = velocity_cells<B>; };
template <int B> struct VelocityMarch { static constexpr auto fn = velocity_march<B>; };
template <int B> struct StressCells { static constexpr auto fn = stress_cells<B>; };
template <int B> struct StressMarch { static constexpr auto fn = stress_march<B>; };

}  // namespace

void compute_velocity(const StepParams& p, float* v, const float* s, const float* mat, char* pml, int64_t pml_cells,
                      cudaStream_t stream) {
  const Geometry& g = geometry();
  const PmlBox b = interior(p, pml_cells);
  if (g.kz > 0)
    launch<VelocityMarch>("velocity_march", g, b, tile_bytes(g, 6), stream, p, b, v, s, mat, g.kz);
  else
    launch<VelocityCells>("velocity_cells", g, b, 0, stream, p, b, v, s, mat);
  if (pml_cells > 0) {
    velocity_pml_cells<<<blocks_for(pml_cells, 256), 256, 0, stream>>>(p, v, s, mat, pml, pml_cells);
    check_launch("velocity_pml_cells");
  }
}

void compute_stress(const StepParams& p, float* s, const float* v, const float* mat, char* pml, int64_t pml_cells,
                    cudaStream_t stream) {
  const Geometry& g = geometry();
  const PmlBox b = interior(p, pml_cells);
  if (g.kz > 0)
    launch<StressMarch>("stress_march", g, b, tile_bytes(g, 5), stream, p, b, s, v, mat, g.kz);
  else
    launch<StressCells>("stress_cells", g, b, 0, stream, p, b, s, v, mat);
  if (pml_cells > 0) {
    stress_pml_cells<<<blocks_for(pml_cells, 256), 256, 0, stream>>>(p, s, v, mat, pml, pml_cells);
    check_launch("stress_pml_cells");
  }
  if (p.free_surface) {
    image_kernel<<<xy_grid(p.shape), dim3(kTx, kTy), 0, stream>>>(p.shape, s);
    check_launch("image_kernel");
  }
}

}  // namespace ondes::cuda
#endif
