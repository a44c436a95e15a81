// save_edges: the edges a block sends its neighbours, every direction of one field kind at once
// (one task and, on a GPU, one launch, where a save per direction took four): for each direction
// with a buffer, edge_box(dir) of every component into that buffer.
#pragma once
#include "codelets/boundary.hpp"
#include "codelets/kernel_support.hpp"

namespace ondes {

// The boundary buffers of one field kind by direction; null where the block has no neighbour.
struct EdgeBuffers {
  float* out[kDirections];
};

}  // namespace ondes

namespace ondes::cpu {
void save_edges(const BlockShape& shape, int ncomp, const float* field, const EdgeBuffers& b);
}  // namespace ondes::cpu

namespace ondes::cuda {
void save_edges(const BlockShape& shape, int ncomp, const float* field, const EdgeBuffers& b, cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

void save_edges(const BlockShape& sh, int ncomp, const float* field, const EdgeBuffers& b) {
  for (int dir = 0; dir < kDirections; ++dir)
    if (b.out[dir]) save_box(sh, ncomp, edge_box(sh, dir), field, b.out[dir]);
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

// A thread per element of a plane of all the edges (x: direction after direction, at most four
// boxes), the planes (y) and the components (z), as box_kernel.
__global__ void edges_kernel(BlockShape sh, float* field, EdgeBuffers b) {
  int r = blockIdx.x * kBoxThreads + threadIdx.x;
  for (int dir = 0; dir < kDirections; ++dir) {
    if (!b.out[dir]) continue;
    const Box box = edge_box(sh, dir);
    if (r < box.ni * box.nj) {
      copy_box_element(sh, box, blockIdx.z, blockIdx.y, r, field, b.out[dir], true);
      return;
    }
    r -= box.ni * box.nj;
  }
}

}  // namespace

void save_edges(const BlockShape& sh, int ncomp, const float* field, const EdgeBuffers& b, cudaStream_t stream) {
  int n = 0;
  for (int dir = 0; dir < kDirections; ++dir)
    if (b.out[dir]) n += edge_box(sh, dir).ni * edge_box(sh, dir).nj;
  if (n == 0) return;
  edges_kernel<<<box_grid(sh, ncomp, n), kBoxThreads, 0, stream>>>(sh, const_cast<float*>(field), b);
  check_launch("edges_kernel");
}

}  // namespace ondes::cuda
#endif
