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

// A thread per value of all the edges, direction after direction (at most four boxes).
__global__ void edges_kernel(BlockShape sh, int ncomp, float* field, EdgeBuffers b) {
  int64_t t = thread_index();
  for (int dir = 0; dir < kDirections; ++dir) {
    if (!b.out[dir]) continue;
    const Box box = edge_box(sh, dir);
    const int64_t n = box_floats(sh, ncomp, box);
    if (t < n) {
      copy_box_element(sh, box, t, field, b.out[dir], true);
      return;
    }
    t -= n;
  }
}

}  // namespace

void save_edges(const BlockShape& sh, int ncomp, const float* field, const EdgeBuffers& b, cudaStream_t stream) {
  int64_t n = 0;
  for (int dir = 0; dir < kDirections; ++dir)
    if (b.out[dir]) n += box_floats(sh, ncomp, edge_box(sh, dir));
  if (n == 0) return;
  edges_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(sh, ncomp, const_cast<float*>(field), b);
  check_launch("edges_kernel");
}

}  // namespace ondes::cuda
#endif
