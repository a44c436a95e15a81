#include "tasks/codelets.hpp"

#include <cstring>
#include <initializer_list>

#include "codelets/cpu_kernels.hpp"
#include "perfmodels/models.hpp"

namespace ondes {
namespace {

template <class T>
T* ptr(void* buffer) {
  return reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(buffer));
}

template <class Args>
Args args_of(void* cl_arg) {
  Args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  return a;
}

// Fills the ghosts of `field` from the neighbours' boundary buffers; returns the PML buffer.
char* prepare(void* buffers[], const ComputeArgs& a, float* field, int ncomp) {
  int next = 3;
  char* pml = a.has_pml ? ptr<char>(buffers[next++]) : nullptr;
  for (int dir = 0; dir < kDirections; ++dir)
    if (a.neighbour_mask & (1 << dir))
      cpu::load_box(a.params.shape, ncomp, ghost_box(a.params.shape, dir), ptr<float>(buffers[next++]), field);
  return pml;
}

void velocity_cpu(void* buffers[], void* cl_arg) {
  const auto a = args_of<ComputeArgs>(cl_arg);
  float* stress = ptr<float>(buffers[1]);
  char* pml = prepare(buffers, a, stress, kStressComponents);
  cpu::compute_velocity(a.params, ptr<float>(buffers[0]), stress, ptr<float>(buffers[2]), pml);
}

void stress_cpu(void* buffers[], void* cl_arg) {
  const auto a = args_of<ComputeArgs>(cl_arg);
  float* velocity = ptr<float>(buffers[1]);
  char* pml = prepare(buffers, a, velocity, kVelocityComponents);
  cpu::compute_stress(a.params, ptr<float>(buffers[0]), velocity, ptr<float>(buffers[2]), pml);
}

void save_boundary_cpu(void* buffers[], void* cl_arg) {
  const auto a = args_of<SaveArgs>(cl_arg);
  cpu::save_box(a.shape, a.ncomp, edge_box(a.shape, a.dir), ptr<float>(buffers[0]), ptr<float>(buffers[1]));
}

void update_source_cpu(void* buffers[], void* cl_arg) {
  const auto a = args_of<SourceArgs>(cl_arg);
  cpu::apply_sources(ptr<float>(buffers[0]), a.cells, ptr<SourcePoint>(buffers[1]),
                     STARPU_VECTOR_GET_NX(buffers[1]), a.time);
}

void record_cpu(void* buffers[], void* cl_arg) {
  const auto a = args_of<RecordArgs>(cl_arg);
  const float* v[kMaxStationBlocks];
  for (int s = 0; s < a.nblocks; ++s) v[s] = ptr<float>(buffers[2 + s]);
  cpu::record(v, a.cells, ptr<StationPoint>(buffers[0]), STARPU_VECTOR_GET_NX(buffers[0]), a.step, a.nsteps,
              ptr<float>(buffers[1]));
}

void define(starpu_codelet& cl, const char* name, starpu_cpu_func_t f, int nbuffers, starpu_perfmodel* model,
            std::initializer_list<starpu_data_access_mode> modes = {}) {
  std::memset(&cl, 0, sizeof(cl));
  cl.name = name;
  cl.cpu_funcs[0] = f;
  cl.cpu_funcs_name[0] = name;
  cl.nbuffers = nbuffers;
  int i = 0;
  for (auto m : modes) cl.modes[i++] = m;
  cl.model = model;
}

}  // namespace

Codelets& codelets() {
  static Codelets c = [] {
    Codelets k;
    PerfModels& m = perf_models();
    define(k.velocity, "compute_velocity", velocity_cpu, STARPU_VARIABLE_NBUFFERS, &m.velocity);
    define(k.stress, "compute_stress", stress_cpu, STARPU_VARIABLE_NBUFFERS, &m.stress);
    define(k.save_boundary, "save_boundary", save_boundary_cpu, 2, &m.save_boundary, {STARPU_R, STARPU_W});
    define(k.update_source, "update_source", update_source_cpu, 2, &m.update_source, {STARPU_RW, STARPU_R});
    define(k.record, "record_seismograms", record_cpu, STARPU_VARIABLE_NBUFFERS, &m.record);
    return k;
  }();
  return c;
}

}  // namespace ondes
