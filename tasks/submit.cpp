#include "tasks/submit.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "tasks/codelets.hpp"

namespace ondes {
namespace {

void check(int ret, const char* what) {
  if (ret != 0) throw std::runtime_error(fmt::format("submitting {} failed (StarPU error {})", what, ret));
}

// compute_velocity or compute_stress of one block.
void submit_compute(std::vector<BlockData>& blocks, BlockData& b, const IterationPlan& plan, bool velocity) {
  starpu_data_descr d[STARPU_NMAXBUFS];
  int n = 0;
  d[n++] = {velocity ? b.h_velocity : b.h_stress, STARPU_RW};
  d[n++] = {velocity ? b.h_stress : b.h_velocity, STARPU_RW};
  d[n++] = {b.h_material, STARPU_R};
  ComputeArgs a;
  a.params = plan.base;
  a.params.shape = b.info.shape;
  if (b.h_pml) {
    d[n++] = {b.h_pml, STARPU_RW};
    a.has_pml = 1;
    a.pml_cells = b.pml_cells;
  }
  for (int dir = 0; dir < kDirections; ++dir) {
    const int nb = b.info.neighbour[dir];
    if (nb < 0) continue;
    const BlockData& other = blocks[nb];
    d[n++] = {velocity ? other.h_stress_out[opposite(dir)] : other.h_velocity_out[opposite(dir)], STARPU_R};
    a.neighbour_mask |= 1 << dir;
  }
  Codelets& cl = codelets();
  if (velocity) {
    check(starpu_task_insert(&cl.velocity, STARPU_DATA_MODE_ARRAY, d, n, STARPU_VALUE, &a, sizeof(a), 0),
          "compute_velocity");
  } else {
    check(starpu_task_insert(&cl.stress, STARPU_DATA_MODE_ARRAY, d, n, STARPU_VALUE, &a, sizeof(a),
                             STARPU_CALLBACK_WITH_ARG_NFREE, plan.on_stress_done, plan.callback_arg, 0),
          "compute_stress");
  }
}

void submit_saves(BlockData& b, bool velocity) {
  for (int dir = 0; dir < kDirections; ++dir) {
    if (b.info.neighbour[dir] < 0) continue;
    SaveArgs a{b.info.shape, velocity ? kVelocityComponents : kStressComponents, dir};
    check(starpu_task_insert(&codelets().save_boundary, STARPU_R, velocity ? b.h_velocity : b.h_stress, STARPU_W,
                             velocity ? b.h_velocity_out[dir] : b.h_stress_out[dir], STARPU_VALUE, &a, sizeof(a), 0),
          "save_boundary");
  }
}

void submit_source(starpu_data_handle_t field, starpu_data_handle_t points, int64_t cells, double t) {
  if (!points) return;
  SourceArgs a{cells, t};
  check(starpu_task_insert(&codelets().update_source, STARPU_RW, field, STARPU_R, points, STARPU_VALUE, &a,
                           sizeof(a), 0),
        "update_source");
}

void submit_record(std::vector<BlockData>& blocks, StationGroup& g, const IterationPlan& plan, int n) {
  starpu_data_descr d[2 + kMaxStationBlocks];
  d[0] = {g.h_points, STARPU_R};
  d[1] = {g.h_traces, STARPU_RW};
  RecordArgs a;
  a.step = n;
  a.nsteps = plan.nsteps;
  a.nblocks = static_cast<int>(g.blocks.size());
  for (int s = 0; s < a.nblocks; ++s) {
    d[2 + s] = {blocks[g.blocks[s]].h_velocity, STARPU_R};
    a.cells[s] = blocks[g.blocks[s]].info.shape.cells();
  }
  check(starpu_task_insert(&codelets().record, STARPU_DATA_MODE_ARRAY, d, 2 + a.nblocks, STARPU_VALUE, &a, sizeof(a),
                           0),
        "record_seismograms");
}

}  // namespace

void submit_iteration(std::vector<BlockData>& blocks, std::vector<StationGroup>& stations, const IterationPlan& plan,
                      int n) {
  const double t = n * plan.dt;
  for (BlockData& b : blocks) submit_compute(blocks, b, plan, true);
  for (BlockData& b : blocks) submit_source(b.h_velocity, b.h_force, b.info.shape.cells(), t);
  for (BlockData& b : blocks) submit_saves(b, true);
  for (BlockData& b : blocks) submit_compute(blocks, b, plan, false);
  for (BlockData& b : blocks) submit_source(b.h_stress, b.h_moment, b.info.shape.cells(), t + 0.5 * plan.dt);
  for (BlockData& b : blocks) submit_saves(b, false);
  // Velocity is at t_{n+1/2} until the next iteration's compute_velocity.
  for (StationGroup& g : stations) submit_record(blocks, g, plan, n);
}

int tasks_per_iteration(const std::vector<BlockData>& blocks, const std::vector<StationGroup>& stations) {
  int n = static_cast<int>(stations.size());
  for (const BlockData& b : blocks) {
    n += 2 + (b.h_force != nullptr) + (b.h_moment != nullptr);
    for (int dir = 0; dir < kDirections; ++dir) n += 2 * (b.info.neighbour[dir] >= 0);
  }
  return n;
}

}  // namespace ondes
