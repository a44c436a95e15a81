// Simulation's checkpoints (engine/simulation.hpp): rank 0 writes the one file, its blocks from
// memory and the others' as their owners send them; every rank reads back its own blocks.
#include "engine/simulation.hpp"
#include "core/case_error.hpp"

#include <starpu.h>
#include "partition/mpi.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "core/pml_layout.hpp"
#include "engine/progress.hpp"
#include "io/results/checkpoint.hpp"
#include "io/results/snapshot_file.hpp"
#include "perfmodels/cost_model.hpp"
#include "physics/grid_setup.hpp"
#include "physics/pml.hpp"
#include "tasks/gather.hpp"
#include "tasks/iteration.hpp"
#include "tasks/messages.hpp"
#include "tasks/park.hpp"
#include "tasks/profile.hpp"

namespace ondes {

namespace {
// A block's part of a checkpoint, received on rank 0 from its owner (blocking, in block order).
struct RemoteBlock {
  HostFloats velocity, stress;
  std::vector<char> pml, anelastic;
  RemoteBlock(const Case& c, const BlockInfo& b, int owner) {
    const int64_t n = b.shape.cells();
    velocity = HostFloats(kVelocityComponents * n);
    stress = HostFloats(kStressComponents * n);
    const char* what = "receiving a checkpoint part on rank 0";
    receive_now(velocity.data(), velocity.size() * sizeof(float), owner, checkpoint_tag(b.id, 0), what);
    receive_now(stress.data(), stress.size() * sizeof(float), owner, checkpoint_tag(b.id, 1), what);
    const int64_t count = PmlRegion::of(c).cells_in(b.x0, b.shape.nx, b.y0, b.shape.ny, b.shape.nz);
    if (count > 0) {
      pml.resize(size_t(PmlLayout::of(b.shape, count).state_bytes()));
      receive_now(pml.data(), pml.size(), owner, checkpoint_tag(b.id, 2), what);
    }
    if (const AnelasticShape q = anelastic_shape(c); q.mechanisms > 0) {
      anelastic.resize(AnelasticLayout::of(b.shape, q).bytes);
      receive_now(anelastic.data(), anelastic.size(), owner, checkpoint_tag(b.id, 3), what);
    }
  }
};
}  // namespace

// Rank 0 writes the one checkpoint file, its own blocks from memory and the others' as their owners
// send them, block after block in id order (so the blocking sends and receives pair up and rank 0
// holds one remote block at a time). The file is renamed into place only once complete.
void Simulation::save_checkpoint(const std::string& path) {
  starpu_task_wait_for_all();
  const int rank = Runtime::rank();
  const PmlRegion region = PmlRegion::of(case_);
  const AnelasticShape anelastic = anelastic_shape(case_);
  std::unique_ptr<CheckpointWriter> w;
  if (rank == 0) {
    int64_t pml_cells = 0;
    for (const BlockData& b : blocks_)
      pml_cells += region.cells_in(b.info.x0, b.info.shape.nx, b.info.y0, b.info.shape.ny, b.info.shape.nz);
    w = std::make_unique<CheckpointWriter>(path, case_, iteration_, pml_cells);
  }
  for (BlockData& b : blocks_) {
    const BlockInfo& in = b.info;
    if (rank != 0) {
      if (!b.local) continue;
      const char* what = "sending a checkpoint part";
      check_starpu(starpu_mpi_send(b.h_velocity, 0, checkpoint_tag(in.id, 0), MPI_COMM_WORLD), what);
      check_starpu(starpu_mpi_send(b.h_stress, 0, checkpoint_tag(in.id, 1), MPI_COMM_WORLD), what);
      if (b.h_pml) {  // the cells and their memory variables, not the profiles after them
        Acquired pml(b.h_pml, STARPU_R);
        send_now(b.pml, size_t(PmlLayout::of(in.shape, b.pml_cells).state_bytes()), 0, checkpoint_tag(in.id, 2), what);
      }
      if (b.h_anelastic) check_starpu(starpu_mpi_send(b.h_anelastic, 0, checkpoint_tag(in.id, 3), MPI_COMM_WORLD), what);
      continue;
    }
    std::unique_ptr<RemoteBlock> remote;
    if (!b.local) remote = std::make_unique<RemoteBlock>(case_, in, plan_.ranks.owner(in.id));
    Acquired v(b.h_velocity, STARPU_R), s(b.h_stress, STARPU_R), pml(b.h_pml, STARPU_R), an(b.h_anelastic, STARPU_R);
    const char* pml_buffer = remote ? remote->pml.data() : b.pml;
    const int64_t count = region.cells_in(in.x0, in.shape.nx, in.y0, in.shape.ny, in.shape.nz);
    const char* an_buffer = remote ? (remote->anelastic.empty() ? nullptr : remote->anelastic.data()) : b.anelastic;
    const std::vector<float> memory = an_buffer ? memory_floats(an_buffer, in.shape, anelastic) : std::vector<float>{};
    w->write_fields(in.x0, in.y0, in.shape, remote ? remote->velocity.data() : b.velocity,
                    remote ? remote->stress.data() : b.stress, an_buffer ? memory.data() : nullptr);
    if (count > 0)
      w->write_pml(global_pml_cells(in, pml_buffer, count, case_.grid),
                   reinterpret_cast<const float*>(pml_buffer + PmlLayout::of(in.shape, count).psi_offset));
  }
  const std::vector<float> seis = seismograms();  // every rank takes part
  std::vector<float> pgv;
  if (snapshots_ && case_.snapshots.pgv) pgv = snapshots_->pgv_map();  // every rank takes part
  std::map<size_t, std::vector<float>> displacement;
  if (snapshots_ && case_.snapshots.any_displacement()) displacement = snapshots_->displacement_planes();  // all ranks
  if (w) {
    w->write_seismograms(seis);
    if (snapshots_) w->write_snapshots(std::filesystem::absolute(snapshot_path(case_)).string(), pgv);
    for (const auto& [plane, sums] : displacement) w->write_displacement(plane_group(case_.snapshots.planes[plane]), sums);
    w->commit();
  }
}

// A restart's snapshots: the peak ground velocity map goes on from the checkpoint's, and the new
// snapshot file first takes the frames up to the restart from the file of the run the checkpoint
// came from (named in the checkpoint; else this run's own, an earlier run's of the same output),
// so that the series and the peaks are the uninterrupted run's.
void Simulation::restore_snapshots(CheckpointReader& r, const std::string& path) {
  const bool root = Runtime::rank() == 0;
  // The displacement planes go on from their sums in the checkpoint; one it lacks cannot.
  std::map<size_t, std::vector<float>> displacement;
  for (size_t p = 0; p < case_.snapshots.planes.size(); ++p) {
    const PlaneSpec& spec = case_.snapshots.planes[p];
    if (!spec.displacement) continue;
    const PlaneExtent e = plane_extent(case_.grid, spec);
    displacement[p] = r.displacement(plane_group(spec), 3 * size_t(e.n1) * e.n2);
    if (displacement[p].empty())
      throw CaseError(fmt::format("{}: holds no displacement sums for the plane {} (written by a run without it): "
                                  "restart without displacement snapshots (--snapshot-quantity velocity), or run "
                                  "from the start",
                                  path, spec.name));
  }
  if (!displacement.empty()) snapshots_->restore_displacement(displacement);
  if (case_.snapshots.pgv) {
    if (r.has_pgv())
      snapshots_->restore_pgv(r.pgv());
    else if (root)
      spdlog::warn("{} holds no peak ground velocity map: this run's covers the steps from iteration {} on", path,
                   r.iteration());
  }
  if (!root) return;
  if (const EarlierFrames earlier = earlier_frames(r.snapshot_file(), case_, r.iteration()); !earlier.frames.empty()) {
    snapshots_->carry_frames(earlier);
    spdlog::info("{} snapshot frames of the {} iterations before the restart carried over from {}",
                 earlier.frames.size(), r.iteration(), earlier.file);
  } else if (r.iteration() >= case_.snapshots.every)  // a frame was due by then
    spdlog::warn("{}", no_earlier_frames(r.snapshot_file(), case_, r.iteration()));
}

// Every rank reads its own blocks and the traces of the station groups it records from the one
// file, whatever the ranks, mapping or layout that wrote it. The boundary buffers are rebuilt from
// the restored fields: at the end of an iteration they hold exactly the edges of the current
// velocity and stress.
void Simulation::restore_checkpoint(const std::string& path) {
  CheckpointReader r(path, case_);
  const int rank = Runtime::rank();
  for (BlockData& b : blocks_) {
    if (!b.local) continue;
    Acquired v(b.h_velocity, STARPU_RW), s(b.h_stress, STARPU_RW), pml(b.h_pml, STARPU_RW),
        an(b.h_anelastic, STARPU_RW);
    std::vector<float> memory;
    if (b.anelastic) memory = memory_floats(b.anelastic, b.info.shape, b.anelastic_shape);
    r.read_fields(b.info.x0, b.info.y0, b.info.shape, b.velocity, b.stress, b.anelastic ? memory.data() : nullptr);
    if (b.anelastic) store_memory_floats(memory, b.anelastic, b.anelastic_shape);
    if (case_.boundaries.surface == SurfaceScheme::Ondes3d)
      r.read_surface_ghosts(b.info.x0, b.info.y0, b.info.shape, b.velocity);
    if (b.pml)
      r.read_pml(global_pml_cells(b.info, b.pml, b.pml_cells, case_.grid),
                 reinterpret_cast<float*>(b.pml + PmlLayout::of(b.info.shape, b.pml_cells).psi_offset));
  }
  submit_all_saves(blocks_, halo_, small_where());
  if (snapshots_) restore_snapshots(r, path);
  const std::vector<float> seis = r.seismograms();
  for (StationGroup& g : stations_) {
    if (g.home != rank) continue;
    Acquired t(g.h_traces, STARPU_RW);
    for (size_t q = 0; q < g.station_ids.size(); ++q)
      std::copy_n(seis.begin() + g.station_ids[q] * 3 * steps_, 3 * steps_, g.traces.begin() + q * 3 * steps_);
  }
  iteration_ = r.iteration();
}

}  // namespace ondes
