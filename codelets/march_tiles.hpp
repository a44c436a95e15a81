// The z-marching kernels' (codelets/march.hpp) shared-memory tiles and what reads them: a thread
// block's staging of a plane's tiles with their 2-cell halo (Staging), the x faces' ghosts patched
// in from the neighbours' buffers (XPatch), the accessors through which stencil.hpp's per-cell
// arithmetic reads tiles and register windows, the edges saved from registers, and the order and
// column of the thread blocks (Order, Column). CUDA only.
#pragma once
#include <algorithm>
#include <type_traits>

#include "codelets/edges.hpp"
#include "codelets/kernel_support.hpp"
#include "codelets/material.hpp"
#include "codelets/stencil.hpp"
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
// Clamped to the box rather than the block: a tile overhanging the box would otherwise read PML
// columns that nothing uses (docs/performance.md, Decisions: tiles clamped to the box).
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
  // A plane's registers into the tiles first[f], and the x patch's into its slots, between the
  // barriers that keep the previous plane's readers and this plane's apart.
  template <int F, class XP>
  __device__ static void publish(const float (&r)[F][T::kPasses], const int* first, const XP& xp, int slots) {
    __syncthreads();  // the previous plane's tiles are read
    store(r, first);
    xp.store(slots);
    __syncthreads();
  }
  // Field f's plane at base into the tile from element first, at once.
  __device__ void stage(const float* f, int64_t base, int first) const {
    float r[1][T::kPasses];
    const float* const src[1] = {f};
    const int dst[1] = {first};
    load(r, src, base);
    store(r, dst);
  }
};

// The ghosts of the x faces an XHalo serves, in the tiles of a column that reaches them: Staging
// stages the field's (stale) ghost columns as ever, then one thread an element overwrites them
// with the neighbour's buffer (after a barrier: another thread staged that element). Only the
// first three tiles (the halo components, read at x offsets) and the tile rows of the column's
// cells: nothing else reads a ghost column. Why not a per-element choice in Staging's loads: that
// made every march of the kernel slower and spilled (docs/performance.md, Decisions: x patches).
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

// The halos a march touches: the buffers it saves the edges into (none: not saved) and the x faces
// it reads from the neighbours' buffers (x_halo).
struct MarchHalos {
  BoundaryBuffers edges;
  XHalo x;
};

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
    static_assert(DZ == 0 || (DX == 0 && DY == 0), "the plane below at the cell only");
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

// C components of a field at cell q (stride n) into r; copy_cell: of one cell's registers.
template <int C>
__device__ inline void load_cell(float (&r)[C], const float* f, int64_t n, int64_t q) {
#pragma unroll
  for (int c = 0; c < C; ++c) r[c] = f[c * n + q];
}
template <int C>
__device__ inline void copy_cell(float (&to)[C], const float (&from)[C]) {
#pragma unroll
  for (int c = 0; c < C; ++c) to[c] = from[c];
}

// The z windows of a march's first plane, q the thread's cell in it: the velocity march's stresses
// (sxz, syz planes k-2..k+1, szz k-1..k+2; VelocityAt), the stress march's velocities (vx, vy
// k-1..k+2, vz k-2..k+1; StressAt). Its tiles' centre: this thread's.
template <int TY>
__device__ inline VelocityAt<TY> velocity_windows(const float* sxz, const float* syz, const float* szz, int64_t q,
                                                  int64_t sz) {
  VelocityAt<TY> at{tile_centre(), {}, {}, {}};
#pragma unroll
  for (int d = 0; d < 4; ++d) {
    at.wxz[d] = sxz[q + (d - 2) * sz];
    at.wyz[d] = syz[q + (d - 2) * sz];
    at.wzz[d] = szz[q + (d - 1) * sz];
  }
  return at;
}
template <int TY>
__device__ inline StressAt<TY> stress_windows(const float* vx, const float* vy, const float* vz, int64_t q,
                                              int64_t sz) {
  StressAt<TY> at{tile_centre(), {}, {}, {}};
#pragma unroll
  for (int d = 0; d < 4; ++d) {
    at.wx[d] = vx[q + (d - 1) * sz];
    at.wy[d] = vy[q + (d - 1) * sz];
    at.wz[d] = vz[q + (d - 2) * sz];
  }
  return at;
}

// Cell (i, j, k)'s new values, still in this thread's registers (now: the kind's components), into
// the boundary buffers whose edge box holds it, each offset computed from (i, j) for its face: what
// edges.hpp's save_cell_edges does, without reading the values back from the field or walking the
// four edge boxes. Why: in a 4x4 block's march the two threads of a warp at an x edge ran that
// general path, and the rest of the warp waited for them at every plane. The PML and per-cell
// kernels keep save_cell_edges: on this function (their cell's components loaded first) the
// velocity PML kernel spilled (docs/performance.md, Decisions: edges saved in the march).
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
// them were no longer all in L2; in bands of about one wave's tiles a layer they are (docs/
// performance.md, Decisions: march bands). rows 0: the 3D grid (x, y, z order).
// tiles_x, tiles_y, tiles_z: the box's tiles along each axis (launch computes them once); the
// divisors of Column::of: tiles_x, a band's thread block rows (rows x tiles_z), rows and the last
// band's rows, as FastDiv. Why: as integer divisions (~20 instructions each, per warp, for thread
// blocks of two planes) they made the 1D grid slower than the 3D grid in the very same block order
// (docs/performance.md, Decisions: march bands).
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

}  // namespace ondes::cuda::march
#endif
