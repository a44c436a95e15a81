// Boundary copies: a box of every component between a block's array and a boundary buffer, the
// per-element source of the CUDA copies and the CPU loops (codelets/edges.hpp uses them for a
// block's edges and ghosts).
#pragma once
#include <type_traits>

#include "codelets/kernel_support.hpp"

namespace ondes {

// The two ends of a box copy: the block's array, the boundary buffer, and which way it goes.
struct CopyEnds {
  float* field;
  float* buffer;
  bool to_buffer;
};

// Element r (row-major in the plane: jj = r / ni) of planes [k0, k0 + P), component c of a box
// copy, where keep(k) (and k < nz): between field component fc of the block's array and the
// buffer, in either direction. All P values are read before any is written, so that a thread
// has P loads in flight. One per-element source for the CUDA kernels, which launch a thread per
// element of a plane and the plane runs and components as grid dimensions (no 64-bit divisions
// per element).
template <int P, class Keep>
ONDES_HD inline void copy_box_run(const BlockShape& sh, const Box& b, int c, int fc, int k0, int r, CopyEnds e,
                                  Keep&& keep) {
  const int jj = r / b.ni, ii = r - jj * b.ni;
  const bool to_buffer = e.to_buffer;
  float* f = e.field + fc * sh.cells() + sh.idx(b.i0 + ii, b.j0 + jj, k0);
  float* x = e.buffer + buffer_index(b, sh.nz, c, k0, jj, ii);
  const int64_t fs = sh.sz(), xs = int64_t(b.ni) * b.nj;
  float* from = to_buffer ? f : x;
  float* to = to_buffer ? x : f;
  const int64_t from_s = to_buffer ? fs : xs, to_s = to_buffer ? xs : fs;
  float v[P];
  bool on[P];
#pragma unroll
  for (int p = 0; p < P; ++p) {
    on[p] = k0 + p < sh.nz && keep(k0 + p);
    if (on[p]) v[p] = from[p * from_s];
  }
#pragma unroll
  for (int p = 0; p < P; ++p)
    if (on[p]) to[p * to_s] = v[p];
}

ONDES_HD inline int64_t box_floats(const BlockShape& sh, int ncomp, const Box& b) { return int64_t(ncomp) * b.ni * b.nj * sh.nz; }

}  // namespace ondes

namespace ondes::cpu {
// The halo of field kind `kind` towards dir: edge_box(dir) into the buffer, or the buffer into ghost_box(dir).
void save_box(const BlockShape& shape, int kind, int dir, const float* field, float* buffer);
void load_box(const BlockShape& shape, int kind, int dir, const float* buffer, float* field);
}  // namespace ondes::cpu

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {
namespace {

// Box b's rows, every halo component towards dir, in buffer order: row(field offset, buffer
// offset) of each x row (b.ni floats at both).
template <class RowFn>
void for_box_rows(const BlockShape& sh, int kind, int dir, const Box& b, RowFn&& row) {
  const int64_t n = sh.cells(), sy = sh.sy();
  int64_t q = 0;
  for (int c = 0; c < kHaloComponents; ++c)
    for (int k = 0; k < sh.nz; ++k) {
      int64_t f = halo_component(kind, dir, c) * n + sh.idx(b.i0, b.j0, k);
      for (int jj = 0; jj < b.nj; ++jj, f += sy, q += b.ni) row(f, q);
    }
}

// to[...] = from[...] row by row. The x edges and ghosts are columns kGhost wide: there a row is
// two moves of known length, where a loop of run-time length per row cost more than the copy
// (docs/performance.md, Decisions: halo copy rows).
template <bool ToBuffer>
void copy_box(const BlockShape& sh, int kind, int dir, const float* from, float* to) {
  const Box b = ToBuffer ? edge_box(sh, dir) : ghost_box(sh, dir);
  auto copy = [&](int64_t f, int64_t q, auto width) {
    const int64_t src = ToBuffer ? f : q, dst = ToBuffer ? q : f;
    for (int ii = 0; ii < width; ++ii) to[dst + ii] = from[src + ii];
  };
  if (b.ni == kGhost)
    for_box_rows(sh, kind, dir, b, [&](int64_t f, int64_t q) { copy(f, q, std::integral_constant<int, kGhost>{}); });
  else
    for_box_rows(sh, kind, dir, b, [&](int64_t f, int64_t q) { copy(f, q, b.ni); });
}

}  // namespace

void save_box(const BlockShape& sh, int kind, int dir, const float* field, float* buffer) {
  copy_box<true>(sh, kind, dir, field, buffer);
}

void load_box(const BlockShape& sh, int kind, int dir, const float* buffer, float* field) {
  copy_box<false>(sh, kind, dir, buffer, field);
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {

// The CUDA copies (codelets/edges.hpp) launch a thread per element of a plane of the boxes (x),
// the runs of `planes` planes (y) and the halo components (z).
constexpr int kBoxThreads = 128;
inline dim3 box_grid(const BlockShape& sh, int plane_elements, int planes) {
  return dim3(unsigned(blocks_for(plane_elements, kBoxThreads)), unsigned((sh.nz + planes - 1) / planes),
              unsigned(kHaloComponents));
}

}  // namespace ondes::cuda
#endif
