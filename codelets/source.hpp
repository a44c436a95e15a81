// Sources: each point adds coef * s(t) to one value of a field (force points to the velocity,
// moment points to the stress; physics/grid_setup.hpp makes them). Sampled time functions read
// their samples from `samples` (the block's, of that field kind; SourcePoint::sample0).
#pragma once
#include "codelets/kernel_support.hpp"
#include "physics/stf.hpp"

namespace ondes {

// Source points are sorted by the value they update (source_target). The run of points starting
// at q0 on one value, summed in double in their order: one float rounding per value and step
// however many points share it (a finite fault puts hundreds on one), the same on CPU and GPU.
// Sets *end to the first point after the run.
ONDES_HD inline double source_run(const SourcePoint* points, const double* samples, int64_t q0, int64_t count,
                                  int64_t cells, double t, int64_t* end) {
  const int64_t target = source_target(points[q0], cells);
  double sum = 0;
  int64_t q = q0;
  for (; q < count && source_target(points[q], cells) == target; ++q) {
    const SourcePoint& sp = points[q];
    sum += sp.coef * stf_value(sp.stf, sp.f0, sp.t0, sp.duration, t, samples + sp.sample0);
  }
  *end = q;
  return sum;
}

}  // namespace ondes

namespace ondes::cpu {
// field[comp][idx] += coef * s(t) for each point.
void apply_sources(float* field, int64_t cells, const SourcePoint* points, int64_t count, const double* samples,
                   double t);
}  // namespace ondes::cpu

namespace ondes::cuda {
void apply_sources(float* field, int64_t cells, const SourcePoint* points, int64_t count, const double* samples,
                   double t, cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

void apply_sources(float* field, int64_t cells, const SourcePoint* points, int64_t count, const double* samples,
                   double t) {
  for (int64_t q = 0, end = 0; q < count; q = end) {
    const double sum = source_run(points, samples, q, count, cells, t, &end);
    field[source_target(points[q], cells)] += static_cast<float>(sum);
  }
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

// A thread per source point; the first of each run of points on one value adds the run (see
// source_run): runs are independent, so a finite fault's points go in parallel without atomics.
__global__ void sources_kernel(float* field, int64_t cells, const SourcePoint* points, int64_t count,
                               const double* samples, double t) {
  const int64_t q = thread_index();
  if (q >= count || (q > 0 && source_target(points[q - 1], cells) == source_target(points[q], cells))) return;
  int64_t end = 0;
  const double sum = source_run(points, samples, q, count, cells, t, &end);
  field[source_target(points[q], cells)] += static_cast<float>(sum);
}

}  // namespace

void apply_sources(float* field, int64_t cells, const SourcePoint* points, int64_t count, const double* samples,
                   double t, cudaStream_t stream) {
  if (count <= 0) return;
  sources_kernel<<<blocks_for(count, 128), 128, 0, stream>>>(field, cells, points, count, samples, t);
  check_launch("sources_kernel");
}

}  // namespace ondes::cuda
#endif
