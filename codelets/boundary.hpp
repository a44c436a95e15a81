// Boundary copies: a box of every component between a block's array and a boundary buffer
// (save_edges copies the block's edges out; the compute tasks copy a neighbour's edge into their
// ghosts).
#pragma once
#include "codelets/kernel_support.hpp"

namespace ondes {

// Element t of a box copy (components, then z, y, x, as in the buffer): between the block's array
// and the buffer, in either direction. One per-element source for the CUDA kernels.
ONDES_HD inline void copy_box_element(const BlockShape& sh, const Box& b, int64_t t, float* field, float* buffer,
                                      bool to_buffer) {
  const int64_t per_comp = int64_t(b.ni) * b.nj * sh.nz;
  const int c = static_cast<int>(t / per_comp);
  int64_t r = t - c * per_comp;
  const int k = static_cast<int>(r / (int64_t(b.ni) * b.nj));
  r -= int64_t(k) * b.ni * b.nj;
  const int jj = static_cast<int>(r / b.ni), ii = static_cast<int>(r % b.ni);
  float& f = field[c * sh.cells() + sh.idx(b.i0 + ii, b.j0 + jj, k)];
  float& x = buffer[buffer_index(b, sh.nz, c, k, jj, ii)];
  if (to_buffer)
    x = f;
  else
    f = x;
}

ONDES_HD inline int64_t box_floats(const BlockShape& sh, int ncomp, const Box& b) { return int64_t(ncomp) * b.ni * b.nj * sh.nz; }

}  // namespace ondes

namespace ondes::cpu {
void save_box(const BlockShape& shape, int ncomp, const Box& b, const float* field, float* buffer);
void load_box(const BlockShape& shape, int ncomp, const Box& b, const float* buffer, float* field);
}  // namespace ondes::cpu

namespace ondes::cuda {
void save_box(const BlockShape& shape, int ncomp, const Box& b, const float* field, float* buffer, cudaStream_t stream);
void load_box(const BlockShape& shape, int ncomp, const Box& b, const float* buffer, float* field, cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

void save_box(const BlockShape& sh, int ncomp, const Box& b, const float* field, float* buffer) {
  const int64_t n = sh.cells();
  for (int c = 0; c < ncomp; ++c)
    for (int k = 0; k < sh.nz; ++k)
      for (int jj = 0; jj < b.nj; ++jj) {
        const float* src = field + c * n + sh.idx(b.i0, b.j0 + jj, k);
        float* dst = buffer + buffer_index(b, sh.nz, c, k, jj, 0);
        for (int ii = 0; ii < b.ni; ++ii) dst[ii] = src[ii];
      }
}

void load_box(const BlockShape& sh, int ncomp, const Box& b, const float* buffer, float* field) {
  const int64_t n = sh.cells();
  for (int c = 0; c < ncomp; ++c)
    for (int k = 0; k < sh.nz; ++k)
      for (int jj = 0; jj < b.nj; ++jj) {
        const float* src = buffer + buffer_index(b, sh.nz, c, k, jj, 0);
        float* dst = field + c * n + sh.idx(b.i0, b.j0 + jj, k);
        for (int ii = 0; ii < b.ni; ++ii) dst[ii] = src[ii];
      }
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

template <bool ToBuffer>
__global__ void box_kernel(BlockShape sh, int ncomp, Box b, float* field, float* buffer) {
  const int64_t t = thread_index();
  if (t < box_floats(sh, ncomp, b)) copy_box_element(sh, b, t, field, buffer, ToBuffer);
}

}  // namespace

void save_box(const BlockShape& sh, int ncomp, const Box& b, const float* field, float* buffer, cudaStream_t stream) {
  const int64_t n = box_floats(sh, ncomp, b);
  box_kernel<true><<<blocks_for(n, 256), 256, 0, stream>>>(sh, ncomp, b, const_cast<float*>(field), buffer);
  check_launch("box_kernel (save)");
}

void load_box(const BlockShape& sh, int ncomp, const Box& b, const float* buffer, float* field, cudaStream_t stream) {
  const int64_t n = box_floats(sh, ncomp, b);
  box_kernel<false><<<blocks_for(n, 256), 256, 0, stream>>>(sh, ncomp, b, field, const_cast<float*>(buffer));
  check_launch("box_kernel (load)");
}

}  // namespace ondes::cuda
#endif
