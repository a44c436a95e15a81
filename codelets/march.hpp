// The z-marching ("2.5D") form of the elastic interior kernels (Micikevicius 2009), CUDA only: a
// thread block owns a 32 x TY column of cells and walks down KZ planes of it. At each plane the
// components differentiated along x or y (and the material read at x or y neighbours) are staged
// in shared memory with a 2-cell halo, read from global memory once per plane by coalesced rows;
// those differentiated along z slide through 4-value register windows. Everything a plane needs
// from global memory (tiles, windows, the cell's old values) is loaded while the previous plane
// is computed, so loads stay in flight across the arithmetic. The per-cell arithmetic is
// stencil.hpp's (velocity_increments, elastic_moduli, hooke), read through the accessors below:
// the same operations on the same values as the CPU loops and the one-thread-per-cell kernels
// (codelets/compute.hpp), hence the same bits.
// Why: the one-thread-per-cell kernels fetch each neighbour through L1 and L2 (H100 velocity
// kernel: L2 83% busy, L1 hit rate 51%, DRAM at 58%); here each value crosses L2 about once.
#pragma once
#include <algorithm>
#include <atomic>
#include <string_view>
#include <type_traits>

#include "codelets/edges.hpp"
#include "codelets/kernel_support.hpp"
#include "codelets/material.hpp"
#include "codelets/stencil.hpp"
#include "core/execution_policy.hpp"
#include "core/fast_div.hpp"

#ifdef ONDES_DEFINE_CUDA_KERNELS
#include <cuda_pipeline.h>
namespace ondes::cuda::march {

constexpr int kTx = 32, kHalo = 2, kPitch = kTx + 2 * kHalo;

// The kernels' tiles, one after another (dynamic shared memory), indexed directly rather than
// through pointers so that every access is a shared-memory one (LDS/STS).
extern __shared__ float march_tiles[];

// A tile: the TY rows of 32 cells of a thread block and their 2-cell halo, element e at row
// e / kPitch, column e % kPitch; element e is staged by thread e mod the block's threads, in
// kPasses passes.
template <int TY>
struct Tile {
  static constexpr int kRows = TY + 2 * kHalo, kSize = kPitch * kRows, kThreads = kTx * TY;
  static constexpr int kPasses = (kSize + kThreads - 1) / kThreads;
  static_assert(kSize >= kThreads, "every thread stages an element in the first pass");
};

// Offset of (i, j) within a padded plane (a plane's cells fit an int), and of plane k.
__device__ inline int in_plane(const BlockShape& sh, int i, int j) { return (j + kGhost) * int(sh.sy()) + i + kGhost; }
__device__ inline int64_t plane_base(const BlockShape& sh, int k) { return int64_t(k + kGhost) * sh.sz(); }
__device__ inline int thread_rank() { return threadIdx.y * kTx + threadIdx.x; }
__device__ inline int tile_centre() { return (threadIdx.y + kHalo) * kPitch + threadIdx.x + kHalo; }

// The tile elements this thread stages: their in-plane offsets, clamped to the box b and its halo
// (a tile overhanging the box stages copies of its last elements, which no active cell reads).
// Clamped to the box rather than the block: a box of 492 cells in 16 tiles of 32 otherwise read
// 20 columns of PML cells a plane that nothing used (4% of the march's reads).
template <int TY>
struct Staging {
  using T = Tile<TY>;
  int off[T::kPasses];
  __device__ Staging(const BlockShape& sh, const PmlBox& b, int i0, int j0) {
#pragma unroll
    for (int p = 0; p < T::kPasses; ++p) {
      const int e = min(thread_rank() + p * T::kThreads, T::kSize - 1), li = e % kPitch, lj = e / kPitch;
      off[p] = in_plane(sh, min(i0 - kHalo + li, b.hi[0] + kHalo - 1), min(j0 - kHalo + lj, b.hi[1] + kHalo - 1));
    }
  }
  __device__ static bool stages(int p) { return p == 0 || thread_rank() + p * T::kThreads < T::kSize; }

  // The elements of the plane at base of the first F arrays of src into registers...
  template <int F>
  __device__ void load(float (&r)[F][T::kPasses], const float* const* src, int64_t base) const {
#pragma unroll
    for (int f = 0; f < F; ++f) {
      const float* plane = src[f] + base;
#pragma unroll
      for (int p = 0; p < T::kPasses; ++p)
        if (stages(p)) r[f][p] = plane[off[p]];
    }
  }
  // ... and from registers into tiles first[f] (element offsets in march_tiles).
  template <int F>
  __device__ static void store(const float (&r)[F][T::kPasses], const int* first) {
#pragma unroll
    for (int f = 0; f < F; ++f)
#pragma unroll
      for (int p = 0; p < T::kPasses; ++p)
        if (stages(p)) march_tiles[first[f] + thread_rank() + p * T::kThreads] = r[f][p];
  }
};

// The ghosts of the x faces an XHalo serves, in the tiles of a column that reaches them: Staging
// stages the field's (stale) ghost columns as ever, then one thread an element overwrites them
// with the neighbour's buffer (after a barrier: another thread staged that element). Only the
// first three tiles (the halo components, read at x offsets) and the tile rows of the column's
// cells: nothing else reads a ghost column. Why not a per-element choice in Staging's loads: that
// made every march of the kernel 3-6% slower and spilled (H100, ncu, 2x2 and 4x4 blocks).
template <int TY>
struct XPatch {
  static constexpr int kPerFace = kGhost * TY * kHaloComponents;  // columns x rows x components
  static constexpr int kSlots = 2 * kPerFace;  // floats of shared memory after the tiles (slots)
  // This thread's element, packed in one register (the saving marches are at their 80-register
  // bound, and a pointer, an offset and a value held across the plane spilled 12 bytes): its
  // offset in march_tiles (bits 0-11; never 0, the tile's first rows are y halo), its offset in
  // its component's plane of the face buffer (bits 12-30) and the face (bit 31: XP). 0: none.
  // The value comes through shared memory (cp.async into the thread's slot): no register either.
  static constexpr unsigned kTileBits = 12, kRowBits = 19, kXP = 1u << 31;
  unsigned at = 0;
  bool face;  // the column reaches a face (uniform in the thread block: the others skip the barrier)
  __device__ XPatch(const BlockShape& sh, const PmlBox& b, const XHalo& h, int i0, int j0) {
    const bool xm = h.at[0] && i0 < kHalo, xp = h.at[1] && i0 + kTx + kHalo > sh.nx;
    face = xm || xp;
    int t = thread_rank(), dir = XM;  // threads [0, kPerFace) for XM if reached, the next for XP
    if (!xm || t >= kPerFace) {
      dir = XP, t -= xm ? kPerFace : 0;
      if (!xp || t >= kPerFace) return;
    }
    const int f = t / (kGhost * TY), u = t % (kGhost * TY), row = u / kGhost, col = u % kGhost;
    const int j = j0 + row, li = ghost_box(sh, dir).i0 + col - (i0 - kHalo);
    if (j >= b.hi[1] || li >= kPitch) return;  // no cell of the column reads it
    const unsigned tile = f * Tile<TY>::kSize + (row + kHalo) * kPitch + li;
    at = tile | unsigned(j * kGhost + col) << kTileBits | (dir == XP ? kXP : 0u);
  }
  // Plane k's element into this thread's slot (slots: the first slot's offset in march_tiles).
  __device__ void load(const BlockShape& sh, const XHalo& h, int k, int slots) const {
    if (!at) return;
    const int f = tile() / Tile<TY>::kSize;
    const float* face = at & kXP ? h.at[1] : h.at[0];  // a face buffer: components x nz x ny x kGhost
    __pipeline_memcpy_async(&march_tiles[slots + thread_rank()],
                            face + (int64_t(f) * sh.nz + k) * (sh.ny * kGhost) + (at >> kTileBits & ((1u << kRowBits) - 1)),
                            sizeof(float));
    __pipeline_commit();
  }
  __device__ void store(int slots) const {
    if (!face) return;
    __pipeline_wait_prior(0);
    __syncthreads();  // Staging's store of the same elements is done
    if (at) march_tiles[tile()] = march_tiles[slots + thread_rank()];
  }
  __device__ int tile() const { return at & ((1u << kTileBits) - 1); }
  static_assert(kHaloComponents * Tile<TY>::kSize <= (1 << kTileBits), "tile offsets fit their bits");
  static_assert(kSlots <= Tile<TY>::kThreads, "a slot a thread");
};
// XPatch in the kernels that read x faces from their buffers (XF), else nothing.
struct NoXPatch {
  template <class... A>
  __device__ explicit NoXPatch(const A&...) {}
  __device__ void load(const BlockShape&, const XHalo&, int, int) const {}
  __device__ void store(int) const {}
};
template <int TY, bool XF>
using XPatchIf = std::conditional_t<XF, XPatch<TY>, NoXPatch>;

// The stress components as the velocity stencil reads them: x/y offsets from tiles 0-4 (sxx, sxy,
// sxz, syy, syz; Size elements each, rows of Pitch), z from the windows (planes k-2..k+1 for sxz,
// syz; k-1..k+2 for szz).
template <int Size, int Pitch>
struct VelocityAtTiles {
  int centre;
  float wxz[4], wyz[4], wzz[4];
  template <int C, int DX, int DY, int DZ>
  __device__ float at() const {
    if constexpr (DX == 0 && DY == 0 && (C == SXZ || C == SYZ || C == SZZ)) {
      if constexpr (C == SXZ) return wxz[DZ + 2];
      else if constexpr (C == SYZ) return wyz[DZ + 2];
      else return wzz[DZ + 1];
    } else {
      static_assert(DZ == 0 && C != SZZ, "no diagonal offsets; szz is not differentiated in x or y");
      constexpr int tile = C == SXX ? 0 : C == SXY ? 1 : C == SXZ ? 2 : C == SYY ? 3 : 4;
      return march_tiles[tile * Size + centre + DY * Pitch + DX];
    }
  }
};
template <int TY>
using VelocityAt = VelocityAtTiles<Tile<TY>::kSize, kPitch>;

// The density around a velocity cell: x and y neighbours from tile 5, z from registers.
template <int TY>
struct RhoAt {
  int centre;
  float here, up;
  template <int C, int DX, int DY, int DZ>
  __device__ float at() const {
    static_assert(C == RHO, "the velocity update reads the density only");
    if constexpr (DZ == 1) return up;
    else if constexpr (DX == 0 && DY == 0) return here;
    else return march_tiles[5 * Tile<TY>::kSize + centre + DY * kPitch + DX];
  }
};

// The velocity components as the stress stencil reads them: x/y offsets from tiles 0-2 (Size
// elements each from the cell's element `centre`, rows of Pitch), z from the windows (planes
// k-1..k+2 for vx, vy; k-2..k+1 for vz, which may hold ZW - 4 more planes above).
template <int Size, int Pitch, int ZW = 4>
struct StressAtTiles {
  int centre;
  float wx[4], wy[4], wz[ZW];
  template <int C, int DX, int DY, int DZ>
  __device__ float at() const {
    if constexpr (DX == 0 && DY == 0) {
      if constexpr (C == VX) return wx[DZ + 1];
      else if constexpr (C == VY) return wy[DZ + 1];
      else return wz[DZ + 2];
    } else {
      static_assert(DZ == 0, "no diagonal offsets");
      return march_tiles[C * Size + centre + DY * Pitch + DX];
    }
  }
};
template <int TY>
using StressAt = StressAtTiles<Tile<TY>::kSize, kPitch>;

// lambda and 1/mu around a stress cell: lambda at the cell, 1/mu from the tiles of planes k and
// k+1 (lo, hi: the cell's element offsets in them).
struct ImuAt {
  int lo, hi;
  float lam;
  template <int C, int DX, int DY, int DZ>
  __device__ float at() const {
    if constexpr (C == LAM) {
      static_assert(DX == 0 && DY == 0 && DZ == 0, "lambda is read at the cell only");
      return lam;
    } else {
      static_assert(C == IMU && (DZ == 0 || DZ == 1), "1/mu at planes k and k+1");
      return march_tiles[(DZ == 0 ? lo : hi) + DY * kPitch + DX];
    }
  }
};

template <int N>
__device__ inline void slide(float (&w)[N], float next) {
#pragma unroll
  for (int d = 0; d + 1 < N; ++d) w[d] = w[d + 1];
  w[N - 1] = next;
}

// C components of a field at cell q (stride n) into r.
template <int C>
__device__ inline void load_cell(float (&r)[C], const float* f, int64_t n, int64_t q) {
#pragma unroll
  for (int c = 0; c < C; ++c) r[c] = f[c * n + q];
}

// Cell (i, j, k)'s new values, still in this thread's registers (now: the kind's components), into
// the boundary buffers whose edge box holds it, each offset computed from (i, j) for its face: what
// edges.hpp's save_cell_edges does, without reading the values back from the field or walking the
// four edge boxes. Why: in a 4x4 block's march the two threads of a warp at an x edge ran that
// general path, and the rest of the warp waited for them at every plane (granularity probe, H100:
// the saving marches 4% slower than the same geometry without saving,
// 6bb2ab2:bench/results/gpu_h100_granularity_probe.txt). The PML and per-cell kernels keep save_cell_edges:
// on this function (their cell's components loaded first) the velocity PML kernel spilled 8 bytes and
// 2x2 blocks ran 0.7% slower (6bb2ab2:bench/results/gpu_h100_one_edge_save.txt).
template <int Kind, int C>
__device__ __forceinline__ void save_edges_of(const BlockShape& sh, const BoundaryBuffers& e, const float (&now)[C],
                                              int i, int j, int k) {
  if (i >= kGhost && i < sh.nx - kGhost && j >= kGhost && j < sh.ny - kGhost) return;
  // A face's buffer is components x nz x (its rows x its columns): `plane` floats a component's plane.
  auto put = [&](auto face, int64_t plane, int at) {
    constexpr int dir = decltype(face)::value;
    float* b = e.at[dir];
    if (!b) return;
#pragma unroll
    for (int c = 0; c < kHaloComponents; ++c) b[(int64_t(c) * sh.nz + k) * plane + at] = now[halo_component(Kind, dir, c)];
  };
  const int64_t x_plane = int64_t(sh.ny) * kGhost, y_plane = int64_t(sh.nx) * kGhost;
  if (i < kGhost) put(std::integral_constant<int, XM>{}, x_plane, j * kGhost + i);
  if (i >= sh.nx - kGhost) put(std::integral_constant<int, XP>{}, x_plane, j * kGhost + i - (sh.nx - kGhost));
  if (j < kGhost) put(std::integral_constant<int, YM>{}, y_plane, j * sh.nx + i);
  if (j >= sh.ny - kGhost) put(std::integral_constant<int, YP>{}, y_plane, (j - (sh.ny - kGhost)) * sh.nx + i);
}

// The order the thread blocks of a march run in: a 1D grid over the box's tiles (x fastest), in
// bands of `rows` tile rows walked down plane by plane (kz planes a thread block), band after band.
// Why: in x, y, z order a thread block's z neighbours ran a whole layer of tiles earlier (16 x 62
// on benchmark.toml, two waves of resident thread blocks), and the planes its z windows share with
// them were no longer all in L2; in bands of about one wave's tiles a layer they are. H100, plain
// loop, DRAM bytes read a step (ncu): velocity_march 2.52 -> 2.39 GB, stress_march 2.63 -> 2.31 GB
// with bands of 4 rows (6bb2ab2:bench/results/gpu_march_bands.txt). rows 0: the 3D grid (x, y, z order).
// tiles_x, tiles_y, tiles_z: the box's tiles along each axis (launch computes them once); the
// divisors of Column::of: tiles_x, a band's thread block rows (rows x tiles_z), rows and the last
// band's rows, as FastDiv. Why: as integer divisions (~20 instructions each, per warp, for thread
// blocks of two planes) they made the 1D grid 3.6% slower than the 3D grid on the H200, in the
// very same block order (0.7% with FastDiv; 6bb2ab2:bench/results/gpu_march_bands.txt).
struct Order {
  int kz, rows, tiles_x, tiles_y, tiles_z;
  FastDiv by_x, by_band, by_rows, by_last;
  static Order of(int kz, int rows, int tiles_x, int tiles_y, int tiles_z) {
    Order o{kz, rows, tiles_x, tiles_y, tiles_z, {}, {}, {}, {}};
    if (rows > 0) {
      const int last = tiles_y - (tiles_y - 1) / rows * rows;
      o.by_x = FastDiv(tiles_x), o.by_band = FastDiv(rows * tiles_z), o.by_rows = FastDiv(rows), o.by_last = FastDiv(last);
    }
    return o;
  }
};

// The thread block's column: tile origin (i0, j0), planes [k0, k1), this thread's cell (i, j).
struct Column {
  int i0, j0, i, j, k0, k1;
  bool active;
  template <int TY>
  __device__ static Column of(const PmlBox& b, const Order& o) {
    int tx = blockIdx.x, ty = blockIdx.y, tz = blockIdx.z;  // rows 0: a 3D grid
    if (o.rows > 0) {
      const int r = o.by_x(blockIdx.x), band = o.by_band(r), first = band * o.rows;
      const bool last = first + o.rows > o.tiles_y;
      const int rows = last ? o.tiles_y - first : o.rows, u = r - band * o.rows * o.tiles_z;
      tx = blockIdx.x - r * o.tiles_x, tz = last ? o.by_last(u) : o.by_rows(u), ty = first + (u - tz * rows);
    }
    Column c;
    c.i0 = b.lo[0] + tx * kTx, c.j0 = b.lo[1] + ty * TY;
    c.i = c.i0 + threadIdx.x, c.j = c.j0 + threadIdx.y;
    c.k0 = b.lo[2] + tz * o.kz, c.k1 = min(b.hi[2], c.k0 + o.kz);
    c.active = c.i < b.hi[0] && c.j < b.hi[1];
    return c;
  }
  // This thread's cell in plane k0 (an idle thread's clamped to the box: it loads what an active
  // one does).
  __device__ int64_t first(const BlockShape& sh, const PmlBox& b) const {
    return plane_base(sh, k0) + in_plane(sh, min(i, b.hi[0] - 1), min(j, b.hi[1] - 1));
  }
};

// One thread block's march (velocity_march). XF: the x halo of the faces h serves comes from the
// neighbours' buffers (XPatch). A function of its own, inlined in the kernel: the same body as the
// kernel itself spilled 8 bytes in its saving, uniform-material instantiation, this one none.
template <int TY, bool Save, bool Uniform, bool XF>
__device__ __forceinline__ void velocity_column(const StepParams& p, const PmlBox& b, float* __restrict__ v,
                                                const float* __restrict__ s, const float* __restrict__ mat,
                                                const BoundaryBuffers& e, const XHalo& h, const Column& c) {
  using T = Tile<TY>;
  constexpr int F = Uniform ? 5 : 6, K = T::kSize;  // tiles: sxx, sxy, sxz, syy, syz, rho
  constexpr int slots = F * K;                      // XPatch's, after the tiles
  const BlockShape sh = p.shape;
  const Staging<TY> st(sh, b, c.i0, c.j0);
  const int64_t n = sh.cells(), sz = sh.sz();
  const float *sxz = s + SXZ * n, *syz = s + SYZ * n, *szz = s + SZZ * n, *rho = mat + RHO * n;
  const float* const src[6] = {s + SXX * n, s + SXY * n, sxz, s + SYY * n, syz, rho};
  const int tiles[6] = {0, K, 2 * K, 3 * K, 4 * K, 5 * K};
  VelocityAt<TY> at{tile_centre(), {}, {}, {}};
  RhoAt<TY> m{tile_centre(), 0.0f, 0.0f};              // unless Uniform
  const PlaneFactors factors = plane_factors(mat, sh);  // if Uniform
  XPatchIf<TY, XF> xp(sh, b, h, c.i0, c.j0);
  auto stage = [&](auto& r, int k) {
    st.load(r, src, plane_base(sh, k));
    xp.load(sh, h, k, slots);
  };
  int64_t q = c.first(sh, b);
#pragma unroll
  for (int d = 0; d < 4; ++d) {
    at.wxz[d] = sxz[q + (d - 2) * sz];
    at.wyz[d] = syz[q + (d - 2) * sz];
    at.wzz[d] = szz[q + (d - 1) * sz];
  }
  if constexpr (!Uniform) m.here = rho[q], m.up = rho[q + sz];
  float r[F][T::kPasses], old[kVelocityComponents];
  stage(r, c.k0);
  load_cell(old, v, n, q);
#pragma unroll 1
  for (int k = c.k0; k < c.k1; ++k, q += sz) {
    __syncthreads();  // the previous plane's tiles are read
    st.store(r, tiles);
    xp.store(slots);
    __syncthreads();
    float now[kVelocityComponents];
#pragma unroll
    for (int d = 0; d < kVelocityComponents; ++d) now[d] = old[d];
    float nxz = 0.0f, nyz = 0.0f, nzz = 0.0f, nrho = 0.0f;
    if (k + 1 < c.k1) {  // the next plane's loads, in flight while this one is computed
      stage(r, k + 1);
      load_cell(old, v, n, q + sz);
      nxz = sxz[q + 2 * sz], nyz = syz[q + 2 * sz], nzz = szz[q + 3 * sz];
      if constexpr (!Uniform) nrho = rho[q + 2 * sz];
    }
    if (c.active) {
      float dv[kVelocityComponents];
      const Diffs d = velocity_diffs(at);
      if constexpr (Uniform) velocity_increments(factors.buoyancies(k), d, p.dt_h, dv);
      else velocity_increments(m, d, p.dt_h, dv);
#pragma unroll
      for (int w = 0; w < kVelocityComponents; ++w) now[w] += dv[w];
      if (p.damping.layers) damp_velocity(p.damping.plane(k), now);
#pragma unroll
      for (int w = 0; w < kVelocityComponents; ++w) v[w * n + q] = now[w];
      if (Save) save_edges_of<kVelocityKind>(sh, e, now, c.i, c.j, k);
    }
    slide(at.wxz, nxz), slide(at.wyz, nyz), slide(at.wzz, nzz);
    if constexpr (!Uniform) m.here = m.up, m.up = nrho;
  }
}

// Uniform: the block's material is uniform in every plane (StepParams::uniform_planes): the plane's
// buoyancies (codelets/material.hpp) instead of the density's tile and window: 4 of 56 bytes a cell.
// X: the x halo of the faces h serves is read from the neighbours' buffers (XHalo, XPatch). One
// body for all the thread blocks: with a face body and another one for the columns that reach no
// face, ptxas spilled 16-28 bytes; those columns pay one test a plane.
template <int TY, int MinBlocks, bool Save, bool Uniform, bool X>
__global__ void __launch_bounds__(kTx* TY, MinBlocks)
    velocity_march(StepParams p, PmlBox b, float* __restrict__ v, const float* __restrict__ s,
                   const float* __restrict__ mat, BoundaryBuffers e, XHalo h, Order o) {
  const Column c = Column::of<TY>(b, o);
  velocity_column<TY, Save, Uniform, X>(p, b, v, s, mat, e, h, c);
}

// One thread block's march (stress_march); XF as velocity_column's.
template <int TY, bool Save, bool Uniform, bool XF>
__device__ __forceinline__ void stress_column(const StepParams& p, const PmlBox& b, float* __restrict__ s,
                                              const float* __restrict__ v, const float* __restrict__ mat,
                                              const BoundaryBuffers& e, const XHalo& h, const Column& c) {
  using T = Tile<TY>;
  constexpr int F = Uniform ? 3 : 4, K = T::kSize;  // staged: vx, vy, vz, and 1/mu of the plane below
  constexpr int slots = (Uniform ? 3 : 5) * K;      // XPatch's, after the tiles (1/mu: two)
  const BlockShape sh = p.shape;
  const Staging<TY> st(sh, b, c.i0, c.j0);
  const int64_t n = sh.cells(), sz = sh.sz();
  const float *vx = v + VX * n, *vy = v + VY * n, *vz = v + VZ * n, *lam = mat + LAM * n, *imu = mat + IMU * n;
  const float* const src[4] = {vx, vy, vz, imu + sz};  // 1/mu one plane ahead of the velocities
  const int imu_tiles[2] = {3 * K, 4 * K};             // 1/mu by plane parity from k0
  StressAt<TY> at{tile_centre(), {}, {}, {}};
  XPatchIf<TY, XF> xp(sh, b, h, c.i0, c.j0);
  auto stage = [&](auto& r, int k) {
    st.load(r, src, plane_base(sh, k));
    xp.load(sh, h, k, slots);
  };
  int64_t q = c.first(sh, b);
#pragma unroll
  for (int d = 0; d < 4; ++d) {
    at.wx[d] = vx[q + (d - 1) * sz];
    at.wy[d] = vy[q + (d - 1) * sz];
    at.wz[d] = vz[q + (d - 2) * sz];
  }
  float l = Uniform ? 0.0f : lam[q];
  if constexpr (!Uniform) {  // 1/mu of plane k0 (the loop stages k + 1's)
    float r0[1][T::kPasses];
    const float* const src0[1] = {imu};
    const int dst0[1] = {imu_tiles[0]};
    st.load(r0, src0, plane_base(sh, c.k0));
    st.store(r0, dst0);
  }
  float r[F][T::kPasses], old[kStressComponents];
  stage(r, c.k0);
  load_cell(old, s, n, q);
#pragma unroll 1
  for (int k = c.k0; k < c.k1; ++k, q += sz) {
    const int odd = (k - c.k0) & 1;
    __syncthreads();  // the previous plane's tiles are read
    {
      const int dst[4] = {0, K, 2 * K, imu_tiles[odd ^ 1]};
      st.store(r, dst);
    }
    xp.store(slots);
    __syncthreads();
    float now[kStressComponents];
#pragma unroll
    for (int d = 0; d < kStressComponents; ++d) now[d] = old[d];
    float nx = 0.0f, ny = 0.0f, nz = 0.0f, nl = 0.0f;
    if (k + 1 < c.k1) {  // the next plane's loads, in flight while this one is computed
      stage(r, k + 1);
      load_cell(old, s, n, q + sz);
      nx = vx[q + 3 * sz], ny = vy[q + 3 * sz], nz = vz[q + 2 * sz];
      if constexpr (!Uniform) nl = lam[q + sz];
    }
    if (c.active) {
      const int plane = z_plane(k, p.free_surface);
      // add_stress's update, on the values loaded ahead (szz stays as it was at the surface)
      const Diffs d = stress_diffs(at, plane);
      const Moduli u = [&] {
        // Per cell here, not the plane's factors: loaded a plane, their seven values stalled this
        // kernel on the H100 (1.47 -> 1.66 ms a step, 6bb2ab2:bench/results/gpu_h200_fused_step_probe.txt).
        if constexpr (Uniform) return elastic_moduli(plane_at(mat, sh, k));
        else return elastic_moduli(ImuAt{imu_tiles[odd] + at.centre, imu_tiles[odd ^ 1] + at.centre, l});
      }();
      hooke(u, d, p.dt_h, plane, [&](int w, float x) { now[w] += x; });
#pragma unroll
      for (int w = 0; w < kStressComponents; ++w) s[w * n + q] = now[w];
      if (Save) save_edges_of<kStressKind>(sh, e, now, c.i, c.j, k);
    }
    slide(at.wx, nx), slide(at.wy, ny), slide(at.wz, nz);
    l = nl;
  }
}

// Uniform, X: as velocity_march's (no lambda window, no 1/mu tiles: 8 of 76 bytes a cell).
template <int TY, int MinBlocks, bool Save, bool Uniform, bool X>
__global__ void __launch_bounds__(kTx* TY, MinBlocks)
    stress_march(StepParams p, PmlBox b, float* __restrict__ s, const float* __restrict__ v,
                 const float* __restrict__ mat, BoundaryBuffers e, XHalo h, Order o) {
  const Column c = Column::of<TY>(b, o);
  stress_column<TY, Save, Uniform, X>(p, b, s, v, mat, e, h, c);
}

// The launch geometry: TY rows a tile, KZ planes a thread block, B thread blocks per SM for the
// register bound: ExecutionPolicy::march (`--tune march=TYxKZxB[xR]`: TY 8 with B 3-4, or 16 with B 2;
// R: Order). KZ by default (kz 0): 2 planes a thread block for the
// kernels at 4 blocks per SM, 4 for the edge-saving ones at 3. Short marches, many thread blocks
// with their loads in flight from the start, fill the memory pipeline better than long ones
// reusing their z windows, the more so the faster the memory; with fewer blocks resident a march
// needs a few more planes to hide its first loads. benchmark.toml, TY 8, B 4, plain loop (one
// block, no edges; 6bb2ab2:bench/results/gpu_march_planes.txt): KZ 16 / 8 / 4 / 2 on the H100 18.20 /
// 17.98 / 18.31 / 18.78 G; KZ 16 / 8 / 4 / 2 / 1 on the H200 22.91 / 23.47 / 24.91 / 24.90 / 23.21
// G. StarPU with KZ 2 for all: 1x1 18.26 G, but 2x2 17.48 and 4x4 15.34 G against 17.84 and 16.17
// with KZ 4 (what the earlier rule, KZ 16 halved on small boxes, gave them). More thread blocks per
// SM spill: 5 (48 registers) / 6 (40) took the H100's plain loop from 18.78 to 17.33 / 12.24 G.
// The march covers the PmlBox and the PML kernels of compute.hpp the PML cells. Dropped: the
// march over the whole block, each PML cell's C-PML correction in its march thread (10.7-12.9 G
// against 14.2 G: the correction's registers made the plane loop spill, and a warp's PML and
// interior cells diverged), and PML thread blocks interleaved with the march's in one launch
// (6bb2ab2:bench/results/gpu_h100_pml_joined.txt).
// Bands (Order): R tile rows each; -1 for as many as make about one wave of the kernel's resident
// thread blocks (SMs x B / tiles in x: 33 on benchmark.toml's 1x1 box), 0 for a 3D grid in x, y,
// z order; by default the GPU's (device_rows). The GPUs disagree (6bb2ab2:bench/results/gpu_march_bands.txt,
// plain loop): H100 18.68 G with the 3D grid, 18.79-18.83 in one band of a 1D grid (the same order),
// 19.95-19.98 / 20.31 with bands of 16 / 32 rows (StarPU 1x1 18.34-18.43 -> 19.88-19.89 G with 32);
// H200 24.89 G with the 3D grid, 24.71 in one band, 24.63-24.79 in bands, though bands cut the
// march's DRAM reads there too (velocity 2.46 -> 2.25 GB, stress 2.56 -> 2.26 GB a step).
// Planes a thread block walks down, for a kernel at `per_sm` thread blocks per SM.
inline int planes_per_block(const MarchGeometry& g, int per_sm) { return g.kz > 0 ? g.kz : per_sm >= 4 ? 2 : 4; }

// Thread blocks of a kernel at per_sm a multiprocessor resident on the current GPU at once.
inline int resident_blocks(int per_sm) {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    sms = 1;
  return sms * per_sm;
}

// The default band rows on a GPU: bands of 32 rows where DRAM is slower than 4 TB/s, the 3D grid
// elsewhere. Why: where DRAM bounds the march, bands' L2 reuse pays (H100, 3.35 TB/s: plain loop
// 18.68 -> 20.31 G); on the H200 (4.9 TB/s) its L2 does (ncu: the fabric between the L2's two
// partitions 95-97% busy in both march kernels), bands' fewer DRAM bytes do not show, and the 1D
// grid costs 0.4-0.7% (24.89 -> 24.71-24.79 G).
inline int query_device_rows(int device) {
  int khz = 0, bits = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess)
    return 0;
  const double bytes_per_s = 2.0 * 1e3 * khz * bits / 8;  // double data rate
  return bytes_per_s > 0 && bytes_per_s < 4e12 ? 32 : 0;
}
// Queried once a GPU: the memory clock query took ~0.5 ms a call under CUDA 13 (H200: StarPU
// 4x4 fell from 18.7 to 3.0 G cell-updates/s with it at every launch).
inline int device_rows() {
  constexpr int kDevices = 64;
  static std::atomic<int> rows[kDevices] = {};  // 0: not queried yet, else rows + 1
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0) return 0;
  if (device >= kDevices) return query_device_rows(device);
  int r = rows[device].load(std::memory_order_relaxed);
  if (r == 0) rows[device].store(r = query_device_rows(device) + 1, std::memory_order_relaxed);
  return r - 1;
}

// Kernel<TY, B, Save, Uniform, X>::fn over box b, for the geometry.
template <template <int, int, bool, bool, bool> class Kernel, class... Args>
void launch(const char* name, const MarchGeometry& g, const PmlBox& b, bool save, bool uniform, bool x,
            cudaStream_t stream, Args... args) {
  const int nx = b.hi[0] - b.lo[0], ny = b.hi[1] - b.lo[1], nz = b.hi[2] - b.lo[2];
  auto go = [&](auto ty, auto blocks) {
    constexpr int TY = decltype(ty)::value, B = decltype(blocks)::value;
    // Saving the edges costs registers: at 64 (B = 4) the saving kernels spilled 12 (velocity) and
    // 56 bytes (stress); at 80 none. H100, benchmark.toml 4x4 blocks (every block saves): 11.94 ->
    // 12.58 G cell-updates/s with B = 3 for them.
    constexpr int SB = B > 3 ? 3 : B;
    // The same for the x-face (XHalo) kernels: at 4 those spilled 16-36 bytes, at 3 none.
    using K = Kernel<TY, B, false, false, false>;
    const typename K::Fn kernels[2][2][2] = {
        {{K::fn, Kernel<TY, B, false, true, false>::fn},
         {Kernel<TY, SB, true, false, false>::fn, Kernel<TY, SB, true, true, false>::fn}},
        {{Kernel<TY, SB, false, false, true>::fn, Kernel<TY, SB, false, true, true>::fn},
         {Kernel<TY, SB, true, false, true>::fn, Kernel<TY, SB, true, true, true>::fn}}};
    const auto k = kernels[x][save][uniform];
    const int per_sm = save || x ? SB : B;
    const size_t bytes = sizeof(float) * (K::tiles(uniform) * Tile<TY>::kSize + (x ? XPatch<TY>::kSlots : 0));
    const int tiles_x = (nx + kTx - 1) / kTx, tiles_y = (ny + TY - 1) / TY;
    const int kz = planes_per_block(g, per_sm), tiles_z = (nz + kz - 1) / kz;
    const int rows = g.rows >= 0            ? g.rows
                     : g.rows == kDeviceRows ? device_rows()
                                             : std::max(1, resident_blocks(per_sm) / tiles_x);
    const Order o = Order::of(kz, std::min(rows, tiles_y), tiles_x, tiles_y, tiles_z);
    const dim3 grid = rows > 0 ? dim3(unsigned(tiles_x) * tiles_y * tiles_z) : dim3(tiles_x, tiles_y, tiles_z);
    k<<<grid, dim3(kTx, TY), bytes, stream>>>(args..., o);
  };
  using Rows8 = std::integral_constant<int, 8>;
  using Rows16 = std::integral_constant<int, 16>;
  if (g.ty == 16)
    go(Rows16{}, std::integral_constant<int, 2>{});
  else if (g.min_blocks == 3)
    go(Rows8{}, std::integral_constant<int, 3>{});
  else
    go(Rows8{}, std::integral_constant<int, 4>{});
  check_launch(name);
}
template <int TY, int B, bool S, bool U, bool X>
struct Velocity {
  static constexpr auto fn = velocity_march<TY, B, S, U, X>;
  using Fn = decltype(fn);
  static int tiles(bool uniform) { return uniform ? 5 : 6; }
};
template <int TY, int B, bool S, bool U, bool X>
struct Stress {
  static constexpr auto fn = stress_march<TY, B, S, U, X>;
  using Fn = decltype(fn);
  static int tiles(bool uniform) { return uniform ? 3 : 5; }
};

// The x faces of `ghosts` a march over box b reads from the buffers (XHalo): those whose ghost
// columns only march cells read in the box's rows, the box reaching the face and at least two cells
// wide (else PML cells beside it read them too).
inline XHalo x_halo(const BlockShape& sh, const PmlBox& b, const BoundaryBuffers& ghosts) {
  XHalo h;
  if (empty(b) || int64_t(sh.ny) * kGhost >= (1 << XPatch<8>::kRowBits)) return h;
  if (b.lo[0] == 0 && b.hi[0] >= kGhost) h.at[0] = ghosts.at[XM];
  if (b.hi[0] == sh.nx && b.lo[0] <= sh.nx - kGhost) h.at[1] = ghosts.at[XP];
  h.rows = b;
  return h;
}

// Kernel's march over box b (the block's cells outside the PML: interior()) in geometry g, reading
// the x halo of h's faces from their buffers.
template <template <int, int, bool, bool, bool> class Kernel>
void march_block(const char* name, const MarchGeometry& g, const StepParams& p, const PmlBox& b, float* out,
                 const float* in, const float* mat, const BoundaryBuffers& edges, const XHalo& h, cudaStream_t stream) {
  if (!empty(b)) launch<Kernel>(name, g, b, any(edges), p.uniform_planes, h.any(), stream, p, b, out, in, mat, edges, h);
}

}  // namespace ondes::cuda::march
#endif
