// Probe of the fused velocity-stress step (issue 15, README "what it would take"): one z-march that
// updates the velocity of plane m and the stress of plane m - 2 of an x-y tile, against the two
// march kernels of codelets/march.hpp, on the same interior box of the same arrays, in one run.
//   fused_step_probe [NX NY NZ] [STEPS] [KZ]     (ONDES_PROBE=march: march.hpp's kernels timed alone)
// Why a probe before the product: the fused step needs its fields out of place (a thread block
// reads the old values of its neighbours' cells while they write theirs), so in the product it
// changes the step task's data (a second copy of the fields, two steps a task); this measures what
// the kernel gains before that is built.
// What it covers: the interior box of a block (10 cells in from every face, no free surface),
// material uniform by plane (the fused step: PlaneAt; march.hpp: the planes' factors), no PML,
// sources or damping. Out of place: fields in -> out.
// Results: bench/results/gpu_h200_fused_step_probe.txt.
// The per-cell arithmetic is stencil.hpp's (velocity_diffs, velocity_increments, stress_diffs,
// elastic_moduli, hooke) through accessors over shared memory and registers, so the fused step is
// checked bit for bit against one-thread-per-cell kernels (ArrayAt) over the same cells, and the
// velocity against march.hpp's kernels.
//
// The scheme: a thread per cell of an OX x OY output tile. The velocity is computed on the tile and
// a 2-cell ring (the stress stencil reads it there: x-y neighbours from shared memory), from the
// stress tiles of the plane with a 4-cell ring; the ring's 208 cells go to the first 208 threads as
// a second velocity cell. z neighbours slide through register windows, as in march.hpp. A thread
// block walks KZ stress planes and KZ + 4 velocity planes (2 below, 2 above: the stress reads them).
#define ONDES_DEFINE_CUDA_KERNELS
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "probe_state.hpp"
#include "codelets/march.hpp"

using namespace ondes;

namespace probe {

// The tile: OX x OY output cells; the velocity computed on it and a 2-cell ring (VW x VH), the
// stress staged with a 4-cell ring (SW x SH).
template <int OX_, int OY_>
struct Geo {
  static constexpr int OX = OX_, OY = OY_;
  static constexpr int VR = 2, SR = 4;
  static constexpr int VW = OX + 2 * VR, VH = OY + 2 * VR;
  static constexpr int SW = OX + 2 * SR, SH = OY + 2 * SR;
  static constexpr int kThreads = OX * OY, kS = SW * SH, kV = VW * VH, kRing = kV - kThreads;
  static constexpr int kPasses = (kS + kThreads - 1) / kThreads;
  static constexpr int kSTiles = 5;  // sxx, sxy, sxz, syy, syz (szz: z only)
  static constexpr int kSmemFloats = kSTiles * kS + 3 * kVelocityComponents * kV;  // velocity: 3 planes
  static_assert(kRing <= kThreads, "a ring cell a thread at most");
};

using ondes::cuda::march::march_tiles;  // the dynamic shared memory

using ondes::cuda::march::in_plane;
using ondes::cuda::march::plane_base;
using ondes::cuda::march::slide;

// The stress components as the velocity stencil of a cell reads them: x/y offsets from the tiles,
// z from its windows (sxz, syz at m-2..m+1, szz at m-1..m+2): march.hpp's accessor over this tile.
template <class G>
using VelAt = ondes::cuda::march::VelocityAtTiles<G::kS, G::SW>;

// The new velocity as the stress stencil of plane p reads it: x/y offsets from the velocity tiles
// of plane p (centre: the cell's element in the slot of p's vx tile), z from the windows (vx, vy at
// p-1..p+2; vz at p-2..p+2, the last unused): march.hpp's accessor over these tiles.
template <class G>
using StrAt = ondes::cuda::march::StressAtTiles<G::kV, G::VW, 5>;

// A velocity cell of the thread: its place in the velocity region (rx, ry), in-plane offset q
// (clamped to the array), its stress-tile centre and velocity-tile centre.
template <class G>
struct VCell {
  int q, s_centre, v_centre;
  VelAt<G> at;
  float old[3];
  __device__ void init(const BlockShape& sh, const PmlBox& b, int i0, int j0, int rx, int ry) {
    const int i = min(i0 - G::VR + rx, b.hi[0] + G::VR - 1), j = min(j0 - G::VR + ry, b.hi[1] + G::VR - 1);
    q = in_plane(sh, i, j);
    s_centre = (ry + G::SR - G::VR) * G::SW + rx + G::SR - G::VR;
    v_centre = ry * G::VW + rx;
    at.centre = s_centre;
  }
};

// The thread's ring cell (t < kRing): rows 0-1 and VH-2..VH-1 whole, then columns 0-1 and VW-2..VW-1.
template <class G>
__device__ inline void ring_place(int t, int& rx, int& ry) {
  constexpr int VW = G::VW, VH = G::VH, VR = G::VR;
  if (t < 2 * VW) {
    ry = t / VW, rx = t % VW;
  } else if (t < 4 * VW) {
    const int u = t - 2 * VW;
    ry = VH - 2 + u / VW, rx = u % VW;
  } else {
    const int u = t - 4 * VW, c = u % 4;
    ry = VR + u / 4, rx = c < 2 ? c : VW - 4 + c;
  }
}

template <int OXT, int OY, int MinBlocks>
__global__ void __launch_bounds__(Geo<OXT, OY>::kThreads, MinBlocks)
    fused_step(StepParams p, PmlBox b, int kz, const float* __restrict__ v_in, const float* __restrict__ s_in,
               float* __restrict__ v_out, float* __restrict__ s_out, const float* __restrict__ mat) {
  using G = Geo<OXT, OY>;
  constexpr int OX = G::OX, SR = G::SR, VR = G::VR, SW = G::SW, kS = G::kS, kV = G::kV, kThreads = G::kThreads;
  constexpr int kPasses = G::kPasses, kSTiles = G::kSTiles, kRing = G::kRing;
  auto s_tile = [](int f, int e) -> float& { return march_tiles[f * kS + e]; };
  auto v_tile = [](int slot, int c, int e) -> float& { return march_tiles[kSTiles * kS + (slot * 3 + c) * kV + e]; };
  const BlockShape sh = p.shape;
  const int64_t n = sh.cells(), sz = sh.sz();
  const int tx = threadIdx.x % OX, ty = threadIdx.x / OX, t = threadIdx.x;
  const int i0 = b.lo[0] + blockIdx.x * OX, j0 = b.lo[1] + blockIdx.y * OY;
  const int k0 = b.lo[2] + blockIdx.z * kz, k1 = min(b.hi[2], k0 + kz);
  const bool active = i0 + tx < b.hi[0] && j0 + ty < b.hi[1];
  const bool ring = t < kRing;

  // Staging: the stress tiles' elements of this thread, clamped to the box and its 4-cell ring.
  int off[kPasses];
#pragma unroll
  for (int ps = 0; ps < kPasses; ++ps) {
    const int e = min(t + ps * kThreads, kS - 1), li = e % SW, lj = e / SW;
    off[ps] = in_plane(sh, min(i0 - SR + li, b.hi[0] + SR - 1), min(j0 - SR + lj, b.hi[1] + SR - 1));
  }
  const float* const src[kSTiles] = {s_in + SXX * n, s_in + SXY * n, s_in + SXZ * n, s_in + SYY * n, s_in + SYZ * n};
  auto stages = [&](int ps) { return ps == 0 || t + ps * kThreads < kS; };
  float r[kSTiles][kPasses];
  auto stage = [&](int k) {
    const int64_t base = plane_base(sh, k);
#pragma unroll
    for (int f = 0; f < kSTiles; ++f)
#pragma unroll
      for (int ps = 0; ps < kPasses; ++ps)
        if (stages(ps)) r[f][ps] = src[f][base + off[ps]];
  };
  const float *sxz = s_in + SXZ * n, *syz = s_in + SYZ * n, *szz = s_in + SZZ * n;

  VCell<G> c0, c1;
  c0.init(sh, b, i0, j0, tx + VR, ty + VR);
  {
    int rx = 0, ry = 0;
    if (ring) ring_place<G>(t, rx, ry);
    c1.init(sh, b, i0, j0, rx, ry);
  }
  const int m0 = k0 - 2;
  auto window_init = [&](VCell<G>& c) {
    const int64_t q = plane_base(sh, m0) + c.q;
#pragma unroll
    for (int d = 0; d < 4; ++d) {
      c.at.wxz[d] = sxz[q + (d - 2) * sz];
      c.at.wyz[d] = syz[q + (d - 2) * sz];
      c.at.wzz[d] = szz[q + (d - 1) * sz];
    }
#pragma unroll
    for (int w = 0; w < 3; ++w) c.old[w] = v_in[w * n + q];
  };
  window_init(c0);
  if (ring) window_init(c1);
  float szz_m2 = szz[plane_base(sh, m0) + c0.q - 2 * sz];  // szz of the stress plane (m - 2)
  float d_sxx[2] = {0, 0}, d_syy[2] = {0, 0}, d_sxy[2] = {0, 0};  // planes m-2, m-1 of the cell
  StrAt<G> sa;
  sa.centre = 0;
#pragma unroll
  for (int d = 0; d < 4; ++d) sa.wx[d] = sa.wy[d] = 0.0f;
#pragma unroll
  for (int d = 0; d < 5; ++d) sa.wz[d] = 0.0f;

  stage(m0);
#pragma unroll 1
  for (int m = m0; m <= k1 + 1; ++m) {
    __syncthreads();  // the previous plane's stress tiles are read
#pragma unroll
    for (int f = 0; f < kSTiles; ++f)
#pragma unroll
      for (int ps = 0; ps < kPasses; ++ps)
        if (stages(ps)) s_tile(f, t + ps * kThreads) = r[f][ps];
    __syncthreads();
    // The next plane's loads, in flight while this one is computed.
    float next_old0[3], next_old1[3], n0[3] = {0, 0, 0}, n1[3] = {0, 0, 0};
    const bool more = m + 1 <= k1 + 1;
    const int64_t base = plane_base(sh, m), nb = base + sz;
    if (more) {
      stage(m + 1);
#pragma unroll
      for (int w = 0; w < 3; ++w) next_old0[w] = v_in[w * n + nb + c0.q];
      n0[0] = sxz[nb + c0.q + sz], n0[1] = syz[nb + c0.q + sz], n0[2] = szz[nb + c0.q + 2 * sz];
      if (ring) {
#pragma unroll
        for (int w = 0; w < 3; ++w) next_old1[w] = v_in[w * n + nb + c1.q];
        n1[0] = sxz[nb + c1.q + sz], n1[1] = syz[nb + c1.q + sz], n1[2] = szz[nb + c1.q + 2 * sz];
      }
    }
    const PlaneAt mv = plane_at(mat, sh, m);
    const int slot = (m - m0) % 3;
    // Velocity of plane m: the tile cell, then the ring cell.
    float v0[3];
    {
      float dv[3];
      velocity_increments(mv, velocity_diffs(c0.at), p.dt_h, dv);
#pragma unroll
      for (int w = 0; w < 3; ++w) v0[w] = c0.old[w] + dv[w], v_tile(slot, w, c0.v_centre) = v0[w];
      if (active && m >= k0 && m < k1)
#pragma unroll
        for (int w = 0; w < 3; ++w) v_out[w * n + base + c0.q] = v0[w];
    }
    if (ring) {
      float dv[3];
      velocity_increments(mv, velocity_diffs(c1.at), p.dt_h, dv);
#pragma unroll
      for (int w = 0; w < 3; ++w) v_tile(slot, w, c1.v_centre) = c1.old[w] + dv[w];
    }
    // The stress windows take plane m's velocity (vx, vy: p-1..p+2 = m-3..m; vz: m-4..m).
    slide(sa.wx, v0[VX]), slide(sa.wy, v0[VY]), slide(sa.wz, v0[VZ]);
    const int pz = m - 2;
    if (pz >= k0) {  // and pz < k1 (m <= k1 + 1); plane pz's velocity tiles were written two syncs ago
      sa.centre = kSTiles * kS + ((pz - m0) % 3) * 3 * kV + c0.v_centre;
      const Diffs d = stress_diffs(sa, kInterior);
      const Moduli u = elastic_moduli(plane_at(mat, sh, pz));
      float now[kStressComponents];
      now[SXX] = d_sxx[0], now[SYY] = d_syy[0], now[SZZ] = szz_m2;
      now[SXY] = d_sxy[0], now[SXZ] = c0.at.wxz[0], now[SYZ] = c0.at.wyz[0];
      hooke(u, d, p.dt_h, kInterior, [&](int w, float x) { now[w] += x; });
      if (active)
#pragma unroll
        for (int w = 0; w < kStressComponents; ++w) s_out[w * n + plane_base(sh, pz) + c0.q] = now[w];
    }
    // Slide: the cell's stress of plane m into the delay lines, the windows one plane up.
    d_sxx[0] = d_sxx[1], d_sxx[1] = march_tiles[0 * kS + c0.s_centre];
    d_sxy[0] = d_sxy[1], d_sxy[1] = march_tiles[1 * kS + c0.s_centre];
    d_syy[0] = d_syy[1], d_syy[1] = march_tiles[3 * kS + c0.s_centre];
    szz_m2 = c0.at.wzz[0];
    slide(c0.at.wxz, n0[0]), slide(c0.at.wyz, n0[1]), slide(c0.at.wzz, n0[2]);
    if (ring) slide(c1.at.wxz, n1[0]), slide(c1.at.wyz, n1[1]), slide(c1.at.wzz, n1[2]);
#pragma unroll
    for (int w = 0; w < 3; ++w) {
      c0.old[w] = next_old0[w];
      if (ring) c1.old[w] = next_old1[w];
    }
  }
}

// One thread per cell, the arrays read directly: the reference the fused step must equal.
__global__ void ref_velocity(StepParams p, PmlBox b, const float* v_in, const float* s_in, float* v_out, const float* mat) {
  const BlockShape sh = p.shape;
  const int i = b.lo[0] + blockIdx.x * blockDim.x + threadIdx.x, j = b.lo[1] + blockIdx.y, k = b.lo[2] + blockIdx.z;
  if (i >= b.hi[0]) return;
  const int64_t n = sh.cells(), q = sh.idx(i, j, k);
  float dv[3];
  velocity_increments(plane_at(mat, sh, k), velocity_diffs(array_at(s_in, sh, q)), p.dt_h, dv);
  for (int w = 0; w < 3; ++w) v_out[w * n + q] = v_in[w * n + q] + dv[w];
}
__global__ void ref_stress(StepParams p, PmlBox b, const float* s_in, const float* v_new, float* s_out, const float* mat) {
  const BlockShape sh = p.shape;
  const int i = b.lo[0] + blockIdx.x * blockDim.x + threadIdx.x, j = b.lo[1] + blockIdx.y, k = b.lo[2] + blockIdx.z;
  if (i >= b.hi[0]) return;
  const int64_t n = sh.cells(), q = sh.idx(i, j, k);
  float now[kStressComponents];
  for (int w = 0; w < kStressComponents; ++w) now[w] = s_in[w * n + q];
  hooke(elastic_moduli(plane_at(mat, sh, k)), stress_diffs(array_at(v_new, sh, q), kInterior), p.dt_h, kInterior,
        [&](int w, float x) { now[w] += x; });
  for (int w = 0; w < kStressComponents; ++w) s_out[w * n + q] = now[w];
}

}  // namespace probe

namespace {

using probe::check;

PmlBox grow(PmlBox b, int r) {
  for (int a = 0; a < 3; ++a) b.lo[a] -= r, b.hi[a] += r;
  return b;
}
dim3 ref_grid(const PmlBox& b) {
  return dim3((b.hi[0] - b.lo[0] + 127) / 128, b.hi[1] - b.lo[1], b.hi[2] - b.lo[2]);
}

// The cells of box b (x-y shrunk by `inset`) where two fields differ, over comps components.
int64_t differ(const std::vector<float>& a, const std::vector<float>& c, const BlockShape& sh, const PmlBox& b,
               int comps, int inset) {
  int64_t bad = 0;
  for (int w = 0; w < comps; ++w)
    for (int k = b.lo[2] + inset; k < b.hi[2] - inset; ++k)
      for (int j = b.lo[1] + inset; j < b.hi[1] - inset; ++j)
        for (int i = b.lo[0] + inset; i < b.hi[0] - inset; ++i) {
          const int64_t q = w * sh.cells() + sh.idx(i, j, k);
          bad += std::memcmp(&a[q], &c[q], sizeof(float)) != 0;
        }
  return bad;
}

std::vector<float> host(const float* d, int64_t count) {
  std::vector<float> h(count);
  check(cudaMemcpy(h.data(), d, count * sizeof(float), cudaMemcpyDeviceToHost), "copy back");
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  BlockShape sh{512, 512, 256};
  int steps = 100;
  if (argc >= 4) sh = BlockShape{std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])};
  if (argc >= 5) steps = std::atoi(argv[4]);
  const int64_t n = sh.cells();
  PmlBox b;
  b.lo[0] = b.lo[1] = b.lo[2] = 10;
  b.hi[0] = sh.nx - 10, b.hi[1] = sh.ny - 10, b.hi[2] = sh.nz - 10;
  const double cells = double(b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]) * (b.hi[2] - b.lo[2]);

  // Fields: small pseudo-random values; material: a layered medium (uniform by plane).
  probe::Random rnd;
  const probe::HostBlock h = probe::host_block(sh, rnd);
  const std::vector<float>&hv = h.v, &hs = h.s, &hm = h.mat;
  float *v[2], *s[2], *mat;
  for (int a = 0; a < 2; ++a) {
    check(cudaMalloc(&v[a], 3 * n * sizeof(float)), "malloc");
    check(cudaMalloc(&s[a], 6 * n * sizeof(float)), "malloc");
  }
  check(cudaMalloc(&mat, hm.size() * sizeof(float)), "malloc");
  auto reset = [&] {
    for (int a = 0; a < 2; ++a) {
      check(cudaMemcpy(v[a], hv.data(), 3 * n * sizeof(float), cudaMemcpyHostToDevice), "upload");
      check(cudaMemcpy(s[a], hs.data(), 6 * n * sizeof(float), cudaMemcpyHostToDevice), "upload");
    }
  };
  check(cudaMemcpy(mat, hm.data(), hm.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
  StepParams p = probe::step_params(sh, b);

  const int kz = argc >= 6 ? std::atoi(argv[5]) : 32;
  // The variants: tile rows, thread blocks per SM (the register bound).
  using Kernel = void (*)(StepParams, PmlBox, int, const float*, const float*, float*, float*, const float*);
  struct Variant {
    const char* name;
    Kernel fn;
    int ox, oy, threads;
    size_t smem;
  };
  const std::vector<Variant> variants = {
      {"32x16 tile, 1 block/SM", probe::fused_step<32, 16, 1>, 32, 16, probe::Geo<32, 16>::kThreads,
       probe::Geo<32, 16>::kSmemFloats * sizeof(float)},
      {"32x8 tile, 2 blocks/SM", probe::fused_step<32, 8, 2>, 32, 8, probe::Geo<32, 8>::kThreads,
       probe::Geo<32, 8>::kSmemFloats * sizeof(float)},
      {"64x8 tile, 1 block/SM", probe::fused_step<64, 8, 1>, 64, 8, probe::Geo<64, 8>::kThreads,
       probe::Geo<64, 8>::kSmemFloats * sizeof(float)},
  };
  for (const Variant& f : variants)
    check(cudaFuncSetAttribute(f.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(f.smem)), "smem attribute");
  auto fused = [&](const Variant& f, int z, int a) {  // fields a -> 1 - a
    const dim3 g((b.hi[0] - b.lo[0] + f.ox - 1) / f.ox, (b.hi[1] - b.lo[1] + f.oy - 1) / f.oy, (b.hi[2] - b.lo[2] + z - 1) / z);
    f.fn<<<g, f.threads, f.smem>>>(p, b, z, v[a], s[a], v[1 - a], s[1 - a], mat);
    check(cudaGetLastError(), "fused launch");
  };
  auto reference = [&](int a) {
    const PmlBox vb = grow(b, 2);
    probe::ref_velocity<<<ref_grid(vb), 128>>>(p, vb, v[a], s[a], v[1 - a], mat);
    probe::ref_stress<<<ref_grid(b), 128>>>(p, b, s[a], v[1 - a], s[1 - a], mat);
    check(cudaGetLastError(), "reference launch");
  };
  auto marches = [&] {  // march.hpp's kernels, in place on fields 0
    ondes::cuda::march::march_block<ondes::cuda::march::Velocity>("velocity_march", p, b, v[0], s[0], mat, BoundaryBuffers{}, XHalo{}, nullptr);
    ondes::cuda::march::march_block<ondes::cuda::march::Stress>("stress_march", p, b, s[0], v[0], mat, BoundaryBuffers{}, XHalo{}, nullptr);
  };

  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  std::printf("device %s; block %dx%dx%d, box %d..%d x %d..%d x %d..%d (%.2f M cells), %d steps, KZ %d\n", prop.name,
              sh.nx, sh.ny, sh.nz, b.lo[0], b.hi[0], b.lo[1], b.hi[1], b.lo[2], b.hi[2], cells / 1e6, steps, kz);

  // ONDES_PROBE=march: march.hpp's kernels timed alone (an A/B of two builds of march.hpp).
  const bool march_only = std::getenv("ONDES_PROBE") && std::string_view(std::getenv("ONDES_PROBE")) == "march";
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  auto time = [&](const char* what, auto&& step) {
    reset();
    for (int it = 0; it < 5; ++it) step(it);
    cudaEventRecord(e0);
    for (int it = 0; it < steps; ++it) step(it);
    cudaEventRecord(e1);
    check(cudaEventSynchronize(e1), what);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    std::printf("%-52s %.3f ms a step, %.2f G cell-updates/s\n", what, ms / steps, cells * steps / (ms * 1e-3) / 1e9);
  };
  if (march_only) {
    time("march.hpp (two kernels, in place)", [&](int) { marches(); });
    return 0;
  }

  // Correctness: two steps of each from the same fields. After the first, every value of the box;
  // after the second, the stress 2 cells in from the box (nearer, it reads the velocity of the ring,
  // which the reference updated in its first step and the fused step leaves to the PML kernels).
  int failures = 0;
  reset();
  reference(0);
  const auto rv1 = host(v[1], 3 * n), rs1 = host(s[1], 6 * n);
  reference(1);
  const auto rv2 = host(v[0], 3 * n), rs2 = host(s[0], 6 * n);
  for (const Variant& f : variants) {
    reset();
    fused(f, kz, 0);
    check(cudaDeviceSynchronize(), "fused run");
    const int64_t dv1 = differ(rv1, host(v[1], 3 * n), sh, b, 3, 0), ds1 = differ(rs1, host(s[1], 6 * n), sh, b, 6, 0);
    fused(f, kz, 1);
    check(cudaDeviceSynchronize(), "fused run");
    const int64_t dv2 = differ(rv2, host(v[0], 3 * n), sh, b, 3, 0), ds2 = differ(rs2, host(s[0], 6 * n), sh, b, 6, 2);
    std::printf("fused %s vs one thread a cell: step 1 %lld velocity and %lld stress values differ, step 2 %lld and %lld "
                "(of %.0f each)\n",
                f.name, (long long)dv1, (long long)ds1, (long long)dv2, (long long)ds2, cells);
    failures += dv1 != 0 || ds1 != 0 || dv2 != 0 || ds2 != 0;
  }
  {  // march.hpp's velocity equals the reference's on the box; its stress too, 2 cells in from the
     // box (nearer, it reads the velocity of the ring, which the march leaves to the PML kernels)
    reset();
    reference(0);
    const auto rv = host(v[1], 3 * n), rs = host(s[1], 6 * n);
    reset();
    marches();
    check(cudaDeviceSynchronize(), "march run");
    const int64_t dv = differ(rv, host(v[0], 3 * n), sh, b, 3, 0), ds = differ(rs, host(s[0], 6 * n), sh, b, 6, 2);
    std::printf("march.hpp vs one thread a cell, 1 step: %lld velocity, %lld stress values differ\n", (long long)dv,
                (long long)ds);
    failures += dv != 0 || ds != 0;
  }

  // Speed.
  time("march.hpp (two kernels, in place)", [&](int) { marches(); });
  time("one thread a cell (two kernels)", [&](int it) { reference(it % 2); });
  for (int z : {kz, 16, 64})
    for (const Variant& f : variants) {
      char name[96];
      std::snprintf(name, sizeof name, "fused, %s, KZ %d", f.name, z);
      time(name, [&](int it) { fused(f, z, it % 2); });
    }
  for (const Variant& f : variants) {
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, f.fn);
    std::printf("fused %s: %d registers, %zu bytes local (spills), %zu bytes shared\n", f.name, fa.numRegs,
                fa.localSizeBytes, f.smem);
  }
  std::printf("%s\n", failures ? "FAILED" : "all equal");
  return failures ? 1 : 0;
}
