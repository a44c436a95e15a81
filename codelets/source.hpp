// Sources: each point adds coef * s(t) to one value of a field (force points to the velocity,
// moment points to the stress; physics/source_points.cpp makes them), s the time function of its
// emitter (core/layout.hpp SourceEmitter), evaluated once a step for all its points into `values`
// (a scratch buffer of one double an emitter). Sampled time functions read their samples from
// `samples` (the block's, of that field kind; SourceEmitter::sample0).
#pragma once
#include "codelets/kernel_support.hpp"
#include "physics/stf.hpp"

namespace ondes {

ONDES_HD inline double emitter_value(const SourceEmitter& e, const double* samples, double t) {
  return stf_value(e.stf, e.f0, e.t0, e.duration, t, samples + e.sample0);
}

// A point's term at a step: its coefficient times its emitter's value.
ONDES_HD inline double source_term(const SourcePoint& p, const double* values) { return p.coef * values[p.emitter]; }

// The run of points starting at p (its length p->run) on one value, its terms summed in double in
// their order: one float rounding per value and step however many points share it (a finite fault
// puts dozens on one), the same on CPU and GPU.
ONDES_HD inline double source_run(const SourcePoint* p, const double* values) {
  double sum = 0;
  const int32_t n = p->run;
  for (int32_t r = 0; r < n; ++r) sum += source_term(p[r], values);
  return sum;
}

// The sources of one field kind of a block, as a task holds them.
struct SourceArgs {
  const SourcePoint* points;
  int64_t count;
  const SourceEmitter* emitters;
  int64_t nemitters;
  const double* samples;
  double* values;  // scratch: nemitters doubles
};

}  // namespace ondes

namespace ondes::cpu {
// field[target] += coef * s(t) for each point.
void apply_sources(float* field, const SourceArgs& a, double t);
}  // namespace ondes::cpu

namespace ondes::cuda {
void apply_sources(float* field, const SourceArgs& a, double t, cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

// Each emitter's s(t) once, then the runs.
void apply_sources(float* field, const SourceArgs& a, double t) {
  for (int64_t e = 0; e < a.nemitters; ++e) a.values[e] = emitter_value(a.emitters[e], a.samples, t);
  for (int64_t q = 0; q < a.count; q += a.points[q].run)
    field[a.points[q].target] += static_cast<float>(source_run(a.points + q, a.values));
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

// A thread per emitter: its s(t) into values.
__global__ void emitters_kernel(const SourceEmitter* emitters, int64_t n, const double* samples, double t,
                                double* values) {
  const int64_t e = thread_index();
  if (e < n) values[e] = emitter_value(emitters[e], samples, t);
}

// A thread per source point puts its term (coef times its emitter's value) in shared memory; the
// first point of each run then adds the run: its terms summed in their order, from shared memory
// within the thread block and from the points past its end (source_run's products and sums, hence
// its bits). Runs are independent, so a finite fault's points go in parallel without atomics.
// Why the terms first: with each run's points read one after another by its first thread, a warp
// waited on one or two lanes' loads for dozens of iterations (docs/performance.md, Decisions:
// source runs).
constexpr int kSourceThreads = 128;
__global__ void __launch_bounds__(kSourceThreads)
    sources_kernel(float* field, const SourcePoint* points, int64_t count, const double* values) {
  __shared__ double terms[kSourceThreads];
  const int64_t q = thread_index();
  const int t = threadIdx.x;
  SourcePoint p{};
  if (q < count) p = points[q], terms[t] = source_term(p, values);
  __syncthreads();
  if (q >= count || p.run == 0) return;
  const int here = min(p.run, kSourceThreads - t);
  double sum = 0;
  for (int r = 0; r < here; ++r) sum += terms[t + r];
  for (int r = here; r < p.run; ++r) sum += source_term(points[q + r], values);
  field[p.target] += static_cast<float>(sum);
}

}  // namespace

void apply_sources(float* field, const SourceArgs& a, double t, cudaStream_t stream) {
  if (a.count <= 0) return;
  emitters_kernel<<<blocks_for(a.nemitters, 128), 128, 0, stream>>>(a.emitters, a.nemitters, a.samples, t, a.values);
  check_launch("emitters_kernel");
  const int64_t blocks = blocks_for(a.count, kSourceThreads);
  sources_kernel<<<blocks, kSourceThreads, 0, stream>>>(field, a.points, a.count, a.values);
  check_launch("sources_kernel");
}

}  // namespace ondes::cuda
#endif
