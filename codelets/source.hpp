// Sources: each point adds coef * s(t) to one value of a field (force points to the velocity,
// moment points to the stress; physics/source_points.cpp makes them), s the time function of its
// emitter (core/layout.hpp SourceEmitter), evaluated once a step for all its points into `values`
// (a scratch buffer of one double an emitter). Sampled time functions read their samples from
// `samples` (the block's, of that field kind; SourceEmitter::sample0).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "codelets/kernel_support.hpp"
#include "physics/stf.hpp"

namespace ondes {

ONDES_HD inline double emitter_value(const SourceEmitter& e, const double* samples, double t) {
  return stf_value(e.stf, e.f0, e.t0, e.duration, t, samples + e.sample0, e.stride);
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
  const SourceRun* runs;  // the CPU's (cpu::source_runs)
  int64_t nruns;
};

}  // namespace ondes

namespace ondes::cpu {
// field[target] += coef * s(t) for each point.
void apply_sources(float* field, const SourceArgs& a, double t);
// The runs of a block's points (sorted by target, runs marked: physics/grid_setup.hpp source_points),
// with their sums where their held emitters hold still (core/layout.hpp SourceRun).
std::vector<SourceRun> source_runs(const SourcePoint* points, int64_t count, const SourceEmitter* emitters,
                                   int64_t nemitters, const double* samples);
}  // namespace ondes::cpu

namespace ondes::cuda {
void apply_sources(float* field, const SourceArgs& a, double t, cudaStream_t stream);
}  // namespace ondes::cuda

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

// The runs: each one's sum where its emitters hold still, else summed (each emitter's s(t) taken once
// a step, before the first run that sums).
void apply_sources(float* field, const SourceArgs& a, double t) {
  bool evaluated = false;
  double clock = 0;
  int64_t n = 0;  // the held step on `clock`
  for (int64_t r = 0; r < a.nruns; ++r) {
    const SourceRun& run = a.runs[r];
    if (run.clock != clock) clock = run.clock, n = clock > 0 ? step_at(clock, t) : 0;
    float add;
    if (clock > 0 && n < run.from) {
      add = run.before;
    } else if (clock > 0 && n >= run.to) {
      add = run.after;
    } else {
      if (!evaluated)
        for (int64_t e = 0; e < a.nemitters; ++e) a.values[e] = emitter_value(a.emitters[e], a.samples, t);
      evaluated = true;
      add = static_cast<float>(source_run(a.points + run.first, a.values));
    }
    field[run.target] += add;
  }
}

namespace {
constexpr int32_t kNever = std::numeric_limits<int32_t>::max();
// The held steps n >= 1 at which held emitter e's value differs from step n - 1's (bitwise): the
// first and the last, {kNever, 0} where it never changes.
std::pair<int32_t, int32_t> held_changes(const SourceEmitter& e, const double* samples) {
  const double* s = samples + e.sample0;
  int32_t first = kNever, last = 0;
  for (int64_t n = 1; n < int64_t(e.duration); ++n)
    if (std::memcmp(s + n * e.stride, s + (n - 1) * e.stride, sizeof(double)) != 0) {
      first = std::min(first, int32_t(n));
      last = int32_t(n);
    }
  return {first, last};
}
}  // namespace

std::vector<SourceRun> source_runs(const SourcePoint* points, int64_t count, const SourceEmitter* emitters,
                                   int64_t nemitters, const double* samples) {
  std::vector<std::pair<int32_t, int32_t>> changes(nemitters);
  for (int64_t e = 0; e < nemitters; ++e)
    if (emitters[e].stf == StfKind::Held) changes[e] = held_changes(emitters[e], samples);
  std::vector<double> values(nemitters);
  // The run's sum at held step n, its emitters' values put in `values`.
  auto at_step = [&](const SourcePoint* p, int32_t n) {
    for (int32_t r = 0; r < p->run; ++r) {
      const SourceEmitter& e = emitters[p[r].emitter];
      values[p[r].emitter] = emitter_value(e, samples, double(n) * e.t0);
    }
    return static_cast<float>(source_run(p, values.data()));
  };
  std::vector<SourceRun> runs;
  for (int64_t q = 0; q < count; q += points[q].run) {
    const SourcePoint* p = points + q;
    SourceRun run{p->target, q, emitters[p->emitter].t0, kNever, 0, 0.0f, 0.0f};
    for (int32_t r = 0; r < p->run; ++r) {
      const SourceEmitter& e = emitters[p[r].emitter];
      if (e.stf != StfKind::Held || e.t0 != run.clock) run.clock = 0;
      run.from = std::min(run.from, changes[p[r].emitter].first);
      run.to = std::max(run.to, changes[p[r].emitter].second);
    }
    if (run.clock > 0) run.before = at_step(p, 0), run.after = at_step(p, run.to);
    runs.push_back(run);
  }
  return runs;
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
