// Marks functions callable from host code and from CUDA device code.
#pragma once
#if defined(__CUDACC__)
#define ONDES_HD __host__ __device__
#else
#define ONDES_HD
#endif

// For the per-cell stencil functions: always inlined into the loops that call them (an out-of-line
// call per cell would stop the CPU loop from vectorising; GCC's heuristics gave up once the
// C-PML runs had several instantiations).
#if defined(__CUDACC__)
#define ONDES_CELL __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define ONDES_CELL __attribute__((always_inline)) inline
#else
#define ONDES_CELL inline
#endif

// Fully unrolls the short loop that follows (a loop over the nine differences of a cell), so that
// its per-iteration constants fold: nvcc's pragma, or GCC's.
#if defined(__CUDACC__)
#define ONDES_UNROLL _Pragma("unroll")
#else
#define ONDES_UNROLL _Pragma("GCC unroll 16")
#endif
