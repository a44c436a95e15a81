// What every numerics file of codelets/ shares. Each file holds one concept's per-cell code
// (ONDES_HD: host and device), the declarations of its CPU loops (namespace ondes::cpu) and CUDA
// launchers (ondes::cuda, asynchronous on the given stream), and their definitions, which the
// build compiles once for the CPU (ONDES_DEFINE_CPU_KERNELS, g++ with the numeric flags) and once
// for CUDA (ONDES_DEFINE_CUDA_KERNELS, nvcc): CMake collects codelets/*.hpp into the two
// translation units, so a new file needs no build edit. No StarPU here: tasks/ wraps these.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/host_device.hpp"
#include "core/layout.hpp"

// The stream type of the launchers' declarations, without the CUDA headers (a CPU-only build has
// none); the same declaration as cuda_runtime_api.h's.
struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;

#if defined(ONDES_DEFINE_CUDA_KERNELS) && defined(__CUDACC__)
#include <cuda_runtime.h>

namespace ondes::cuda {

// A launch that failed (bad configuration, no device code for this GPU) would otherwise leave the
// field unchanged without a word: StarPU's codelets cannot return an error, so stop the process.
inline void check_launch(const char* kernel) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "ondes3d: CUDA kernel %s failed to launch: %s\n", kernel, cudaGetErrorString(e));
  std::abort();
}

inline int64_t blocks_for(int64_t n, int threads) { return (n + threads - 1) / threads; }

// The index of this thread in a 1D launch.
__device__ inline int64_t thread_index() { return blockIdx.x * int64_t(blockDim.x) + threadIdx.x; }

// The cells of a block its interior kernels update: the PmlBox, or the whole block when it has no
// PML cells.
inline PmlBox interior(const StepParams& p) {
  if (p.pml_cells > 0) return p.pml;
  PmlBox b;
  b.hi[0] = p.shape.nx, b.hi[1] = p.shape.ny, b.hi[2] = p.shape.nz;
  return b;
}
inline bool empty(const PmlBox& b) { return b.hi[0] <= b.lo[0] || b.hi[1] <= b.lo[1] || b.hi[2] <= b.lo[2]; }

}  // namespace ondes::cuda
#endif

#ifdef ONDES_DEFINE_CPU_KERNELS
// With ONDES_CPU_CLONES (CMake option) the stencil loops are compiled twice, for the build's
// -march and for x86-64-v4 (AVX-512), and the loader picks the clone the CPU runs (GCC's
// target_clones). Bitwise the same results: no FMA contraction, IEEE operations only (docs/
// performance.md, Decisions: CPU clones).
// The loops over a row's cells (ONDES_RUN: interior rows, PML runs) are functions of their own,
// each cloned; what they call is inlined into them (ONDES_ROW). Inlined into one sweep
// function, they had left GCC's register allocator one huge function, and it spilled the row's
// pointers in the hot loops (docs/performance.md, Decisions: rows out of line).
#if defined(ONDES_CPU_CLONES) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ONDES_SWEEP __attribute__((target_clones("arch=x86-64-v4", "default")))
#define ONDES_RUN __attribute__((noinline, target_clones("arch=x86-64-v4", "default")))
#elif defined(__GNUC__)
#define ONDES_SWEEP
#define ONDES_RUN __attribute__((noinline))
#else
#define ONDES_SWEEP
#define ONDES_RUN
#endif
#if defined(__GNUC__)
#define ONDES_ROW __attribute__((always_inline))
#else
#define ONDES_ROW
#endif
#endif
