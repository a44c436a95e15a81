// What bench/'s CUDA probes share: the check of a CUDA call, and the host state they start from (a
// block's fields of small pseudo-random values, and a layered medium: material uniform by plane,
// with its planes' factors as the product computes them).
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

}  // namespace probe
