// Marks functions callable from host code and from CUDA device code.
#pragma once
#if defined(__CUDACC__)
#define ONDES_HD __host__ __device__
#else
#define ONDES_HD
#endif
