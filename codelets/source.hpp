// Sources: each point adds coef * s(t) to one value of a field (force points to the velocity,
// moment points to the stress; physics/source_points.cpp makes them), s the time function of its
// emitter (core/layout.hpp SourceEmitter). Sampled time functions read their samples from
// `samples` (the block's, of that field kind; SourceEmitter::sample0).
#pragma once
#include <vector>

#include "codelets/kernel_support.hpp"
#include "physics/stf.hpp"

namespace ondes {

ONDES_HD inline double emitter_value(const SourceEmitter& e, const double* samples, double t) {
  return stf_value(e.stf, e.f0, e.t0, e.duration, t, samples + e.sample0);
}

// The run of points starting at p (its length p->run) on one value, summed in double in their
// order, value(emitter) the emitter's s(t): one float rounding per value and step however many
// points share it (a finite fault puts hundreds on one), the same on CPU and GPU. The terms are
// taken kSourceBatch at a time before they are added (in the same order): a GPU thread waits on
// their loads together rather than one after another.
constexpr int kSourceBatch = 8;
template <class Value>
ONDES_HD inline double source_run(const SourcePoint* p, Value&& value) {
  double sum = 0;
  const int32_t n = p->run;
  int32_t r = 0;
  for (; r + kSourceBatch <= n; r += kSourceBatch) {
    double term[kSourceBatch];
    ONDES_UNROLL
    for (int i = 0; i < kSourceBatch; ++i) term[i] = p[r + i].coef * value(p[r + i].emitter);
    ONDES_UNROLL
    for (int i = 0; i < kSourceBatch; ++i) sum += term[i];
  }
  for (; r < n; ++r) sum += p[r].coef * value(p[r].emitter);
  return sum;
}

}  // namespace ondes

namespace ondes::cpu {
// field[target] += coef * s(t) for each point.
void apply_sources(float* field, const SourcePoint* points, int64_t count, const SourceEmitter* emitters,
                   int64_t nemitters, const double* samples, double t);
}  // namespace ondes::cpu

namespace ondes::cuda {
void apply_sources(float* field, const SourcePoint* points, int64_t count, const SourceEmitter* emitters,
                   int64_t nemitters, const double* samples, double t, cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

// Each emitter's s(t) once, then the runs.
void apply_sources(float* field, const SourcePoint* points, int64_t count, const SourceEmitter* emitters,
                   int64_t nemitters, const double* samples, double t) {
  thread_local std::vector<double> value;
  value.resize(static_cast<size_t>(nemitters));
  for (int64_t e = 0; e < nemitters; ++e) value[e] = emitter_value(emitters[e], samples, t);
  for (int64_t q = 0; q < count; q += points[q].run)
    field[points[q].target] += static_cast<float>(source_run(points + q, [&](int32_t e) { return value[e]; }));
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {
namespace {

// A thread per source point; the first of each run adds the run (source_run), each point's s(t)
// from its emitter (the same function, the same bits as the CPU's value of it): runs are
// independent, so a finite fault's points go in parallel without atomics.
__global__ void sources_kernel(float* field, const SourcePoint* points, int64_t count, const SourceEmitter* emitters,
                               const double* samples, double t) {
  const int64_t q = thread_index();
  if (q >= count || points[q].run == 0) return;
  const double sum = source_run(points + q, [&](int32_t e) { return emitter_value(emitters[e], samples, t); });
  field[points[q].target] += static_cast<float>(sum);
}

}  // namespace

void apply_sources(float* field, const SourcePoint* points, int64_t count, const SourceEmitter* emitters, int64_t,
                   const double* samples, double t, cudaStream_t stream) {
  if (count <= 0) return;
  sources_kernel<<<blocks_for(count, 128), 128, 0, stream>>>(field, points, count, emitters, samples, t);
  check_launch("sources_kernel");
}

}  // namespace ondes::cuda
#endif
