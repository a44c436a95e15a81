#include "codelets/cuda_kernels.hpp"

#include "codelets/stencil.hpp"

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

__global__ void velocity_kernel(StepParams p, float* __restrict__ v, const float* __restrict__ s,
                                const float* __restrict__ mat) {
  const BlockShape& sh = p.shape;
  const int i = blockIdx.y * kTx + threadIdx.x, j = blockIdx.z * kTy + threadIdx.y, k = blockIdx.x;
  if (i >= sh.nx || j >= sh.ny) return;
  const int64_t n = sh.cells(), q = sh.idx(i, j, k);
  add_velocity(v, n, mat, q, velocity_diffs(stress_fields(s, n), q, sh.sy(), sh.sz()), p.dt_h);
}

__global__ void stress_kernel(StepParams p, float* __restrict__ s, const float* __restrict__ v,
                              const float* __restrict__ mat) {
  const BlockShape& sh = p.shape;
  const int i = blockIdx.y * kTx + threadIdx.x, j = blockIdx.z * kTy + threadIdx.y, k = blockIdx.x;
  if (i >= sh.nx || j >= sh.ny) return;
  const int64_t n = sh.cells(), q = sh.idx(i, j, k);
  const int plane = z_plane(k, p.free_surface);
  add_stress(s, n, mat, q, stress_diffs(velocity_fields(v, n), q, sh.sy(), sh.sz(), plane), p.dt_h, plane);
}

__global__ void velocity_pml_kernel(StepParams p, float* v, const float* s, const float* mat, char* pml,
                                    int64_t count) {
  const int64_t q = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (q >= count) return;
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), i = pml_cell(pml, q);
  Diffs d = velocity_diffs(stress_fields(s, n), i, sh.sy(), sh.sz());
  pml_memory(sh, pml, count, q, 0, kVelocityPlaces, d, p.inv_h);
  add_velocity(v, n, mat, i, d, p.dt);
}

__global__ void stress_pml_kernel(StepParams p, float* s, const float* v, const float* mat, char* pml,
                                  int64_t count) {
  const int64_t q = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (q >= count) return;
  const BlockShape& sh = p.shape;
  const int64_t n = sh.cells(), i = pml_cell(pml, q);
  int ci, cj, ck;
  unpack_index(sh, i, &ci, &cj, &ck);
  const int plane = z_plane(ck, p.free_surface);
  Diffs d = stress_diffs(velocity_fields(v, n), i, sh.sy(), sh.sz(), plane);
  pml_memory(sh, pml, count, q, 9, kStressPlaces, d, p.inv_h);
  add_stress(s, n, mat, i, d, p.dt, plane);
}

__global__ void image_kernel(BlockShape sh, float* s) {
  const int i = blockIdx.x * kTx + threadIdx.x, j = blockIdx.y * kTy + threadIdx.y;
  if (i >= sh.nx || j >= sh.ny) return;
  image_free_surface_column(sh, s, i, j);
}

template <bool ToBuffer>
__global__ void box_kernel(BlockShape sh, int ncomp, Box b, float* field, float* buffer) {
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  const int64_t per_comp = int64_t(b.ni) * b.nj * sh.nz;
  if (t >= per_comp * ncomp) return;
  const int c = static_cast<int>(t / per_comp);
  int64_t r = t - c * per_comp;
  const int k = static_cast<int>(r / (int64_t(b.ni) * b.nj));
  r -= int64_t(k) * b.ni * b.nj;
  const int jj = static_cast<int>(r / b.ni), ii = static_cast<int>(r % b.ni);
  float& f = field[c * sh.cells() + sh.idx(b.i0 + ii, b.j0 + jj, k)];
  float& x = buffer[buffer_index(b, sh.nz, c, k, jj, ii)];
  if (ToBuffer)
    x = f;
  else
    f = x;
}

// A thread per source point; the first of each run of points on one value adds the run (see
// source_run): runs are independent, so a finite fault's points go in parallel without atomics.
__global__ void sources_kernel(float* field, int64_t cells, const SourcePoint* points, int64_t count, double t) {
  const int64_t q = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (q >= count || (q > 0 && source_target(points[q - 1], cells) == source_target(points[q], cells))) return;
  int64_t end = 0;
  const double sum = source_run(points, q, count, cells, t, &end);
  field[source_target(points[q], cells)] += static_cast<float>(sum);
}

__global__ void plane_kernel(PlaneArgs p, const float* v, float* plane) {
  const int64_t q = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (q < plane_points(p.shape, p.axis)) extract_plane_point(p, v, q, plane);
}

__global__ void pgv_kernel(BlockShape s, const float* v, float* pgv) {
  const int64_t q = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (q < int64_t(s.nx) * s.ny) update_pgv_point(s, v, static_cast<int>(q % s.nx), static_cast<int>(q / s.nx), pgv);
}

__global__ void record_kernel(StationBlocks blocks, const StationPoint* st, int64_t count, int step, int nsteps,
                              float* traces) {
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (t >= count * 3) return;
  const int64_t q = t / 3;
  const int c = static_cast<int>(t % 3);
  traces[(q * 3 + c) * nsteps + step] = station_velocity(st[q], c, blocks);
}

__global__ void sample_kernel(const float* v, int64_t cells, const StationPoint* st, int64_t count, int slot,
                              float* samples) {
  const int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (t >= count * kSampleFloats) return;
  const int64_t p = t / kSampleFloats;
  const int cq = static_cast<int>(t % kSampleFloats);
  sample_corner(st[p], cq / 8, cq % 8, slot, v, cells, samples + p * kSampleFloats);
}

// Magnitudes are non-negative (or +inf), so their bit patterns order like unsigned integers.
__global__ void peak_kernel(BlockShape sh, const float* v, unsigned int* peak) {
  const int64_t cells = int64_t(sh.nx) * sh.ny * sh.nz * 3;
  float m = 0;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < cells; t += int64_t(gridDim.x) * blockDim.x) {
    const int i = static_cast<int>(t % sh.nx);
    const int64_t r = t / sh.nx;
    const int j = static_cast<int>(r % sh.ny), k = static_cast<int>((r / sh.ny) % sh.nz), c = static_cast<int>(r / (int64_t(sh.ny) * sh.nz));
    m = fmaxf(m, watchdog_magnitude(v[c * sh.cells() + sh.idx(i, j, k)]));
  }
  for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, off));
  if ((threadIdx.x & 31) == 0) atomicMax(peak, __float_as_uint(m));
}

int64_t blocks_for(int64_t n, int threads) { return (n + threads - 1) / threads; }

}  // namespace

void compute_velocity(const StepParams& p, float* v, const float* s, const float* mat, char* pml, int64_t pml_cells,
                      cudaStream_t stream) {
  velocity_kernel<<<zxy_grid(p.shape), dim3(kTx, kTy), 0, stream>>>(p, v, s, mat);
  if (pml && pml_cells > 0)
    velocity_pml_kernel<<<blocks_for(pml_cells, 256), 256, 0, stream>>>(p, v, s, mat, pml, pml_cells);
}

void compute_stress(const StepParams& p, float* s, const float* v, const float* mat, char* pml, int64_t pml_cells,
                    cudaStream_t stream) {
  stress_kernel<<<zxy_grid(p.shape), dim3(kTx, kTy), 0, stream>>>(p, s, v, mat);
  if (pml && pml_cells > 0)
    stress_pml_kernel<<<blocks_for(pml_cells, 256), 256, 0, stream>>>(p, s, v, mat, pml, pml_cells);
  if (p.free_surface) image_kernel<<<xy_grid(p.shape), dim3(kTx, kTy), 0, stream>>>(p.shape, s);
}

void save_box(const BlockShape& sh, int ncomp, const Box& b, const float* field, float* buffer, cudaStream_t stream) {
  const int64_t n = int64_t(ncomp) * b.ni * b.nj * sh.nz;
  box_kernel<true><<<blocks_for(n, 256), 256, 0, stream>>>(sh, ncomp, b, const_cast<float*>(field), buffer);
}

void load_box(const BlockShape& sh, int ncomp, const Box& b, const float* buffer, float* field, cudaStream_t stream) {
  const int64_t n = int64_t(ncomp) * b.ni * b.nj * sh.nz;
  box_kernel<false><<<blocks_for(n, 256), 256, 0, stream>>>(sh, ncomp, b, field, const_cast<float*>(buffer));
}

void apply_sources(float* field, int64_t cells, const SourcePoint* points, int64_t count, double t,
                   cudaStream_t stream) {
  if (count > 0) sources_kernel<<<blocks_for(count, 128), 128, 0, stream>>>(field, cells, points, count, t);
}

void record(const StationBlocks& blocks, const StationPoint* st, int64_t count, int step, int nsteps, float* traces,
            cudaStream_t stream) {
  if (count > 0) record_kernel<<<blocks_for(count * 3, 64), 64, 0, stream>>>(blocks, st, count, step, nsteps, traces);
}

void sample_stations(const float* v, int64_t cells, const StationPoint* st, int64_t count, int slot, float* samples,
                     cudaStream_t stream) {
  if (count > 0) sample_kernel<<<blocks_for(count * kSampleFloats, 96), 96, 0, stream>>>(v, cells, st, count, slot, samples);
}

void extract_plane(const PlaneArgs& p, const float* v, float* plane, cudaStream_t stream) {
  const int64_t n = plane_points(p.shape, p.axis);
  plane_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(p, v, plane);
}

void update_pgv(const BlockShape& s, const float* v, float* pgv, cudaStream_t stream) {
  const int64_t n = int64_t(s.nx) * s.ny;
  pgv_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(s, v, pgv);
}

void velocity_peak(const BlockShape& sh, const float* v, float* peak, cudaStream_t stream) {
  cudaMemsetAsync(peak, 0, sizeof(float), stream);
  peak_kernel<<<264, 256, 0, stream>>>(sh, v, reinterpret_cast<unsigned int*>(peak));
}

}  // namespace ondes::cuda
