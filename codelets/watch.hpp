// The watchdog's measure of a block: the largest velocity magnitude of its interior, +infinity
// when a value is not a number, so that one maximum catches both runaway amplitudes and NaN.
#pragma once
#include <math.h>

#include <algorithm>

#include "codelets/kernel_support.hpp"

namespace ondes {

ONDES_HD inline float watchdog_magnitude(float v) { return v != v ? INFINITY : fabsf(v); }

}  // namespace ondes

namespace ondes::cpu {
float velocity_peak(const BlockShape& shape, const float* v);
}  // namespace ondes::cpu

namespace ondes::cuda {
// *peak (device memory) = the largest watchdog_magnitude of the interior velocity.
void velocity_peak(const BlockShape& shape, const float* v, float* peak, cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

float velocity_peak(const BlockShape& sh, const float* v) {
  const int64_t n = sh.cells();
  float peak = 0;
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < sh.nz; ++k)
      for (int j = 0; j < sh.ny; ++j) {
        const float* row = v + c * n + sh.idx(0, j, k);
        for (int i = 0; i < sh.nx; ++i) peak = std::max(peak, watchdog_magnitude(row[i]));
      }
  return peak;
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

// Magnitudes are non-negative (or +inf), so their bit patterns order like unsigned integers. A
// thread block reads x rows (of a component, y and z), its threads along the row: one division
// per row, where one per value (a grid-stride loop over the cells) made the kernel eight times
// what its bytes cost (docs/performance.md, Decisions: peak kernel).
__global__ void peak_kernel(BlockShape sh, const float* v, unsigned int* peak) {
  const int64_t rows = int64_t(sh.ny) * sh.nz * 3;
  float m = 0;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const int j = static_cast<int>(r % sh.ny), k = static_cast<int>((r / sh.ny) % sh.nz);
    const int c = static_cast<int>(r / (int64_t(sh.ny) * sh.nz));
    const float* row = v + c * sh.cells() + sh.idx(0, j, k);
    for (int i = threadIdx.x; i < sh.nx; i += blockDim.x) m = fmaxf(m, watchdog_magnitude(row[i]));
  }
  for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, off));
  if ((threadIdx.x & 31) == 0) atomicMax(peak, __float_as_uint(m));
}

}  // namespace

void velocity_peak(const BlockShape& sh, const float* v, float* peak, cudaStream_t stream) {
  cudaMemsetAsync(peak, 0, sizeof(float), stream);
  peak_kernel<<<2048, 128, 0, stream>>>(sh, v, reinterpret_cast<unsigned int*>(peak));
  check_launch("peak_kernel");
}

}  // namespace ondes::cuda
#endif
