#include "tasks/codelets.hpp"

#include <cstring>
#include <initializer_list>

#include "codelets/cpu_kernels.hpp"
#include "perfmodels/models.hpp"
#include "tasks/profile.hpp"

#if defined(STARPU_USE_CUDA) && defined(ONDES_HAVE_CUDA_KERNELS)
#define ONDES_CUDA_CODELETS 1
#include "codelets/cuda_kernels.hpp"
#endif

namespace ondes {
namespace {

template <class T>
T* ptr(void* buffer) {
  return reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(buffer));
}

// The two backends, with one signature per operation; the task bodies below serve both.
struct Cpu {
  static void load_box(const BlockShape& s, int nc, const Box& b, const float* buf, float* f) {
    cpu::load_box(s, nc, b, buf, f);
  }
  static void save_box(const BlockShape& s, int nc, const Box& b, const float* f, float* buf) {
    cpu::save_box(s, nc, b, f, buf);
  }
  static void velocity(const StepParams& p, float* v, const float* s, const float* m, char* pml, int64_t n) {
    cpu::compute_velocity(p, v, s, m, pml, n);
  }
  static void stress(const StepParams& p, float* s, const float* v, const float* m, char* pml, int64_t n) {
    cpu::compute_stress(p, s, v, m, pml, n);
  }
  static void sources(float* f, int64_t cells, const SourcePoint* pts, int64_t n, double t) {
    cpu::apply_sources(f, cells, pts, n, t);
  }
  static void record(const StationBlocks& b, const StationPoint* st, int64_t n, int step, int nsteps, float* traces) {
    cpu::record(b, st, n, step, nsteps, traces);
  }
  static void sample(const float* v, int64_t cells, const StationPoint* st, int64_t n, int slot, float* out) {
    cpu::sample_stations(v, cells, st, n, slot, out);
  }
  static void peak(const BlockShape& s, const float* v, float* out) { *out = cpu::velocity_peak(s, v); }
  static void plane(const PlaneArgs& p, const float* v, float* out) { cpu::extract_plane(p, v, out); }
  static void pgv(const BlockShape& s, const float* v, float* out) { cpu::update_pgv(s, v, out); }
};

#ifdef ONDES_CUDA_CODELETS
struct Gpu {
  static cudaStream_t stream() { return starpu_cuda_get_local_stream(); }
  static void load_box(const BlockShape& s, int nc, const Box& b, const float* buf, float* f) {
    cuda::load_box(s, nc, b, buf, f, stream());
  }
  static void save_box(const BlockShape& s, int nc, const Box& b, const float* f, float* buf) {
    cuda::save_box(s, nc, b, f, buf, stream());
  }
  static void velocity(const StepParams& p, float* v, const float* s, const float* m, char* pml, int64_t n) {
    cuda::compute_velocity(p, v, s, m, pml, n, stream());
  }
  static void stress(const StepParams& p, float* s, const float* v, const float* m, char* pml, int64_t n) {
    cuda::compute_stress(p, s, v, m, pml, n, stream());
  }
  static void sources(float* f, int64_t cells, const SourcePoint* pts, int64_t n, double t) {
    cuda::apply_sources(f, cells, pts, n, t, stream());
  }
  static void record(const StationBlocks& b, const StationPoint* st, int64_t n, int step, int nsteps, float* traces) {
    cuda::record(b, st, n, step, nsteps, traces, stream());
  }
  static void sample(const float* v, int64_t cells, const StationPoint* st, int64_t n, int slot, float* out) {
    cuda::sample_stations(v, cells, st, n, slot, out, stream());
  }
  static void peak(const BlockShape& s, const float* v, float* out) { cuda::velocity_peak(s, v, out, stream()); }
  static void plane(const PlaneArgs& p, const float* v, float* out) { cuda::extract_plane(p, v, out, stream()); }
  static void pgv(const BlockShape& s, const float* v, float* out) { cuda::update_pgv(s, v, out, stream()); }
};
#endif

// compute_velocity / compute_stress: fill the ghosts of the other field from the neighbours'
// boundary buffers, then update. Buffers: see ComputeArgs.
template <class B, bool Velocity>
void compute_task(void* buffers[], void* cl_arg) {
  const auto a = task_args<ComputeArgs>(cl_arg);
  float* other = ptr<float>(buffers[1]);
  int next = 3;
  char* pml = a.has_pml ? ptr<char>(buffers[next++]) : nullptr;
  const int ncomp = Velocity ? kStressComponents : kVelocityComponents;
  for (int dir = 0; dir < kDirections; ++dir)
    if (a.neighbour_mask & (1 << dir))
      B::load_box(a.params.shape, ncomp, ghost_box(a.params.shape, dir), ptr<float>(buffers[next++]), other);
  if (Velocity)
    B::velocity(a.params, ptr<float>(buffers[0]), other, ptr<float>(buffers[2]), pml, a.pml_cells);
  else
    B::stress(a.params, ptr<float>(buffers[0]), other, ptr<float>(buffers[2]), pml, a.pml_cells);
}

template <class B>
void save_boundary_task(void* buffers[], void* cl_arg) {
  const auto a = task_args<SaveArgs>(cl_arg);
  B::save_box(a.shape, a.ncomp, edge_box(a.shape, a.dir), ptr<float>(buffers[0]), ptr<float>(buffers[1]));
}

template <class B>
void update_source_task(void* buffers[], void* cl_arg) {
  const auto a = task_args<SourceArgs>(cl_arg);
  B::sources(ptr<float>(buffers[0]), a.cells, ptr<SourcePoint>(buffers[1]), STARPU_VECTOR_GET_NX(buffers[1]), a.time);
}

template <class B>
void record_task(void* buffers[], void* cl_arg) {
  const auto a = task_args<RecordArgs>(cl_arg);
  StationBlocks blocks{};
  for (int s = 0; s < a.nblocks; ++s) {
    blocks.v[s] = ptr<float>(buffers[2 + s]);
    blocks.cells[s] = a.cells[s];
  }
  B::record(blocks, ptr<StationPoint>(buffers[0]), STARPU_VECTOR_GET_NX(buffers[0]), a.step, a.nsteps,
            ptr<float>(buffers[1]));
}

template <class B>
void sample_task(void* buffers[], void* cl_arg) {
  const auto a = task_args<SampleArgs>(cl_arg);
  B::sample(ptr<float>(buffers[0]), a.cells, ptr<StationPoint>(buffers[1]), STARPU_VECTOR_GET_NX(buffers[1]), a.slot,
            ptr<float>(buffers[2]));
}

template <class B>
void watch_task(void* buffers[], void* cl_arg) {
  const auto a = task_args<WatchArgs>(cl_arg);
  B::peak(a.shape, ptr<float>(buffers[0]), ptr<float>(buffers[1]));
}

template <class B>
void plane_task(void* buffers[], void* cl_arg) {
  B::plane(task_args<PlaneArgs>(cl_arg), ptr<float>(buffers[0]), ptr<float>(buffers[1]));
}

template <class B>
void pgv_task(void* buffers[], void* cl_arg) {
  B::pgv(task_args<BlockShape>(cl_arg), ptr<float>(buffers[0]), ptr<float>(buffers[1]));
}

using TaskFunc = void (*)(void*[], void*);

void define(starpu_codelet& cl, const char* name, TaskFunc cpu_f, TaskFunc cuda_f, int nbuffers,
            starpu_perfmodel* model, std::initializer_list<starpu_data_access_mode> modes = {}) {
  std::memset(&cl, 0, sizeof(cl));
  cl.name = name;
  cl.cpu_funcs[0] = cpu_f;
  cl.cpu_funcs_name[0] = name;
#ifdef ONDES_CUDA_CODELETS
  cl.cuda_funcs[0] = cuda_f;
  cl.cuda_flags[0] = STARPU_CUDA_ASYNC;
#else
  (void)cuda_f;
#endif
  cl.nbuffers = nbuffers;
  int i = 0;
  for (auto m : modes) cl.modes[i++] = m;
  cl.model = model;
  cl.callback_func = profile::task_ended;  // for tasks without a callback of their own
}

#ifdef ONDES_CUDA_CODELETS
#define ONDES_CUDA_FUNC(f) f<Gpu>
#define ONDES_CUDA_FUNC2(f, v) f<Gpu, v>
#else
#define ONDES_CUDA_FUNC(f) nullptr
#define ONDES_CUDA_FUNC2(f, v) nullptr
#endif

}  // namespace

bool cuda_codelets_built() {
#ifdef ONDES_CUDA_CODELETS
  return true;
#else
  return false;
#endif
}

Codelets& codelets() {
  static Codelets c = [] {
    Codelets k;
    PerfModels& m = perf_models();
    define(k.velocity, "compute_velocity", compute_task<Cpu, true>, ONDES_CUDA_FUNC2(compute_task, true),
           STARPU_VARIABLE_NBUFFERS, &m.velocity);
    define(k.stress, "compute_stress", compute_task<Cpu, false>, ONDES_CUDA_FUNC2(compute_task, false),
           STARPU_VARIABLE_NBUFFERS, &m.stress);
    define(k.save_boundary, "save_boundary", save_boundary_task<Cpu>, ONDES_CUDA_FUNC(save_boundary_task), 2,
           &m.save_boundary, {STARPU_R, STARPU_W});
    define(k.update_source, "update_source", update_source_task<Cpu>, ONDES_CUDA_FUNC(update_source_task), 2,
           &m.update_source, {STARPU_RW, STARPU_R});
    define(k.record, "record_seismograms", record_task<Cpu>, ONDES_CUDA_FUNC(record_task), STARPU_VARIABLE_NBUFFERS,
           &m.record);
    define(k.sample, "sample_stations", sample_task<Cpu>, ONDES_CUDA_FUNC(sample_task), 3, &m.sample,
           {STARPU_R, STARPU_R, STARPU_W});
    define(k.watch, "watch_velocity", watch_task<Cpu>, ONDES_CUDA_FUNC(watch_task), 2, &m.watch,
           {STARPU_R, STARPU_W});
    define(k.plane, "extract_plane", plane_task<Cpu>, ONDES_CUDA_FUNC(plane_task), 2, &m.plane, {STARPU_R, STARPU_W});
    define(k.pgv, "update_pgv", pgv_task<Cpu>, ONDES_CUDA_FUNC(pgv_task), 2, &m.pgv, {STARPU_R, STARPU_RW});
    return k;
  }();
  return c;
}

}  // namespace ondes
