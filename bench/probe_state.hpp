// What bench/'s CUDA probes share: the check of a CUDA call, the host state they start from (a
// block's fields of small pseudo-random values, and a layered medium: material uniform by plane,
// with its planes' factors as the product computes them), the step's parameters, and the streams
// the multi-block probes spread their launches over (as StarPU's workers a GPU do).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "codelets/material.hpp"
#include "core/layout.hpp"

namespace probe {

inline void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  std::exit(2);
}

// Values in [-0.5, 0.5) from a fixed linear congruential sequence: every run starts alike.
struct Random {
  uint32_t x = 12345;
  float operator()() { return (x = x * 1664525u + 1013904223u) / 4294967296.0f - 0.5f; }
};

struct HostBlock {
  std::vector<float> v, s, mat;  // components x cells; the material buffer (arrays, then the planes' factors)
};
inline HostBlock host_block(const ondes::BlockShape& sh, Random& rnd) {
  using namespace ondes;
  const int64_t n = sh.cells();
  HostBlock h{std::vector<float>(kVelocityComponents * n), std::vector<float>(kStressComponents * n),
              std::vector<float>(sh.material_floats())};
  for (auto& f : h.v) f = rnd();
  for (auto& f : h.s) f = rnd();
  for (int64_t q = 0; q < n; ++q) {
    const int k = int(q / sh.sz()) - kGhost;
    const float vs = 2000.0f + 4.0f * k, vp = 1.8f * vs, rho = 2500.0f + k;
    const float mu = rho * vs * vs, lam = rho * vp * vp - 2 * mu;
    h.mat[RHO * n + q] = rho, h.mat[LAM * n + q] = lam, h.mat[IMU * n + q] = 1.0f / mu;
  }
  cpu::fill_plane_factors(sh, h.mat.data());
  return h;
}

// A step's parameters over shape sh with the PmlBox b (the cells outside the PML): a 50 m grid,
// 1 ms steps, material uniform by plane, no free surface.
inline ondes::StepParams step_params(const ondes::BlockShape& sh, const ondes::PmlBox& b) {
  ondes::StepParams p;
  p.shape = sh, p.dt = 1e-3f, p.dt_h = 1e-3f / 50.0f, p.inv_h = 1.0f / 50.0f, p.pml = b, p.uniform_planes = 1;
  return p;
}

// kCount streams; join() makes every stream wait for the work queued on all of them so far.
struct Streams {
  static constexpr int kCount = 4;  // StarPU's workers a GPU
  cudaStream_t at[kCount];
  cudaEvent_t done[kCount];
  Streams() {
    for (auto& st : at) check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "stream");
    for (auto& e : done) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event");
  }
  ~Streams() {
    for (int k = 0; k < kCount; ++k) cudaStreamDestroy(at[k]), cudaEventDestroy(done[k]);
  }
  Streams(const Streams&) = delete;
  Streams& operator=(const Streams&) = delete;
  cudaStream_t operator[](size_t b) const { return at[b % kCount]; }  // block b's stream
  void join() {
    for (int k = 1; k < kCount; ++k) cudaEventRecord(done[k], at[k]), cudaStreamWaitEvent(at[0], done[k], 0);
    cudaEventRecord(done[0], at[0]);
    for (int k = 1; k < kCount; ++k) cudaStreamWaitEvent(at[k], done[0], 0);
  }
};

}  // namespace probe
