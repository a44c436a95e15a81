#include "tasks/submit.hpp"

#include <fmt/format.h>
#include <starpu_mpi.h>

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

void submit_saves(BlockData& b, bool velocity, unsigned long long where) {
  for (int dir = 0; dir < kDirections; ++dir) {
    if (b.info.neighbour[dir] < 0) continue;
    SaveArgs a{b.info.shape, velocity ? kVelocityComponents : kStressComponents, dir};
    check(starpu_task_insert(&codelets().save_boundary, STARPU_R, velocity ? b.h_velocity : b.h_stress, STARPU_W,
                             velocity ? b.h_velocity_out[dir] : b.h_stress_out[dir], STARPU_VALUE, &a, sizeof(a),
                             STARPU_EXECUTE_WHERE, where, 0),
          "save_boundary");
  }
}

void submit_source(starpu_data_handle_t field, starpu_data_handle_t points, int64_t cells, double t,
                   unsigned long long where) {
  if (!points) return;
  SourceArgs a{cells, t};
  check(starpu_task_insert(&codelets().update_source, STARPU_RW, field, STARPU_R, points, STARPU_VALUE, &a,
                           sizeof(a), STARPU_EXECUTE_WHERE, where, 0),
        "update_source");
}

void send(const Transfer& t) {
  check(starpu_mpi_isend_detached(t.handle, t.peer, t.tag, MPI_COMM_WORLD, nullptr, nullptr), "an MPI send");
}

void receive(const Transfer& t) {
  check(starpu_mpi_irecv_detached(t.handle, t.peer, t.tag, MPI_COMM_WORLD, nullptr, nullptr), "an MPI receive");
}

// The record task reads the blocks' velocity directly, or for a group spread over ranks, the
// samples of each slot (components 0 cells apart, see StationGroup).
void submit_record(std::vector<BlockData>& blocks, StationGroup& g, const IterationPlan& plan, int n) {
  starpu_data_descr d[2 + kMaxStationBlocks];
  d[0] = {g.sampled ? g.h_sample_points : g.h_points, STARPU_R};
  d[1] = {g.h_traces, STARPU_RW};
  RecordArgs a;
  a.step = n;
  a.nsteps = plan.nsteps;
  a.nblocks = static_cast<int>(g.blocks.size());
  for (int s = 0; s < a.nblocks; ++s) {
    const BlockData& b = blocks[g.blocks[s]];
    d[2 + s] = {g.sampled ? g.h_samples[s] : b.h_velocity, STARPU_R};
    a.cells[s] = g.sampled ? 0 : b.info.shape.cells();
  }
  check(starpu_task_insert(&codelets().record, STARPU_DATA_MODE_ARRAY, d, 2 + a.nblocks, STARPU_VALUE, &a, sizeof(a),
                           STARPU_EXECUTE_WHERE, plan.small_where, 0),
        "record_seismograms");
}

// This rank's part of a group's recording: samples of its slots (sent home unless it is home),
// the samples of other ranks received, and the record task on the home rank.
void submit_station_group(std::vector<BlockData>& blocks, StationGroup& g, const IterationPlan& plan, int n) {
  if (!g.involved) return;
  if (g.sampled)
    for (size_t s = 0; s < g.blocks.size(); ++s) {
      const Transfer t{g.h_samples[s], g.home == plan.rank ? g.owners[s] : g.home, sample_tag(g.id, int(s)), 0};
      if (g.owners[s] == plan.rank) {
        const BlockData& b = blocks[g.blocks[s]];
        SampleArgs a{b.info.shape.cells(), static_cast<int>(s)};
        check(starpu_task_insert(&codelets().sample, STARPU_R, b.h_velocity, STARPU_R, g.h_points, STARPU_W,
                                 g.h_samples[s], STARPU_VALUE, &a, sizeof(a), STARPU_EXECUTE_WHERE, plan.small_where, 0),
              "sample_stations");
        if (g.home != plan.rank) send(t);
      } else if (g.home == plan.rank) {
        receive(t);
      }
    }
  if (g.home == plan.rank) submit_record(blocks, g, plan, n);
}

}  // namespace

void submit_iteration(std::vector<BlockData>& blocks, std::vector<StationGroup>& stations, const Halo& halo,
                      const IterationPlan& plan, int n) {
  const double t = n * plan.dt;
  for (BlockData& b : blocks)
    if (b.local) submit_compute(blocks, b, plan, true);
  for (BlockData& b : blocks)
    if (b.local) submit_source(b.h_velocity, b.h_force, b.info.shape.cells(), t, plan.small_where);
  for (BlockData& b : blocks)
    if (b.local) submit_saves(b, true, plan.small_where);
  for (const Transfer& x : halo.send[kVelocityKind]) send(x);
  for (const Transfer& x : halo.recv[kVelocityKind]) receive(x);
  for (BlockData& b : blocks)
    if (b.local) submit_compute(blocks, b, plan, false);
  for (BlockData& b : blocks)
    if (b.local) submit_source(b.h_stress, b.h_moment, b.info.shape.cells(), t + 0.5 * plan.dt, plan.small_where);
  for (BlockData& b : blocks)
    if (b.local) submit_saves(b, false, plan.small_where);
  for (const Transfer& x : halo.send[kStressKind]) send(x);
  for (const Transfer& x : halo.recv[kStressKind]) receive(x);
  // Velocity is at t_{n+1/2} until the next iteration's compute_velocity.
  for (StationGroup& g : stations) submit_station_group(blocks, g, plan, n);
}

int tasks_per_iteration(const std::vector<BlockData>& blocks, const std::vector<StationGroup>& stations, int rank) {
  int n = 0;
  for (const StationGroup& g : stations) {
    if (g.home == rank) ++n;
    if (g.sampled)
      for (int r : g.owners) n += r == rank;
  }
  for (const BlockData& b : blocks) {
    if (!b.local) continue;
    n += 2 + (b.h_force != nullptr) + (b.h_moment != nullptr);
    for (int dir = 0; dir < kDirections; ++dir) n += 2 * (b.info.neighbour[dir] >= 0);
  }
  return n;
}

}  // namespace ondes
