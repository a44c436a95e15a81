// compute_velocity / compute_stress of one block: the interior sweep over the per-cell stencils of
// stencil.hpp, then the C-PML correction of the block's PML cells (pml may be null), and for the
// stress the free-surface images. CPU loops and CUDA kernels run the same per-cell code.
#pragma once
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
void velocity_row(float* v, const Fields6& f, const float* mat, int64_t row, int nx, int64_t n, int64_t sy,
                  int64_t sz, float scale) {
#pragma GCC ivdep
  for (int64_t i = row; i < row + nx; ++i) add_velocity(v, n, mat, i, sy, sz, velocity_diffs(f, i, sy, sz), scale);
}

template <int Plane>
void stress_row(float* s, const Fields3& f, const float* mat, int64_t row, int nx, int64_t n, int64_t sy, int64_t sz,
                float scale) {
#pragma GCC ivdep
  for (int64_t i = row; i < row + nx; ++i) add_stress(s, n, mat, i, sy, sz, stress_diffs(f, i, sy, sz, Plane), scale, Plane);
}

// The C-PML correction of row (j, k)'s PML cells, right after the row's interior update while its
// fields are still in cache: the row's runs outside the block's PmlBox (the whole row, or the cells
// left and right of the box), each as run(first i, length, its first cell's place in the PML list).
template <class RunFn>
void pml_row(const PmlBox& b, const BlockShape& s, int j, int k, RunFn&& run) {
  if (j < b.lo[1] || j >= b.hi[1] || k < b.lo[2] || k >= b.hi[2]) {
    run(0, s.nx, pml_index(b, s, 0, j, k));
    return;
  }
  if (b.lo[0] > 0) run(0, b.lo[0], pml_index(b, s, 0, j, k));
  if (b.hi[0] < s.nx) run(b.hi[0], s.nx - b.hi[0], pml_index(b, s, b.hi[0], j, k));
}

}  // namespace

void compute_velocity(const StepParams& p, float* v, const float* s, const float* mat, char* pml, int64_t count) {
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz();
  const Fields6 f = stress_fields(s, n);
  const PmlView pv = pml ? pml_view(sh, pml, count) : PmlView{nullptr, nullptr, nullptr, 0};
  for (int k = 0; k < sh.nz; ++k)
    for (int j = 0; j < sh.ny; ++j) {
      const int64_t row = sh.idx(0, j, k);
      velocity_row(v, f, mat, row, sh.nx, n, sy, sz, p.dt_h);
      if (!pml) continue;
      pml_row(p.pml, sh, j, k, [&](int i0, int len, int64_t q0) {
#pragma GCC ivdep
        for (int t = 0; t < len; ++t) velocity_pml_cell(p, v, f, mat, pv, q0 + t, row + i0 + t, i0 + t, j, k);
      });
    }
}

void compute_stress(const StepParams& p, float* s, const float* v, const float* mat, char* pml, int64_t count) {
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), sy = sh.sy(), sz = sh.sz();
  const Fields3 f = velocity_fields(v, n);
  const PmlView pv = pml ? pml_view(sh, pml, count) : PmlView{nullptr, nullptr, nullptr, 0};
  for (int k = 0; k < sh.nz; ++k) {
    const int plane = z_plane(k, p.free_surface);
    for (int j = 0; j < sh.ny; ++j) {
      const int64_t row = sh.idx(0, j, k);
      if (plane == kSurface)
        stress_row<kSurface>(s, f, mat, row, sh.nx, n, sy, sz, p.dt_h);
      else if (plane == kBelowSurface)
        stress_row<kBelowSurface>(s, f, mat, row, sh.nx, n, sy, sz, p.dt_h);
      else
        stress_row<kInterior>(s, f, mat, row, sh.nx, n, sy, sz, p.dt_h);
      if (!pml) continue;
      pml_row(p.pml, sh, j, k, [&](int i0, int len, int64_t q0) {
#pragma GCC ivdep
        for (int t = 0; t < len; ++t) stress_pml_cell(p, s, f, mat, pv, q0 + t, row + i0 + t, i0 + t, j, k, plane);
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

// One thread per cell: a warp reads 32 consecutive x, a thread block is one x-y tile of one z
// plane (so the plane's free-surface treatment is uniform in it), and there are enough threads in
// flight to cover memory latency even for small blocks. The plane is the fastest grid index, so
// thread blocks run down a tile's column one after another and the +-2 planes a stencil reads
// are still in L2 (plane-by-plane order would need ~45 MB of planes resident for the big case).
constexpr int kTx = 32, kTy = 16;

dim3 xy_grid(const BlockShape& s) { return dim3((s.nx + kTx - 1) / kTx, (s.ny + kTy - 1) / kTy); }
dim3 zxy_grid(const BlockShape& s) { return dim3(s.nz, (s.nx + kTx - 1) / kTx, (s.ny + kTy - 1) / kTy); }

// The interior update of a cell and, for a PML cell, its C-PML correction in the same thread: the
// correction's differences read what the update just read (from cache), and no second pass over
// the PML cells re-reads the fields. The PML list's order gives the cell's memory variables
// (pml_index). Three thread blocks per SM at least: without the bound the PML path took 48-56
// registers and two blocks (measured on the H100: 9.96 G cell-updates/s against 10.54 G with it).
__global__ void __launch_bounds__(kTx * kTy, 3) velocity_kernel(StepParams p, float* __restrict__ v, const float* __restrict__ s,
                                const float* __restrict__ mat, char* pml, int64_t count) {
  const BlockShape& sh = p.shape;
  const int i = blockIdx.y * kTx + threadIdx.x, j = blockIdx.z * kTy + threadIdx.y, k = blockIdx.x;
  if (i >= sh.nx || j >= sh.ny) return;
  const int64_t n = sh.cells(), q = sh.idx(i, j, k);
  const Fields6 f = stress_fields(s, n);
  add_velocity(v, n, mat, q, sh.sy(), sh.sz(), velocity_diffs(f, q, sh.sy(), sh.sz()), p.dt_h);
  if (pml && !p.pml.inside(i, j, k))
    velocity_pml_cell(p, v, f, mat, pml_view(sh, pml, count), pml_index(p.pml, sh, i, j, k), q, i, j, k);
}

__global__ void __launch_bounds__(kTx * kTy, 3) stress_kernel(StepParams p, float* __restrict__ s, const float* __restrict__ v,
                              const float* __restrict__ mat, char* pml, int64_t count) {
  const BlockShape& sh = p.shape;
  const int i = blockIdx.y * kTx + threadIdx.x, j = blockIdx.z * kTy + threadIdx.y, k = blockIdx.x;
  if (i >= sh.nx || j >= sh.ny) return;
  const int64_t n = sh.cells(), q = sh.idx(i, j, k);
  const int plane = z_plane(k, p.free_surface);
  const Fields3 f = velocity_fields(v, n);
  add_stress(s, n, mat, q, sh.sy(), sh.sz(), stress_diffs(f, q, sh.sy(), sh.sz(), plane), p.dt_h, plane);
  if (pml && !p.pml.inside(i, j, k))
    stress_pml_cell(p, s, f, mat, pml_view(sh, pml, count), pml_index(p.pml, sh, i, j, k), q, i, j, k, plane);
}

__global__ void image_kernel(BlockShape sh, float* s) {
  const int i = blockIdx.x * kTx + threadIdx.x, j = blockIdx.y * kTy + threadIdx.y;
  if (i >= sh.nx || j >= sh.ny) return;
  image_free_surface_column(sh, s, i, j);
}

}  // namespace

void compute_velocity(const StepParams& p, float* v, const float* s, const float* mat, char* pml, int64_t pml_cells,
                      cudaStream_t stream) {
  velocity_kernel<<<zxy_grid(p.shape), dim3(kTx, kTy), 0, stream>>>(p, v, s, mat, pml_cells > 0 ? pml : nullptr,
                                                                      pml_cells);
  check_launch("velocity_kernel");
}

void compute_stress(const StepParams& p, float* s, const float* v, const float* mat, char* pml, int64_t pml_cells,
                    cudaStream_t stream) {
  stress_kernel<<<zxy_grid(p.shape), dim3(kTx, kTy), 0, stream>>>(p, s, v, mat, pml_cells > 0 ? pml : nullptr,
                                                                    pml_cells);
  check_launch("stress_kernel");
  if (p.free_surface) {
    image_kernel<<<xy_grid(p.shape), dim3(kTx, kTy), 0, stream>>>(p.shape, s);
    check_launch("image_kernel");
  }
}

}  // namespace ondes::cuda
#endif
