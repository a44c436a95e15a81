// The z-marching ("2.5D") form of the interior kernels (Micikevicius 2009), CUDA only: a
// thread block owns a 32 x TY column of cells and walks down KZ planes of it. At each plane the
// components differentiated along x or y (and the material read at x or y neighbours) are staged
// in shared memory with a 2-cell halo, read from global memory once per plane by coalesced rows;
// those differentiated along z slide through 4-value register windows. Everything a plane needs
// from global memory (tiles, windows, the cell's old values) is loaded while the previous plane
// is computed, so loads stay in flight across the arithmetic. The per-cell arithmetic is
// stencil.hpp's (velocity_increments, elastic_moduli, hooke) and anelastic.hpp's, read through
// march_tiles.hpp's accessors: the same operations on the same values as the CPU loops (codelets/
// compute.hpp), hence the same bits. Why: one thread per cell fetched each neighbour through L1 and
// L2, which bounded it below the DRAM (docs/performance.md, Decisions: march geometry, anelastic
// march); here each value crosses L2 about once.
#pragma once
#include <algorithm>
#include <atomic>
#include <type_traits>

#include "codelets/anelastic.hpp"
#include "codelets/edges.hpp"
#include "codelets/kernel_support.hpp"
#include "codelets/march_media.hpp"
#include "codelets/march_tiles.hpp"
#include "codelets/material.hpp"
#include "codelets/stencil.hpp"
#include "core/execution_policy.hpp"

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda::march {

// One thread block's march (velocity_march). XF: the x halo of the faces hs.x serves comes from the
// neighbours' buffers (XPatch). A function of its own, inlined in the kernel: the same body as the
// kernel itself spilled 8 bytes in its saving, uniform-material instantiation, this one none.
// Tiles: sxx, sxy, sxz, syy, syz and rho (kCellForm); XPatch's slots after them.
template <int TY, bool Save, int Form, bool XF>
__device__ __forceinline__ void velocity_column(const StepParams& p, const PmlBox& b, float* __restrict__ v,
                                                const float* __restrict__ s, const float* __restrict__ mat,
                                                const MarchHalos& hs, const Column& c) {
  constexpr int F = velocity_tiles(Form), K = Tile<TY>::kSize, slots = F * K;
  const BlockShape sh = p.shape;
  const Staging<TY> st(sh, b, c.i0, c.j0);
  const int64_t n = sh.cells(), sz = sh.sz();
  const float *sxz = s + SXZ * n, *syz = s + SYZ * n, *szz = s + SZZ * n;
  const float* const src[6] = {s + SXX * n, s + SXY * n, sxz, s + SYY * n, syz, mat + RHO * n};
  VelocityMedium<TY, Form> medium(mat, sh, c);
  XPatchIf<TY, XF> xp(sh, b, hs.x, c.i0, c.j0);
  auto stage = [&](auto& r, int k) { st.load(r, src, plane_base(sh, k)); xp.load(sh, hs.x, k, slots); };
  int64_t q = c.first(sh, b);
  VelocityAt<TY> at = velocity_windows<TY>(sxz, syz, szz, q, sz);
  medium.start(q, sz);
  float r[F][Tile<TY>::kPasses], old[kVelocityComponents];
  stage(r, c.k0);
  load_cell(old, v, n, q);
#pragma unroll 1
  for (int k = c.k0; k < c.k1; ++k, q += sz) {
    const int dst[6] = {0, K, 2 * K, 3 * K, 4 * K, 5 * K};
    st.publish(r, dst, xp, slots);
    float now[kVelocityComponents];
    copy_cell(now, old);
    float nxz = 0.0f, nyz = 0.0f, nzz = 0.0f;
    if (k + 1 < c.k1) {  // the next plane's loads, in flight while this one is computed
      stage(r, k + 1);
      load_cell(old, v, n, q + sz);
      nxz = sxz[q + 2 * sz], nyz = syz[q + 2 * sz], nzz = szz[q + 3 * sz];
      medium.fetch(q, sz);
    }
    if (c.active) {
      float dv[kVelocityComponents];
      medium.increments(k, velocity_diffs(at), p.dt_h, dv);
#pragma unroll
      for (int w = 0; w < kVelocityComponents; ++w) now[w] += dv[w];
      if (p.damping.layers) damp_velocity(p.damping.plane(k), now);
#pragma unroll
      for (int w = 0; w < kVelocityComponents; ++w) v[w * n + q] = now[w];
      if (Save) save_edges_of<kVelocityKind>(sh, hs.edges, now, c.i, c.j, k);
    }
    slide(at.wxz, nxz), slide(at.wyz, nyz), slide(at.wzz, nzz);
    medium.slide();
  }
}

// Uniform: the block's material is uniform in every plane (StepParams::uniform_planes): the plane's
// buoyancies (codelets/material.hpp) instead of the density's tile and window: 4 of 56 bytes a cell.
// X: the x halo of the faces hs.x serves is read from the neighbours' buffers (XHalo, XPatch). One
// body for all the thread blocks: with a face body and another one for the columns that reach no
// face, ptxas spilled 16-28 bytes; those columns pay one test a plane.
template <int TY, int MinBlocks, bool Save, int Form, bool X>
__global__ void __launch_bounds__(kTx* TY, MinBlocks)
    velocity_march(StepParams p, PmlBox b, float* __restrict__ v, const float* __restrict__ s,
                   const float* __restrict__ mat, MarchHalos hs, Order o) {
  const Column c = Column::of<TY>(b, o);
  velocity_column<TY, Save, Form, X>(p, b, v, s, mat, hs, c);
}

// One thread block's march (stress_march); XF as velocity_column's. N: the memory sets of an
// attenuating medium (0: elastic), a its anelastic buffer; a cell's memory is loaded a plane ahead,
// as its stress is, and the cell updated by anelastic.hpp's anelastic_stress, as the CPU rows.
// Staged: vx, vy, vz and 1/mu of the plane below (kCellForm); XPatch's slots after the tiles.
template <int TY, bool Save, int Form, bool XF, int N>
__device__ __forceinline__ void stress_column(const StepParams& p, const PmlBox& b, float* __restrict__ s,
                                              const float* __restrict__ v, const float* __restrict__ mat,
                                              const MarchHalos& hs, const AnelasticView& a, const Column& c) {
  constexpr int F = reads_arrays(Form) ? 4 : 3, K = Tile<TY>::kSize, slots = stress_tiles(Form) * K;
  const BlockShape sh = p.shape;
  const Staging<TY> st(sh, b, c.i0, c.j0);
  const int64_t n = sh.cells(), sz = sh.sz();
  const float *vx = v + VX * n, *vy = v + VY * n, *vz = v + VZ * n, *imu = mat + IMU * n;
  const float* const src[4] = {vx, vy, vz, imu + sz};  // 1/mu one plane ahead of the velocities
  const int imu_tiles[2] = {3 * K, 4 * K};              // 1/mu by plane parity from k0
  StressMedium<Form> medium(mat, sh, c);
  XPatchIf<TY, XF> xp(sh, b, hs.x, c.i0, c.j0);
  auto stage = [&](auto& r, int k) { st.load(r, src, plane_base(sh, k)); xp.load(sh, hs.x, k, slots); };
  int64_t q = c.first(sh, b);
  StressAt<TY> at = stress_windows<TY>(vx, vy, vz, q, sz);
  medium.start(q, sz);
  if constexpr (reads_arrays(Form)) st.stage(imu, plane_base(sh, c.k0), imu_tiles[0]);  // the loop stages k + 1's
  float r[F][Tile<TY>::kPasses], old[kStressComponents];
  CellMemory<N> z{};  // if N
  stage(r, c.k0);
  load_cell(old, s, n, q);
  if constexpr (N > 0) z = load_memory<N>(a, n, q);
#pragma unroll 1
  for (int k = c.k0; k < c.k1; ++k, q += sz) {
    const int odd = (k - c.k0) & 1, dst[4] = {0, K, 2 * K, imu_tiles[odd ^ 1]};
    st.publish(r, dst, xp, slots);
    float now[kStressComponents];
    copy_cell(now, old);
    const CellMemory<N> here = z;
    float nx = 0.0f, ny = 0.0f, nz = 0.0f;
    if (k + 1 < c.k1) {  // the next plane's loads, in flight while this one is computed
      stage(r, k + 1);
      load_cell(old, s, n, q + sz);
      if constexpr (N > 0) z = load_memory<N>(a, n, q + sz);
      nx = vx[q + 3 * sz], ny = vy[q + 3 * sz], nz = vz[q + 2 * sz];
      medium.fetch(q, sz);
    }
    if (c.active) {
      const int plane = z_plane(k, p.free_surface);
      const Diffs d = stress_diffs(at, plane);  // add_stress's, on the values loaded ahead
      const ImuAt cell{imu_tiles[odd] + at.centre, imu_tiles[odd ^ 1] + at.centre, medium.l};  // if kCellForm
      const Moduli u = medium.moduli(sh, k, cell);
      auto add = [&](int w, float x) { now[w] += x; };
      if constexpr (N == 0) {
        hooke(u, d, p.dt_h, plane, add);
      } else {
        const float mu = medium.normal_shear(sh, k, cell, u);
        const AnelasticCell ac{a, a.relaxation<N>(c.i, c.j, k, q), n, q, c.i, c.j, k, plane};
        anelastic_stress<N>(s, ac, here, u, mu, d, p.dt_h, add);
      }
      if (p.damping.layers) damp_stress(p.damping.plane(k), now);
#pragma unroll
      for (int w = 0; w < kStressComponents; ++w) s[w * n + q] = now[w];
      if (Save) save_edges_of<kStressKind>(sh, hs.edges, now, c.i, c.j, k);
    }
    slide(at.wx, nx), slide(at.wy, ny), slide(at.wz, nz);
    medium.slide();
  }
}

// Uniform, X: as velocity_march's (no lambda window, no 1/mu tiles: 8 of 76 bytes a cell); N, a:
// as stress_column's; Ondes3d: a is Ondes3D's Day and Bradley's (else its paths fold away:
// known_view).
template <int TY, int MinBlocks, bool Save, int Form, bool X, int N, bool Ondes3d>
__global__ void __launch_bounds__(kTx* TY, MinBlocks)
    stress_march(StepParams p, PmlBox b, float* __restrict__ s, const float* __restrict__ v,
                 const float* __restrict__ mat, MarchHalos hs, AnelasticView a, Order o) {
  const Column c = Column::of<TY>(b, o);
  stress_column<TY, Save, Form, X, N>(p, b, s, v, mat, hs, known_view<Ondes3d>(a), c);
}

// The launch geometry: TY rows a tile, KZ planes a thread block, B thread blocks per SM for the
// register bound: ExecutionPolicy::march (`--tune march=TYxKZxB[xR]`: TY 8 with B 3-4, or 16 with B 2;
// R: Order). KZ by default (kz 0): 2 planes a thread block for the
// kernels at 4 blocks per SM, 4 for the edge-saving ones at 3. Short marches, many thread blocks
// with their loads in flight from the start, fill the memory pipeline better than long ones
// reusing their z windows, the more so the faster the memory; with fewer blocks resident a march
// needs a few more planes to hide its first loads. More thread blocks per SM spill (docs/
// performance.md, Decisions: march geometry).
// The march covers the PmlBox and the PML kernels of compute.hpp the PML cells (what was dropped:
// docs/performance.md, Decisions: march geometry).
// Bands (Order): R tile rows each; -1 for as many as make about one wave of the kernel's resident
// thread blocks (SMs x B / tiles in x), 0 for a 3D grid in x, y, z order; by default the GPU's
// (device_rows): the GPUs disagree on bands (docs/performance.md, Decisions: march bands).

// Thread blocks of a kernel at per_sm a multiprocessor resident on the current GPU at once.
inline int resident_blocks(int per_sm) {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    sms = 1;
  return sms * per_sm;
}

// Planes a thread block walks down, for a kernel at `per_sm` thread blocks per SM over a box of
// tiles_xy tiles in x and y: 4 where the plane's tiles are fewer than the thread blocks resident
// at once (the blocks of 1x2 and more cuts of benchmark.toml), 2 otherwise (its 1x1 box: 992 tiles,
// 528 resident at 4 a multiprocessor on the H100 and the H200): docs/performance.md, Decisions:
// march geometry.
inline int planes_per_block(const MarchGeometry& g, int per_sm, int tiles_xy) {
  if (g.kz > 0) return g.kz;
  if (per_sm < 4) return 4;
  return tiles_xy < resident_blocks(per_sm) ? 4 : 2;
}

// The default band rows on a GPU: bands of 32 rows where DRAM is slower than 4 TB/s, the 3D grid
// elsewhere. Why: where DRAM bounds the march, bands' L2 reuse pays; on the H200 its L2 does (the
// fabric between the L2's two partitions), bands' fewer DRAM bytes do not show, and the 1D grid
// costs a little (docs/performance.md, Decisions: march bands).
inline int query_device_rows(int device) {
  int khz = 0, bits = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess)
    return 0;
  const double bytes_per_s = 2.0 * 1e3 * khz * bits / 8;  // double data rate
  return bytes_per_s > 0 && bytes_per_s < 4e12 ? 32 : 0;
}
// Queried once a GPU: the memory clock query is slow under CUDA 13, far too slow for every launch
// (docs/performance.md, Decisions: memory clock query).
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

// Kernel<TY, B, Save, Form, X>::fn over box b in geometry g (Form: MaterialForm), B <= MaxBlocks.
template <template <int, int, bool, int, bool> class Kernel, int MaxBlocks, class... Args>
void launch(const char* name, const MarchGeometry& g, const PmlBox& b, bool save, int form, bool x,
            cudaStream_t stream, Args... args) {
  const int nx = b.hi[0] - b.lo[0], ny = b.hi[1] - b.lo[1], nz = b.hi[2] - b.lo[2];
  auto go = [&](auto ty, auto blocks) {
    constexpr int TY = decltype(ty)::value, B = std::min(int(decltype(blocks)::value), MaxBlocks);
    // Saving the edges costs registers: at 64 (B = 4) the saving kernels spilled; at 80 none (docs/
    // performance.md, Decisions: march geometry).
    constexpr int SB = B > 3 ? 3 : B;
    // The same for the x-face (XHalo) kernels: at 4 those spilled 16-36 bytes, at 3 none.
    constexpr int C = kCellForm, P = kPlaneForm, N = kNodeForm, A = kParityForm;
    using K = Kernel<TY, B, false, C, false>;
    const typename K::Fn kernels[2][2][kMaterialForms] = {
        {{K::fn, Kernel<TY, B, false, P, false>::fn, Kernel<TY, B, false, N, false>::fn,
          Kernel<TY, B, false, A, false>::fn},
         {Kernel<TY, SB, true, C, false>::fn, Kernel<TY, SB, true, P, false>::fn, Kernel<TY, SB, true, N, false>::fn,
          Kernel<TY, SB, true, A, false>::fn}},
        {{Kernel<TY, SB, false, C, true>::fn, Kernel<TY, SB, false, P, true>::fn, Kernel<TY, SB, false, N, true>::fn,
          Kernel<TY, SB, false, A, true>::fn},
         {Kernel<TY, SB, true, C, true>::fn, Kernel<TY, SB, true, P, true>::fn, Kernel<TY, SB, true, N, true>::fn,
          Kernel<TY, SB, true, A, true>::fn}}};
    const auto k = kernels[x][save][form];
    const int per_sm = save || x ? SB : B;
    const size_t bytes = sizeof(float) * (K::tiles(form) * Tile<TY>::kSize + (x ? XPatch<TY>::kSlots : 0));
    const int tiles_x = (nx + kTx - 1) / kTx, tiles_y = (ny + TY - 1) / TY;
    const int kz = planes_per_block(g, per_sm, tiles_x * tiles_y), tiles_z = (nz + kz - 1) / kz;
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
template <int TY, int B, bool S, int Form, bool X>
struct Velocity {
  static constexpr auto fn = velocity_march<TY, B, S, Form, X>;
  using Fn = decltype(fn);
  static int tiles(int form) { return velocity_tiles(form); }
};
// N: the memory sets of an attenuating medium (stress_column), read in the form stress_form gives;
// Ondes3d: Ondes3D's Day and Bradley (N = 1).
template <int N, bool Ondes3d = false>
struct Stress {
  template <int TY, int B, bool S, int Form, bool X>
  struct Kernel {
    static constexpr auto fn = stress_march<TY, B, S, stress_form(Form, N), X, N, Ondes3d>;
    using Fn = decltype(fn);
    static int tiles(int form) { return stress_tiles(form); }
  };
  // The memory sets, all loaded before any is stored, need registers: fewer thread blocks an SM
  // than the elastic march's four (docs/performance.md, Decisions: anelastic thread blocks).
  static constexpr int kMaxBlocks = N == 0 ? 4 : N <= 4 ? 2 : 1;
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

// What a march runs over: box b (the block's cells outside the PML: interior()), the field it
// updates, the one it differentiates, the material (in form `form`: MaterialForm), its halos.
struct MarchLaunch {
  PmlBox b;
  float* out;
  const float *in, *mat;
  int form;
  MarchHalos halos;
};
// Kernel's march in geometry g, at most MaxBlocks thread blocks an SM; extra: the kernel's
// arguments after the x halo.
template <template <int, int, bool, int, bool> class Kernel, int MaxBlocks = 4, class... Extra>
void march_block(const char* name, const MarchGeometry& g, const StepParams& p, const MarchLaunch& m,
                 cudaStream_t stream, Extra... extra) {
  if (!empty(m.b))
    launch<Kernel, MaxBlocks>(name, g, m.b, any(m.halos.edges), m.form, m.halos.x.any(), stream, p, m.b, m.out, m.in,
                              m.mat, m.halos, extra...);
}

}  // namespace ondes::cuda::march
#endif
