// Device copy bandwidth (bytes read + written per second) with cudaMemcpy device to device: the
// ceiling a memory-bound stencil is measured against.
#include <cstdio>

#include <cuda_runtime.h>

int main() {
  const size_t bytes = size_t(2) << 30;
  void *a, *b;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
    std::fprintf(stderr, "cannot allocate 2 x 2 GiB on the device\n");
    return 1;
  }
  cudaMemset(a, 1, bytes);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
  const int reps = 20;
  cudaEventRecord(t0);
  for (int r = 0; r < reps; ++r) cudaMemcpy(r % 2 ? a : b, r % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice);
  cudaEventRecord(t1);
  cudaEventSynchronize(t1);
  float ms = 0;
  cudaEventElapsedTime(&ms, t0, t1);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device %s: copy bandwidth %.1f GB/s (read + write, %d x 2 GiB)\n", prop.name,
              2.0 * bytes * reps / (ms * 1e-3) / 1e9, reps);
  return 0;
}
