#include "app/simulation.hpp"

#include <starpu.h>
#include <starpu_mpi.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "app/progress.hpp"
#include "io/checkpoint.hpp"
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
// Idle StarPU workers poll for tasks; while the main thread fills gigabytes of arrays they would
// take its cores (60% of a large case's set-up time on 2 cores). Paused workers sleep instead.

struct PausedWorkers {
  PausedWorkers() { starpu_pause(); }
  ~PausedWorkers() { starpu_resume(); }
};
}  // namespace

Simulation::Simulation(const Case& c, int steps) : case_(c), steps_(steps) {
  PausedWorkers paused;
  const Decomposition d = decompose(c);
  const RankMap map = map_blocks(c.grid, d, Runtime::ranks(), parse_mapping(c.run.mapping));
  const int rank = Runtime::rank();
  blocks_ = build_blocks(c, d, map, rank);
  const auto local = std::count_if(blocks_.begin(), blocks_.end(), [](const BlockData& b) { return b.local; });
  const auto by_plane = std::count_if(blocks_.begin(), blocks_.end(), [](const BlockData& b) { return b.uniform_planes; });
  spdlog::info("material uniform in every plane in {} of {} blocks (read once a plane by the CPU and CUDA kernels)", by_plane, local);
  const bool in_stress = samples_in_stress(d);
  stations_ = build_station_groups(c, d, steps, map, rank,
                                   in_stress ? StationSampling::All
                                   : case_.tuning.gpu_affinity && cuda_devices().size() > 1 ? StationSampling::AcrossBlocks
                                                                                  : StationSampling::Ranks);
  register_handles(blocks_);
  place_compute(d);
  pin_to_gpus(d);
  register_station_groups(stations_);
  if (in_stress) attach_station_slots(rank);
  mark_frontiers(map);
  halo_ = build_halo(blocks_, map, rank);
  for (const BlockInfo& b : d.blocks) owner_.push_back(map.owner(b.id));
  if (c.snapshots.every > 0)
    snapshots_ = std::make_unique<SnapshotRecorder>(c, blocks_, map, rank, snapshot_path(c));
  stats_.bytes_sent_per_iteration = halo_.bytes_sent_per_iteration();
  stats_.station_groups_across_ranks = static_cast<int>(std::count_if(stations_.begin(), stations_.end(), [](const StationGroup& g) {
    return std::any_of(g.owners.begin(), g.owners.end(), [&](int r) { return r != g.home; });
  }));
}

namespace {
volatile std::sig_atomic_t g_stop_signal = 0;

// What the watchdog's asynchronous read of a block's peak needs to know.
struct PeakProbe {
  Simulation* sim;
  BlockData* block;
  int iteration;
  double limit;
};
}  // namespace

void Simulation::request_stop(int signal) { g_stop_signal = signal; }
int Simulation::stop_signal() { return g_stop_signal; }

std::optional<WatchdogAlarm> Simulation::alarm() const {
  std::lock_guard<std::mutex> g(alarm_mutex_);
  return alarm_;
}

void Simulation::place_compute(const Decomposition& d) {
  const int gpus = static_cast<int>(starpu_worker_get_count_by_type(STARPU_CUDA_WORKER));
  if (case_.run.cpu_compute != "auto" || gpus == 0) return;
  std::vector<int> mine;
  for (const BlockData& b : blocks_)
    if (b.local) mine.push_back(b.info.id);
  const std::vector<bool> may = cpu_may_compute(case_, d, mine, gpus);
  int pinned = 0;
  for (BlockData& b : blocks_)
    if (b.local && !may[b.info.id]) {
      b.compute_where = STARPU_CUDA;
      ++pinned;
    }
  if (pinned > 0)
    spdlog::info("run.cpu_compute = auto: {} of {} blocks computed on the GPUs only (a CPU worker would take longer "
                 "than the GPUs' iteration); --cpu-compute any leaves them to the scheduler",
                 pinned, mine.size());
}

// Where the stations' corners are read in a run of several blocks: by each block's compute_stress
// task, after its update (the default), or by sample_stations / record_seismograms tasks of their
// own (the policy's stress_station_slots = 0). Why: a task reading a block's velocity after its stress update holds
// back the block's next velocity update (the stress task writes the velocity's ghosts, so the two
// cannot overlap): one more dependent task a step on the stations' blocks, and the frontier strips
// of two GPUs hold a station in benchmark.toml. A one-block run records in its step task.
bool Simulation::samples_in_stress(const Decomposition& d) const {
  return d.blocks.size() > 1 && case_.tuning.stress_station_slots > 0;
}

// Each local block's compute_stress samples up to stress_station_slots of its slots (the policy's;
// tests mix both ways); sample_stations tasks take the others.
void Simulation::attach_station_slots(int rank) {
  const int most = std::clamp(case_.tuning.stress_station_slots, 0, kMaxStressSlots);
  for (StationGroup& g : stations_) {
    if (!g.involved) continue;
    for (size_t s = 0; s < g.blocks.size(); ++s) {
      BlockData& b = blocks_[g.blocks[s]];
      if (g.owners[s] != rank || b.station_slots.size() >= size_t(most)) continue;
      b.station_slots.push_back({g.h_points, g.h_samples[s], static_cast<int>(s)});
      g.in_stress[s] = true;
    }
  }
}

std::vector<int> Simulation::cuda_devices() {
  std::vector<int> devices;
  const int n = static_cast<int>(starpu_worker_get_count());
  for (int w = 0; w < n; ++w)
    if (starpu_worker_get_type(w) == STARPU_CUDA_WORKER) {
      const int dev = starpu_worker_get_devid(w);
      if (std::find(devices.begin(), devices.end(), dev) == devices.end()) devices.push_back(dev);
    }
  std::sort(devices.begin(), devices.end());
  return devices;
}

// One process driving several GPUs: each block's tasks run on one GPU's workers (its CPU workers
// too where it lets them compute), the blocks tiled over the GPUs as ranks tile them, so that a
// block's fields stay on its GPU and only the halos cross. Left to the scheduler, dmda moved whole
// blocks between the GPUs (H200 x2, a 1024x512x256 grid in 2x1 blocks: 10-26 GiB moved in 100
// steps, both GPUs together as fast as one). Pinned, on 2 H200s: strong scaling 1.57x -> 1.70x,
// weak scaling 50% -> 96%, seismograms bitwise the CPU's (6bb2ab2:bench/results/gpu_h200x2_affinity.txt).
// On by default; the policy's gpu_affinity = false leaves the placement to the scheduler
// (scheduler studies).

void Simulation::pin_to_gpus(const Decomposition& d) {
  const std::vector<int> devices = cuda_devices();
  if (!case_.tuning.gpu_affinity || devices.size() < 2 || Runtime::ranks() > 1) return;
  const int n = static_cast<int>(starpu_worker_get_count());
  std::vector<std::vector<int>> groups(devices.size());
  for (int w = 0; w < n; ++w)
    if (starpu_worker_get_type(w) == STARPU_CUDA_WORKER)
      groups[std::find(devices.begin(), devices.end(), starpu_worker_get_devid(w)) - devices.begin()].push_back(w);
  if (pin_blocks(d, groups) > 0)
    spdlog::info("{} blocks tiled over {} GPUs, each block's tasks on its GPU", d.blocks.size(), devices.size());
}

int Simulation::pin_blocks(const Decomposition& d, const std::vector<std::vector<int>>& groups) {
  if (groups.size() < 2 || d.blocks.size() < groups.size()) return 0;
  RankMap group_of;
  try {
    group_of = map_blocks(case_.grid, d, static_cast<int>(groups.size()), Mapping::Tiles);
  } catch (const std::invalid_argument&) {
    group_of = map_blocks(case_.grid, d, static_cast<int>(groups.size()), Mapping::Cyclic);
  }
  mark_frontiers(group_of);
  const int n = static_cast<int>(starpu_worker_get_count());
  int pinned = 0;
  for (BlockData& b : blocks_) {
    if (!b.local) continue;
    b.workers = WorkerSet{};
    const std::vector<int>& group = groups[group_of.owner(b.info.id)];
    for (int w : group) b.workers.add(w);
    if (!group.empty()) b.node = static_cast<int>(starpu_worker_get_memory_node(group.front()));
    // Beside a GPU's workers, the CPU workers stay allowed where the block lets them compute.
    const bool gpu = std::any_of(group.begin(), group.end(),
                                 [](int w) { return starpu_worker_get_type(w) == STARPU_CUDA_WORKER; });
    if (gpu && (b.compute_where & STARPU_CPU))
      for (int w = 0; w < n; ++w)
        if (starpu_worker_get_type(w) == STARPU_CPU_WORKER) b.workers.add(w);
    ++pinned;
  }
  return pinned;
}

void Simulation::mark_frontiers(const RankMap& owner) {
  for (BlockData& b : blocks_)
    for (int nb : b.info.neighbour)
      if (b.local && nb >= 0 && owner.owner(nb) != owner.owner(b.info.id)) b.priority = 1;
}

unsigned long long Simulation::small_where() const {
  const bool pin = case_.run.small_tasks == "auto" && starpu_worker_get_count_by_type(STARPU_CUDA_WORKER) > 0;
  return pin ? STARPU_CUDA : STARPU_CPU | STARPU_CUDA;
}

// Every task of an iteration goes where compute_where (the blocks') or small_where allows: when
// both exclude the CPUs, no CPU worker can take any task of the run.
std::vector<int> Simulation::cpus_to_park() {
  if (!case_.tuning.park_cpus || starpu_worker_get_count_by_type(STARPU_CUDA_WORKER) == 0) return {};
  if (small_where() & STARPU_CPU) return {};
  for (const BlockData& b : blocks_)
    if (b.local && (b.compute_where & STARPU_CPU)) return {};
  std::vector<int> cpus = ParkedCpus::cpu_workers();
  if (!park_logged_ && !cpus.empty())
    spdlog::info("{} CPU workers parked while the steps run: every task goes to the GPUs (run.cpu_compute, "
                 "run.small_tasks); --tune park_cpus=false leaves them polling",
                 cpus.size());
  park_logged_ = true;
  return cpus;
}

// Each block's velocity peak is computed by a task where the velocity lives (watch_velocity, in
// the iteration's graph), then read back asynchronously (starpu_data_acquire_cb): the main thread
// never waits for it.
void Simulation::read_peaks(int iteration) {
  for (BlockData& b : blocks_) {
    if (!b.local) continue;
    auto* probe = new PeakProbe{this, &b, iteration, case_.run.watchdog_max_velocity};
    {
      std::lock_guard<std::mutex> g(alarm_mutex_);
      ++probes_in_flight_;
    }
    starpu_data_acquire_cb(b.h_peak, STARPU_R, &Simulation::on_peak, probe);
  }
}

void Simulation::on_peak(void* arg) {
  std::unique_ptr<PeakProbe> p(static_cast<PeakProbe*>(arg));
  const float peak = p->block->peak;
  starpu_data_release(p->block->h_peak);
  std::lock_guard<std::mutex> g(p->sim->alarm_mutex_);
  if (peak > p->limit && (!p->sim->alarm_ || p->iteration < p->sim->alarm_->iteration))  // +inf too (NaN)
    p->sim->alarm_ = WatchdogAlarm{p->iteration, p->block->info.id, peak};
  --p->sim->probes_in_flight_;
  p->sim->probes_done_.notify_all();
}

int Simulation::local_blocks() const {
  return static_cast<int>(std::count_if(blocks_.begin(), blocks_.end(), [](const BlockData& b) { return b.local; }));
}

Simulation::~Simulation() {
  starpu_task_wait_for_all();
  snapshots_.reset();  // its handles go before the blocks'
  release_station_groups(stations_);
  release_blocks(blocks_);
}

namespace {
// compute_stress's own callback, which replaces its codelet's: the profile and the progress counter.
void stress_done(void* progress) {
  profile::record(starpu_task_get_current());
  Progress::on_block_done(progress);
}
}  // namespace

int Simulation::advance(int n, bool show_progress) {
  n = std::min(n, steps_ - iteration_);
  if (n <= 0) return 0;
  int done = 0;
  const double cells = double(case_.grid.nx) * case_.grid.ny * case_.grid.nz;
  const auto start = std::chrono::steady_clock::now();
  {
    Progress progress(local_blocks(), iteration_, iteration_ + n, case_.time.dt, cells, show_progress);
    IterationPlan plan;
    plan.base = step_params(case_);
    plan.policy = case_.tuning;
    plan.nsteps = steps_;
    plan.dt = case_.time.dt;
    plan.on_stress_done = &stress_done;
    plan.callback_arg = &progress;
    plan.rank = Runtime::rank();
    plan.small_where = small_where();
    plan.watchdog_every = case_.run.watchdog_every;
    plan.snapshot_every = case_.snapshots.every;
    GraphData graph{blocks_, stations_, halo_};
    if (snapshots_) {
      graph.planes = &snapshots_->planes();
      graph.pgv = &snapshots_->pgv_handles();
    }
    {
      const ParkedCpus parked(cpus_to_park());  // until every step is submitted and done
      for (; done < n; ++done) {
        // Over MPI a rank never stops alone: the ranks vote between windows (app/driver.cpp).
        if (!Runtime::distributed() && (g_stop_signal || alarm())) break;
        const int it = iteration_ + done;
        const Submitted sub = submit_iteration(graph, plan, it);
        stats_.tasks_per_iteration = sub.tasks - sub.periodic;
        if (sub.watched) read_peaks(it);
        if (sub.frame) snapshots_->deliver(it);
        // Bound the tasks in flight (memory) without synchronising: StarPU only blocks submission
        // while more than a window of iterations is pending (of this thread's context: the parked
        // tasks are not in it).
        starpu_task_wait_for_n_submitted(static_cast<unsigned>(stats_.tasks_per_iteration * case_.run.window));
        if (snapshots_) snapshots_->flush();
      }
    }
    // Over MPI the last boundary messages may still be in flight: nothing waits for them here
    // (no barrier); unregistering the buffers at the end does.
    starpu_task_wait_for_all();
    // The watchdog's reads are not tasks: the last ones may still be on their way.
    std::unique_lock<std::mutex> lock(alarm_mutex_);
    probes_done_.wait(lock, [&] { return probes_in_flight_ == 0; });
  }
  iteration_ += done;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats_.steps += done;
  stats_.wall_seconds += wall;
  stats_.cell_updates_per_second = cells * stats_.steps / stats_.wall_seconds;
  return done;
}

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
      pml.resize(PmlLayout::of(b.shape, count).bytes);
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
      if (b.h_pml) check_starpu(starpu_mpi_send(b.h_pml, 0, checkpoint_tag(in.id, 2), MPI_COMM_WORLD), what);
      if (b.h_anelastic) check_starpu(starpu_mpi_send(b.h_anelastic, 0, checkpoint_tag(in.id, 3), MPI_COMM_WORLD), what);
      continue;
    }
    std::unique_ptr<RemoteBlock> remote;
    if (!b.local) remote = std::make_unique<RemoteBlock>(case_, in, owner_[in.id]);
    Acquired v(b.h_velocity, STARPU_R), s(b.h_stress, STARPU_R), pml(b.h_pml, STARPU_R), an(b.h_anelastic, STARPU_R);
    const char* pml_buffer = remote ? remote->pml.data() : b.pml;
    const int64_t count = region.cells_in(in.x0, in.shape.nx, in.y0, in.shape.ny, in.shape.nz);
    w->write_fields(in.x0, in.y0, in.shape, remote ? remote->velocity.data() : b.velocity,
                    remote ? remote->stress.data() : b.stress,
                    reinterpret_cast<const float*>(remote ? (remote->anelastic.empty() ? nullptr : remote->anelastic.data())
                                                           : b.anelastic));
    if (count > 0)
      w->write_pml(global_pml_cells(in, pml_buffer, count, case_.grid),
                   reinterpret_cast<const float*>(pml_buffer + PmlLayout::of(in.shape, count).psi_offset));
  }
  const std::vector<float> seis = seismograms();  // every rank takes part
  if (w) {
    w->write_seismograms(seis);
    w->commit();
  }
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
    r.read_fields(b.info.x0, b.info.y0, b.info.shape, b.velocity, b.stress, reinterpret_cast<float*>(b.anelastic));
    if (b.pml)
      r.read_pml(global_pml_cells(b.info, b.pml, b.pml_cells, case_.grid),
                 reinterpret_cast<float*>(b.pml + PmlLayout::of(b.info.shape, b.pml_cells).psi_offset));
  }
  submit_all_saves(blocks_, halo_, small_where());
  const std::vector<float> seis = r.seismograms();
  for (StationGroup& g : stations_) {
    if (g.home != rank) continue;
    Acquired t(g.h_traces, STARPU_RW);
    for (size_t q = 0; q < g.station_ids.size(); ++q)
      std::copy_n(seis.begin() + g.station_ids[q] * 3 * steps_, 3 * steps_, g.traces.begin() + q * 3 * steps_);
  }
  iteration_ = r.iteration();
}

std::vector<float> Simulation::seismograms() {
  const int rank = Runtime::rank();
  std::vector<float> out(rank == 0 ? case_.stations.size() * 3 * steps_ : 0, 0.0f);
  std::vector<GatherItem> items;
  for (const StationGroup& g : stations_)
    items.push_back({g.home, g.home == rank ? g.h_traces : nullptr, g.points.size() * 3 * steps_, trace_tag(g.id)});
  gather_to_root(rank, items, [&](size_t i, const float* traces) {
    const StationGroup& g = stations_[i];
    for (size_t q = 0; q < g.station_ids.size(); ++q)
      std::copy_n(traces + q * 3 * steps_, 3 * steps_, out.begin() + g.station_ids[q] * 3 * steps_);
  });
  return out;
}

void Simulation::finish_snapshots() {
  if (snapshots_) snapshots_->finish();
}

double Simulation::energy() {
  const PmlRegion pml = PmlRegion::of(case_);
  double e = 0;
  for (BlockData& b : blocks_) {
    if (!b.local) continue;
    const BlockInfo& in = b.info;
    const int i0 = std::max(pml.lo(0) - in.x0, 0), i1 = std::min(pml.hi(0) - in.x0, in.shape.nx);
    const int j0 = std::max(pml.lo(1) - in.y0, 0), j1 = std::min(pml.hi(1) - in.y0, in.shape.ny);
    if (i0 >= i1 || j0 >= j1) continue;
    Acquired v(b.h_velocity, STARPU_R), s(b.h_stress, STARPU_R), m(b.h_material, STARPU_R);
    e += ondes::energy(in.shape, b.velocity, b.stress, b.material, i0, i1, j0, j1, pml.lo(2), pml.hi(2), case_.grid.h);
  }
  return e;
}

}  // namespace ondes
