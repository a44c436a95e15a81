// A block's halo, every direction of one field kind at once (one call and, on a GPU, one launch,
// where a copy per direction took four): save_edges copies edge_box(dir) of the halo components
// (core/layout.hpp: halo_component) into the block's boundary buffer towards dir; load_ghosts
// copies the neighbours' buffers into ghost_box(dir).
#pragma once
#include "codelets/boundary.hpp"
#include "codelets/kernel_support.hpp"

namespace ondes {

// Boundary buffers of one field kind by direction; null where the block has no neighbour there.
struct BoundaryBuffers {
  float* at[kDirections];
};

// The x faces (XM, XP) whose ghosts the CUDA march reads straight from the neighbours' buffers in
// the rows (j, k) of its box, so that load_ghosts leaves those rows alone; null: from the field.
// Why: an x face's ghosts are two floats a row, each row a 32-byte sector written for 8 bytes
// (docs/performance.md, Decisions: x faces from the buffers).
struct XHalo {
  const float* at[2] = {nullptr, nullptr};  // XM, XP
  PmlBox rows;                              // the box whose rows (j, k) they serve
  ONDES_HD const float* face(int dir) const { return dir == XM ? at[0] : dir == XP ? at[1] : nullptr; }
  ONDES_HD bool any() const { return at[0] || at[1]; }
  ONDES_HD bool serves(int dir, int j, int k) const {
    return face(dir) && j >= rows.lo[1] && j < rows.hi[1] && k >= rows.lo[2] && k < rows.hi[2];
  }
};

}  // namespace ondes

namespace ondes::cpu {
void save_edges(const BlockShape& shape, int kind, const float* field, const BoundaryBuffers& b);
void load_ghosts(const BlockShape& shape, int kind, const BoundaryBuffers& b, float* field);
}  // namespace ondes::cpu

namespace ondes::cuda {
void save_edges(const BlockShape& shape, int kind, const float* field, const BoundaryBuffers& b, cudaStream_t stream);
void load_ghosts(const BlockShape& shape, int kind, const BoundaryBuffers& b, float* field, cudaStream_t stream,
                 const XHalo& skip = {});
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

void save_edges(const BlockShape& sh, int kind, const float* field, const BoundaryBuffers& b) {
  for (int dir = 0; dir < kDirections; ++dir)
    if (b.at[dir]) save_box(sh, kind, dir, field, b.at[dir]);
}

void load_ghosts(const BlockShape& sh, int kind, const BoundaryBuffers& b, float* field) {
  for (int dir = 0; dir < kDirections; ++dir)
    if (b.at[dir]) load_box(sh, kind, dir, b.at[dir], field);
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {

// Cell (i, j, k) (padded index q) of field f, just updated by this thread, into the boundary
// buffers whose edge box holds it: the compute kernels save the edges as they write them, where a
// copy kernel afterwards read them back (the x edges are two floats per row: a 32-byte sector for
// 8 bytes). A corner cell is in two boxes.
__device__ inline void save_cell_edges(const BlockShape& sh, const BoundaryBuffers& e, int kind, const float* f,
                                       int64_t q, int i, int j, int k) {
  if (i >= kGhost && i < sh.nx - kGhost && j >= kGhost && j < sh.ny - kGhost) return;
  for (int dir = 0; dir < kDirections; ++dir) {
    if (!e.at[dir]) continue;
    const Box b = edge_box(sh, dir);
    const int ii = i - b.i0, jj = j - b.j0;
    if (ii < 0 || ii >= b.ni || jj < 0 || jj >= b.nj) continue;
    for (int c = 0; c < kHaloComponents; ++c)
      e.at[dir][buffer_index(b, sh.nz, c, k, jj, ii)] = f[halo_component(kind, dir, c) * sh.cells() + q];
  }
}
inline bool any(const BoundaryBuffers& e) {
  for (float* b : e.at)
    if (b) return true;
  return false;
}

namespace {

__device__ inline Box halo_box(const BlockShape& sh, int dir, bool edges) {
  return edges ? edge_box(sh, dir) : ghost_box(sh, dir);
}

// A thread per element of a plane of all the boxes (x: direction after direction, at most four),
// P planes of it (y: the runs of planes) and the halo components (z): box_grid. Edges: field ->
// buffers; else buffers -> ghosts, but for the rows that skip serves.
template <bool Edges, int P>
__global__ void halo_kernel(BlockShape sh, int kind, float* field, BoundaryBuffers b, XHalo skip) {
  int r = blockIdx.x * kBoxThreads + threadIdx.x;
  for (int dir = 0; dir < kDirections; ++dir) {
    if (!b.at[dir]) continue;
    const Box box = halo_box(sh, dir, Edges);
    if (r < box.ni * box.nj) {
      const int j = box.j0 + r / box.ni;
      copy_box_run<P>(sh, box, blockIdx.z, halo_component(kind, dir, blockIdx.z), blockIdx.y * P, r,
                      {field, b.at[dir], Edges}, [&](int k) { return Edges || !skip.serves(dir, j, k); });
      return;
    }
    r -= box.ni * box.nj;
  }
}

// Elements in a plane of all the boxes (edge and ghost boxes have the same shape).
int plane_elements(const BlockShape& sh, const BoundaryBuffers& b) {
  int n = 0;
  for (int dir = 0; dir < kDirections; ++dir)
    if (b.at[dir]) n += edge_box(sh, dir).ni * edge_box(sh, dir).nj;
  return n;
}

// Planes a thread of the copies: 8. Why: with one element a thread, each thread's one load and one
// store in turn, the copies ran far below the bandwidth; 16 gained nothing more (docs/
// performance.md, Decisions: halo copy planes).
constexpr int kHaloPlanes = 8;

template <bool Edges>
void launch_halo(const BlockShape& sh, int kind, float* field, const BoundaryBuffers& b, const XHalo& skip, int n,
                 cudaStream_t stream) {
  halo_kernel<Edges, kHaloPlanes><<<box_grid(sh, n, kHaloPlanes), kBoxThreads, 0, stream>>>(sh, kind, field, b, skip);
  check_launch(Edges ? "halo_kernel (edges)" : "halo_kernel (ghosts)");
}

}  // namespace

void save_edges(const BlockShape& sh, int kind, const float* field, const BoundaryBuffers& b, cudaStream_t stream) {
  const int n = plane_elements(sh, b);
  if (n == 0) return;
  launch_halo<true>(sh, kind, const_cast<float*>(field), b, XHalo{}, n, stream);
}

void load_ghosts(const BlockShape& sh, int kind, const BoundaryBuffers& b, float* field, cudaStream_t stream,
                 const XHalo& skip) {
  const int n = plane_elements(sh, b);
  if (n == 0) return;
  launch_halo<false>(sh, kind, field, b, skip, n, stream);
}

}  // namespace ondes::cuda
#endif
