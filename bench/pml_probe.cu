// Probe of the PML kernels (issue 15: on the H200 they run at 2.7-3.0 TB/s against the marches'
// 3.3-3.4, 19% of a step for 11% of the cells): where their time goes by region of the PML, and a
// form in which a thread walks KZ planes of its PML column with the z neighbours in register
// windows (march.hpp's windows, without its tiles), against compute.hpp's one thread per cell.
//   pml_probe [NX NY NZ] [STEPS]
// What it covers: one block with benchmark.toml's PML (10 cells on the x and y faces and at the
// bottom, a free surface on top), material uniform by plane (the planes' factors), no edges saved.
// Both forms call stencil.hpp's velocity_pml_update / stress_pml_update through accessors that
// return the same values, so their results are compared bit for bit.
#define ONDES_DEFINE_CUDA_KERNELS
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_state.hpp"
#include "codelets/compute.hpp"

using namespace ondes;

namespace probe {
using ondes::cuda::PmlCell;
using ondes::cuda::PmlDivisors;
using ondes::cuda::PmlSizes;
using ondes::cuda::blocks_for;

// The regions of the PML list timed one by one: every cell, the planes outside the box's z span,
// the whole rows of the crossing planes (y faces), the cells left and right of the box (x faces).
enum Region { kAll, kSlab, kYRows, kXCells };
__device__ inline bool in_region(const PmlBox& b, int region, int i, int j, int k) {
  const bool slab = k < b.lo[2] || k >= b.hi[2], yrow = !slab && (j < b.lo[1] || j >= b.hi[1]);
  return region == kAll || (region == kSlab && slab) || (region == kYRows && yrow) ||
         (region == kXCells && !slab && !yrow);
}

// compute.hpp's kernels (uniform material, no edges, no damping layers), restricted to a region.
__global__ void __launch_bounds__(256, 4) velocity_cells(StepParams p, float* __restrict__ v, const float* __restrict__ s,
                                                         const float* __restrict__ mat, char* pml, int64_t count,
                                                         PmlDivisors fd, int region) {
  if (ondes::cuda::thread_index() >= count) return;
  const PmlCell c = ondes::cuda::pml_cell(p, fd, ondes::cuda::thread_index());
  if (!in_region(p.pml, region, c.i, c.j, c.k)) return;
  const PmlView pv = pml_view(p.shape, pml, count);
  const auto m = plane_factors(mat, p.shape).buoyancies(c.k);
  const Diffs d = velocity_diffs(array_at(s, p.shape, c.q));
  velocity_pml_update(p, v, m, pv, c.t, c.q, c.i, c.j, c.k, c.damped, d);
}
__global__ void __launch_bounds__(256, 4) stress_cells(StepParams p, float* __restrict__ s, const float* __restrict__ v,
                                                       const float* __restrict__ mat, char* pml, int64_t count,
                                                       PmlDivisors fd, int region) {
  if (ondes::cuda::thread_index() >= count) return;
  const PmlCell c = ondes::cuda::pml_cell(p, fd, ondes::cuda::thread_index());
  if (!in_region(p.pml, region, c.i, c.j, c.k)) return;
  const PmlView pv = pml_view(p.shape, pml, count);
  const int plane = z_plane(c.k, p.free_surface);
  const auto m = plane_factors(mat, p.shape).moduli(c.k);
  const Diffs d = stress_diffs(array_at(v, p.shape, c.q), plane);
  stress_pml_update(p, s, m, pv, c.t, c.q, c.i, c.j, c.k, plane, c.damped, d);
}

// The stresses as the velocity stencil reads them: x / y offsets from the arrays, the z ones
// (sxz, syz at k-2..k+1, szz at k-1..k+2) from the thread's windows.
struct VelocityWalkAt {
  const float* f;
  int64_t n, q, sy;
  float wxz[4], wyz[4], wzz[4];
  template <int C, int DX, int DY, int DZ>
  __device__ float at() const {
    if constexpr (DX == 0 && DY == 0 && (C == SXZ || C == SYZ || C == SZZ)) {
      if constexpr (C == SXZ) return wxz[DZ + 2];
      else if constexpr (C == SYZ) return wyz[DZ + 2];
      else return wzz[DZ + 1];
    } else {
      static_assert(DZ == 0, "no diagonal offsets");
      return f[C * n + q + DX + DY * sy];
    }
  }
};
// The velocities as the stress stencil reads them: vx, vy at k-1..k+2, vz at k-2..k+1 from windows.
struct StressWalkAt {
  const float* f;
  int64_t n, q, sy;
  float wx[4], wy[4], wz[4];
  template <int C, int DX, int DY, int DZ>
  __device__ float at() const {
    if constexpr (DX == 0 && DY == 0) {
      if constexpr (C == VX) return wx[DZ + 1];
      else if constexpr (C == VY) return wy[DZ + 1];
      else return wz[DZ + 2];
    } else {
      static_assert(DZ == 0, "no diagonal offsets");
      return f[C * n + q + DX + DY * sy];
    }
  }
};

// A z range of the PML list in which every plane has the same PML cells: `per_plane` of them,
// planes [k0, k1), the first plane's first cell at list place t0.
struct Span {
  int k0, k1;
  int64_t per_plane, t0;
};
// The three spans of a block: below the box's z span, crossing it, above it.
inline void spans(const BlockShape& sh, const PmlBox& b, Span (&out)[3]) {
  const PmlSizes z = PmlSizes::of(sh, b);
  const int64_t full = z.d[PmlSizes::kFull], plane = z.d[PmlSizes::kPlane];
  out[0] = {0, b.lo[2], full, 0};
  out[1] = {b.lo[2], b.hi[2], plane, int64_t(b.lo[2]) * full};
  out[2] = {b.hi[2], sh.nz, full, out[1].t0 + int64_t(b.hi[2] - b.lo[2]) * plane};
}

// A thread per PML column of a span and KZ planes of it (blockIdx.y: the run of planes).
template <int KZ, int B = 3>
__global__ void __launch_bounds__(256, B) velocity_walk(StepParams p, float* __restrict__ v, const float* __restrict__ s,
                                                        const float* __restrict__ mat, char* pml, int64_t count,
                                                        PmlDivisors fd, Span sp) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= sp.per_plane) return;
  const int k0 = sp.k0 + blockIdx.y * KZ, k1 = min(sp.k1, k0 + KZ);
  const PmlCell c = ondes::cuda::pml_cell(p, fd, sp.t0 + (k0 - sp.k0) * sp.per_plane + r);
  const PmlView pv = pml_view(p.shape, pml, count);
  const BlockShape sh = p.shape;
  const int64_t n = sh.cells(), sz = sh.sz();
  const float *sxz = s + SXZ * n, *syz = s + SYZ * n, *szz = s + SZZ * n;
  VelocityWalkAt at{s, n, c.q, sh.sy(), {}, {}, {}};
#pragma unroll
  for (int d = 0; d < 4; ++d) {
    at.wxz[d] = sxz[c.q + (d - 2) * sz];
    at.wyz[d] = syz[c.q + (d - 2) * sz];
    at.wzz[d] = szz[c.q + (d - 1) * sz];
  }
  int64_t t = c.t;
#pragma unroll 1
  for (int k = k0; k < k1; ++k, t += sp.per_plane) {
    float nxz = 0.0f, nyz = 0.0f, nzz = 0.0f;
    if (k + 1 < k1) nxz = sxz[at.q + 2 * sz], nyz = syz[at.q + 2 * sz], nzz = szz[at.q + 3 * sz];
    const Diffs d = velocity_diffs(at);
    velocity_pml_update(p, v, plane_factors(mat, sh).buoyancies(k), pv, t, at.q, c.i, c.j, k,
                        DampedMask{damped_axes(p.pml, c.i, c.j, k)}, d);
    ondes::cuda::march::slide(at.wxz, nxz), ondes::cuda::march::slide(at.wyz, nyz), ondes::cuda::march::slide(at.wzz, nzz);
    at.q += sz;
  }
}
template <int KZ, int B = 3>
__global__ void __launch_bounds__(256, B) stress_walk(StepParams p, float* __restrict__ s, const float* __restrict__ v,
                                                      const float* __restrict__ mat, char* pml, int64_t count,
                                                      PmlDivisors fd, Span sp) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= sp.per_plane) return;
  const int k0 = sp.k0 + blockIdx.y * KZ, k1 = min(sp.k1, k0 + KZ);
  const PmlCell c = ondes::cuda::pml_cell(p, fd, sp.t0 + (k0 - sp.k0) * sp.per_plane + r);
  const PmlView pv = pml_view(p.shape, pml, count);
  const BlockShape sh = p.shape;
  const int64_t n = sh.cells(), sz = sh.sz();
  const float *vx = v + VX * n, *vy = v + VY * n, *vz = v + VZ * n;
  StressWalkAt at{v, n, c.q, sh.sy(), {}, {}, {}};
#pragma unroll
  for (int d = 0; d < 4; ++d) {
    at.wx[d] = vx[c.q + (d - 1) * sz];
    at.wy[d] = vy[c.q + (d - 1) * sz];
    at.wz[d] = vz[c.q + (d - 2) * sz];
  }
  int64_t t = c.t;
#pragma unroll 1
  for (int k = k0; k < k1; ++k, t += sp.per_plane) {
    float nx = 0.0f, ny = 0.0f, nz = 0.0f;
    if (k + 1 < k1) nx = vx[at.q + 3 * sz], ny = vy[at.q + 3 * sz], nz = vz[at.q + 2 * sz];
    const int plane = z_plane(k, p.free_surface);
    const Diffs d = stress_diffs(at, plane);
    stress_pml_update(p, s, plane_factors(mat, sh).moduli(k), pv, t, at.q, c.i, c.j, k, plane,
                      DampedMask{damped_axes(p.pml, c.i, c.j, k)}, d);
    ondes::cuda::march::slide(at.wx, nx), ondes::cuda::march::slide(at.wy, ny), ondes::cuda::march::slide(at.wz, nz);
    at.q += sz;
  }
}

template <class K>
void report(const char* name, K kernel) {
  cudaFuncAttributes fa;
  cudaFuncGetAttributes(&fa, kernel);
  std::printf("%-28s %d registers, %zu bytes local\n", name, fa.numRegs, fa.localSizeBytes);
}

}  // namespace probe

int main(int argc, char** argv) {
  using namespace probe;
  BlockShape sh{512, 512, 256};
  int steps = 100;
  if (argc >= 4) sh = BlockShape{std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])};
  if (argc >= 5) steps = std::atoi(argv[4]);
  const int64_t n = sh.cells();
  PmlBox b;  // benchmark.toml: 10-cell PML on the x and y faces and at the bottom, free surface on top (k = 0)
  b.lo[0] = b.lo[1] = 10, b.lo[2] = 0;
  b.hi[0] = sh.nx - 10, b.hi[1] = sh.ny - 10, b.hi[2] = sh.nz - 10;
  const int64_t count = int64_t(sh.nx) * sh.ny * sh.nz - int64_t(b.hi[0] - b.lo[0]) * (b.hi[1] - b.lo[1]) * (b.hi[2] - b.lo[2]);

  probe::Random rnd;
  const probe::HostBlock h = probe::host_block(sh, rnd);
  const std::vector<float>&hv = h.v, &hs = h.s, &hm = h.mat;
  // The PML buffer: profiles with a = 0 inside the box (as physics/pml.cpp makes them), memory
  // variables small random values.
  const PmlLayout lay = PmlLayout::of(sh, count);
  std::vector<char> hp(lay.bytes, 0);
  {
    float* prof = reinterpret_cast<float*>(hp.data() + lay.profiles_offset);
    const int na[3] = {sh.nx, sh.ny, sh.nz};
    for (int a = 0; a < 3; ++a) {
      float* t = prof + PmlLayout::axis_offset(sh, a);
      for (int half = 0; half < 2; ++half)
        for (int i = 0; i < na[a]; ++i) {
          const bool out = i < b.lo[a] || i >= b.hi[a];
          t[2 * half * na[a] + i] = out ? 0.05f + 0.01f * (i % 7) : 0.0f;        // a
          t[(2 * half + 1) * na[a] + i] = out ? 0.9f - 0.01f * (i % 5) : 1.0f;  // b
        }
    }
    float* psi = reinterpret_cast<float*>(hp.data() + lay.psi_offset);
    for (int64_t e = 0; e < PmlLayout::kPsi * count; ++e) psi[e] = 1e-3f * rnd();
  }
  float *v, *s, *mat;
  char* pml;
  check(cudaMalloc(&v, 3 * n * sizeof(float)), "malloc");
  check(cudaMalloc(&s, 6 * n * sizeof(float)), "malloc");
  check(cudaMalloc(&mat, hm.size() * sizeof(float)), "malloc");
  check(cudaMalloc(&pml, lay.bytes), "malloc");
  check(cudaMemcpy(mat, hm.data(), hm.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
  auto reset = [&] {
    check(cudaMemcpy(v, hv.data(), 3 * n * sizeof(float), cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(s, hs.data(), 6 * n * sizeof(float), cudaMemcpyHostToDevice), "upload");
    check(cudaMemcpy(pml, hp.data(), lay.bytes, cudaMemcpyHostToDevice), "upload");
  };
  StepParams p = probe::step_params(sh, b);
  p.free_surface = 1;
  const PmlDivisors fd = PmlDivisors::of(sh, b);
  Span sp[3];
  spans(sh, b, sp);

  auto cells = [&](int region) {  // one step of compute.hpp's two kernels over a region
    const unsigned g = unsigned(blocks_for(count, 256));
    velocity_cells<<<g, 256>>>(p, v, s, mat, pml, count, fd, region);
    stress_cells<<<g, 256>>>(p, s, v, mat, pml, count, fd, region);
  };
  auto cells_v = [&] { velocity_cells<<<unsigned(blocks_for(count, 256)), 256>>>(p, v, s, mat, pml, count, fd, kAll); };
  auto cells_s = [&] { stress_cells<<<unsigned(blocks_for(count, 256)), 256>>>(p, s, v, mat, pml, count, fd, kAll); };
  auto walk_v = [&](auto kz) {
    constexpr int KZ = decltype(kz)::value;
    for (const Span& q : sp)
      if (q.k1 > q.k0 && q.per_plane > 0)
        velocity_walk<KZ><<<dim3(unsigned(blocks_for(q.per_plane, 256)), unsigned((q.k1 - q.k0 + KZ - 1) / KZ)), 256>>>(
            p, v, s, mat, pml, count, fd, q);
  };
  auto walk_s = [&](auto kz) {
    constexpr int KZ = decltype(kz)::value;
    for (const Span& q : sp)
      if (q.k1 > q.k0 && q.per_plane > 0)
        stress_walk<KZ><<<dim3(unsigned(blocks_for(q.per_plane, 256)), unsigned((q.k1 - q.k0 + KZ - 1) / KZ)), 256>>>(
            p, s, v, mat, pml, count, fd, q);
  };

  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  std::printf("device %s; block %dx%dx%d, %.2f M PML cells, %d steps\n", prop.name, sh.nx, sh.ny, sh.nz, count / 1e6, steps);

  // Bit for bit: one velocity and one stress update of each form from the same state.
  int failures = 0;
  auto snapshot = [&] {
    std::vector<float> a(9 * n);
    check(cudaMemcpy(a.data(), v, 3 * n * sizeof(float), cudaMemcpyDeviceToHost), "copy back");
    check(cudaMemcpy(a.data() + 3 * n, s, 6 * n * sizeof(float), cudaMemcpyDeviceToHost), "copy back");
    std::vector<char> q(lay.bytes);
    check(cudaMemcpy(q.data(), pml, lay.bytes, cudaMemcpyDeviceToHost), "copy back");
    return std::make_pair(a, q);
  };
  reset();
  cells_v(), cells_s();
  const auto ref = snapshot();
  auto compare = [&](const char* name, auto&& run) {
    reset();
    run();
    const auto got = snapshot();
    const bool same = std::memcmp(ref.first.data(), got.first.data(), ref.first.size() * sizeof(float)) == 0 &&
                      std::memcmp(ref.second.data(), got.second.data(), ref.second.size()) == 0;
    std::printf("%-28s %s compute.hpp's kernels\n", name, same ? "bitwise equal to" : "DIFFERS from");
    failures += !same;
  };
  using K2 = std::integral_constant<int, 2>;
  using K4 = std::integral_constant<int, 4>;
  using K8 = std::integral_constant<int, 8>;
  compare("walk KZ 2", [&] { walk_v(K2{}), walk_s(K2{}); });
  compare("walk KZ 4", [&] { walk_v(K4{}), walk_s(K4{}); });
  compare("walk KZ 8", [&] { walk_v(K8{}), walk_s(K8{}); });

  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  auto time = [&](const char* what, auto&& step) {
    reset();
    for (int it = 0; it < 5; ++it) step();
    cudaEventRecord(e0);
    for (int it = 0; it < steps; ++it) step();
    cudaEventRecord(e1);
    check(cudaEventSynchronize(e1), what);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    std::printf("%-40s %7.1f us a step\n", what, 1e3 * ms / steps);
  };
  for (int rep = 0; rep < 2; ++rep) {
    time("cells: velocity", cells_v);
    time("cells: stress", cells_s);
    time("cells: both", [&] { cells(kAll); });
    time("cells: both, z slabs only", [&] { cells(kSlab); });
    time("cells: both, y rows only", [&] { cells(kYRows); });
    time("cells: both, x cells only", [&] { cells(kXCells); });
    time("walk KZ 2: velocity", [&] { walk_v(K2{}); });
    time("walk KZ 2: stress", [&] { walk_s(K2{}); });
    time("walk KZ 2: both", [&] { walk_v(K2{}), walk_s(K2{}); });
    time("walk KZ 4: velocity", [&] { walk_v(K4{}); });
    time("walk KZ 4: stress", [&] { walk_s(K4{}); });
    time("walk KZ 4: both", [&] { walk_v(K4{}), walk_s(K4{}); });
    time("walk KZ 8: both", [&] { walk_v(K8{}), walk_s(K8{}); });
  }
  report("cells velocity", velocity_cells);
  report("cells stress", stress_cells);
  report("walk velocity KZ 4", velocity_walk<4>);
  report("walk stress KZ 4", stress_walk<4>);
  std::printf("%s\n", failures ? "FAILED" : "all equal");
  return failures ? 1 : 0;
}
