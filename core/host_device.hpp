// Marks functions callable from host code and from CUDA device code.
#pragma once
#if defined(__CUDACC__)
#define ONDES_HD __host__ __device__
#else
#define ONDES_HD
#endif

// Fully unrolls the short loop that follows (a loop over the nine differences of a cell), so that
// its per-iteration constants fold: nvcc's pragma, or GCC's.
#if defined(__CUDACC__)
#define ONDES_UNROLL _Pragma("unroll")
#else
#define ONDES_UNROLL _Pragma("GCC unroll 16")
#endif
