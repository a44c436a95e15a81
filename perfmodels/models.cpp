#include "perfmodels/models.hpp"

#include <cstring>
#include <initializer_list>

#include "tasks/codelets.hpp"

namespace ondes {
namespace {

void history_model(starpu_perfmodel& m, const char* symbol) {
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_HISTORY_BASED;
  m.symbol = symbol;
}

bool is_compute(const starpu_task* task) {
  return task->cl == &codelets().velocity || task->cl == &codelets().stress;
}

uint32_t hash(std::initializer_list<int64_t> values) {
  uint32_t h = 0;
  for (int64_t v : values) {
    h = starpu_hash_crc32c_be(static_cast<uint32_t>(v), h);
    h = starpu_hash_crc32c_be(static_cast<uint32_t>(v >> 32), h);
  }
  return h;
}

// The history key: what makes two tasks of a codelet cost the same.
uint32_t footprint(starpu_task* task) {
  if (is_compute(task)) {
    const auto a = task_args<ComputeArgs>(task->cl_arg);
    const BlockShape& s = a.params.shape;
    return hash({s.nx, s.ny, s.nz, a.pml_cells, a.neighbour_mask});
  }
  const auto a = task_args<SaveArgs>(task->cl_arg);
  const Box b = edge_box(a.shape, a.dir);
  return hash({b.ni, b.nj, a.shape.nz, a.ncomp});
}

size_t size_base(starpu_task* task, unsigned) { return model_size(task); }

void regression_model(starpu_perfmodel& m, const char* symbol) {
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_NL_REGRESSION_BASED;
  m.symbol = symbol;
  m.size_base = size_base;
  m.footprint = footprint;
}

}  // namespace

size_t model_size(starpu_task* task) {
  if (is_compute(task)) return static_cast<size_t>(task_args<ComputeArgs>(task->cl_arg).params.shape.cells());
  const auto a = task_args<SaveArgs>(task->cl_arg);
  const Box b = edge_box(a.shape, a.dir);
  return static_cast<size_t>(b.ni) * b.nj * a.shape.nz * a.ncomp;
}

PerfModels& perf_models() {
  static PerfModels models = [] {
    PerfModels p;
    regression_model(p.velocity, "ondes3d_compute_velocity");
    regression_model(p.stress, "ondes3d_compute_stress");
    regression_model(p.save_boundary, "ondes3d_save_boundary");
    history_model(p.update_source, "ondes3d_update_source");
    history_model(p.record, "ondes3d_record_seismograms");
    history_model(p.sample, "ondes3d_sample_stations");
    history_model(p.watch, "ondes3d_watch_velocity");
    history_model(p.plane, "ondes3d_extract_plane");
    history_model(p.pgv, "ondes3d_update_pgv");
    return p;
  }();
  return models;
}

}  // namespace ondes
