#include "app/simulation.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <starpu.h>
#include <starpu_mpi.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "app/progress.hpp"
#include "io/checkpoint.hpp"
#include "tasks/codelets.hpp"
#include "tasks/profile.hpp"
#include "codelets/cpu_kernels.hpp"
#include "tasks/submit.hpp"

namespace ondes {

std::vector<std::string> scheduler_names() {
  std::vector<std::string> names;
  for (starpu_sched_policy** p = starpu_sched_get_predefined_policies(); *p; ++p) names.push_back((*p)->policy_name);
  return names;
}

namespace {
bool g_mpi = false;  // the live Runtime started StarPU-MPI

int env_int(std::initializer_list<const char*> names, int fallback) {
  for (const char* n : names)
    if (const char* v = std::getenv(n)) return std::atoi(v);
  return fallback;
}
}  // namespace

// Open MPI, MPICH / Intel MPI (PMI), PMIx launchers and Slurm's srun.
bool launched_by_mpi() { return env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}, 0) > 0; }
int launch_rank() { return env_int({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}, 0); }
int launch_size() { return env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}, 1); }
int launch_local_size() { return env_int({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}, 1); }

void abort_all_ranks(int code) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
}

int Runtime::rank() { return g_mpi ? starpu_mpi_world_rank() : 0; }
int Runtime::ranks() { return g_mpi ? starpu_mpi_world_size() : 1; }
bool Runtime::distributed() { return g_mpi; }

namespace {
// mpirun binds each rank to one core by default when there are 2 ranks or fewer: StarPU's workers,
// its MPI progress thread and the GPU drivers would then take turns on that core (measured: a
// 2-rank, 2-GPU run 28 times slower than 1 GPU).
void warn_if_bound_to_one_core() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) > 1) return;
  if (std::thread::hardware_concurrency() < 2) return;
  spdlog::warn("this rank is bound to a single core, which StarPU's workers and its MPI thread would share; "
               "start with mpirun --bind-to none (or --map-by ...:PE=N to give each rank N cores)");
}

// Ranks of one run sharing a node: StarPU would bind every rank's workers from core 0 up, piling
// them onto the same cores. Unless told otherwise (STARPU_NCPU, STARPU_WORKERS_*), give each rank
// an equal share of the cores, unbound, and leave binding to the MPI launcher.
void share_node_cores(starpu_conf& conf) {
  const int local = launch_local_size();
  if (local <= 1) return;
  if (!std::getenv("STARPU_WORKERS_NOBIND") && !std::getenv("STARPU_WORKERS_CPUID")) {
    setenv("STARPU_WORKERS_NOBIND", "1", 0);
    setenv("STARPU_MPI_NOBIND", "1", 0);
  }
  if (conf.ncpus < 0 && !std::getenv("STARPU_NCPU")) {
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    conf.ncpus = std::max(1, cores / local - 1);  // one core of each share drives MPI
  }
}
}  // namespace

Runtime::Runtime(const std::string& scheduler, int ncpu, int ncuda, bool mpi) {
  // StarPU 1.3 reads a model's `benchmarking` flag separately when a task starts and when it ends;
  // a model that turns to benchmarking mid-task (a block size it has not seen) leaves the start time
  // unset and fails its assertion "measured >= 0" (seen on the H100 with CPU + CUDA workers). Models
  // that benchmark from the start never turn: they keep learning, which is what the lab wants.
  // STARPU_CALIBRATE set by the user wins.
  setenv("STARPU_CALIBRATE", "1", 0);
  // Microsecond tasks (sources, recording, PGV) vary by more than StarPU's default 50% from run to
  // run; each such sample flushed the history and printed a warning on every run. Keep the history
  // unless a sample is 10x off (the user's STARPU_HISTORY_MAX_ERROR wins).
  setenv("STARPU_HISTORY_MAX_ERROR", "1000", 0);
  starpu_conf conf;
  starpu_conf_init(&conf);
  if (ncpu >= 0) conf.ncpus = ncpu;
  if (mpi) {
    warn_if_bound_to_one_core();
    share_node_cores(conf);
  }
  if (ncuda >= 0) conf.ncuda = ncuda;
  if (!scheduler.empty()) {
    const auto names = scheduler_names();
    if (std::find(names.begin(), names.end(), scheduler) == names.end())
      throw std::runtime_error(fmt::format("unknown scheduler '{}'; StarPU offers: {}", scheduler,
                                           fmt::join(names, ", ")));
    conf.sched_policy_name = scheduler.c_str();
  }
  const int ret = mpi ? starpu_mpi_init_conf(nullptr, nullptr, 1, MPI_COMM_WORLD, &conf) : starpu_init(&conf);
  if (ret != 0) throw std::runtime_error(fmt::format("StarPU{} could not start (error {})", mpi ? "-MPI" : "", ret));
  g_mpi = mpi;
}

Runtime::~Runtime() {
  if (g_mpi) {
    starpu_mpi_shutdown();  // shuts StarPU down as well, and MPI
    g_mpi = false;
  } else {
    starpu_shutdown();
  }
}

std::string Runtime::scheduler() const {
  const starpu_sched_policy* p = starpu_sched_ctx_get_sched_policy(0);
  return p && p->policy_name ? p->policy_name : "";
}
int Runtime::cpu_workers() const { return starpu_worker_get_count_by_type(STARPU_CPU_WORKER); }
int Runtime::cuda_workers() const { return starpu_worker_get_count_by_type(STARPU_CUDA_WORKER); }

namespace {
void check_mpi(int ret, const char* what) {
  if (ret != 0) throw std::runtime_error(fmt::format("{} failed (StarPU-MPI error {})", what, ret));
}

// Read (or write) access to a handle's main-memory copy for the scope; a null handle is skipped.
struct Acquired {
  starpu_data_handle_t h;
  Acquired(starpu_data_handle_t handle, starpu_data_access_mode mode) : h(handle) {
    if (h) starpu_data_acquire(h, mode);
  }
  ~Acquired() {
    if (h) starpu_data_release(h);
  }
};

// Idle StarPU workers poll for tasks; while the main thread fills gigabytes of arrays they would
// take its cores (60% of a large case's set-up time on 2 cores). Paused workers sleep instead.

struct PausedWorkers {
  PausedWorkers() { starpu_pause(); }
  ~PausedWorkers() { starpu_resume(); }
};
}  // namespace

Simulation::Simulation(const Case& c, int steps) : case_(c), steps_(steps) {
  PausedWorkers paused;
  const Decomposition d = decompose(c.grid, c.run.nbx, c.run.nby);
  const RankMap map = map_blocks(c.grid, d, Runtime::ranks(), parse_mapping(c.run.mapping));
  const int rank = Runtime::rank();
  blocks_ = build_blocks(c, d, map, rank);
  stations_ = build_station_groups(c, d, steps, map, rank);
  register_handles(blocks_);
  register_station_groups(stations_);
  halo_ = build_halo(blocks_, map, rank);
  if (c.snapshots.every > 0)
    snapshots_ = std::make_unique<SnapshotRecorder>(c, blocks_, map, rank, snapshot_path(c));
  stats_.tasks_per_iteration = tasks_per_iteration(blocks_, stations_, rank) +
                               (snapshots_ ? snapshots_->tasks_per_iteration() : 0);
  stats_.bytes_sent_per_iteration = halo_.bytes_sent_per_iteration();
  stats_.station_groups_across_ranks =
      static_cast<int>(std::count_if(stations_.begin(), stations_.end(), [](const StationGroup& g) { return g.sampled; }));
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

unsigned long long Simulation::small_where() const {
  const bool pin = case_.run.small_tasks == "auto" && starpu_worker_get_count_by_type(STARPU_CUDA_WORKER) > 0;
  return pin ? STARPU_CUDA : STARPU_CPU | STARPU_CUDA;
}

// Each block's velocity peak is computed by a task where the velocity lives, then read back
// asynchronously (starpu_data_acquire_cb): the main thread never waits for it.
void Simulation::watch(int iteration) {
  for (BlockData& b : blocks_) {
    if (!b.local) continue;
    WatchArgs a{b.info.shape};
    const int ret = starpu_task_insert(&codelets().watch, STARPU_R, b.h_velocity, STARPU_W, b.h_peak, STARPU_VALUE, &a,
                                       sizeof(a), STARPU_EXECUTE_WHERE, small_where(), 0);
    if (ret != 0) throw std::runtime_error(fmt::format("submitting watch_velocity failed (StarPU error {})", ret));
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
    plan.base.dt = static_cast<float>(case_.time.dt);
    plan.base.dt_h = static_cast<float>(case_.time.dt / case_.grid.h);
    plan.base.inv_h = static_cast<float>(1.0 / case_.grid.h);
    plan.base.free_surface = case_.boundaries.free_surface;
    plan.nsteps = steps_;
    plan.dt = case_.time.dt;
    plan.on_stress_done = &stress_done;
    plan.callback_arg = &progress;
    plan.rank = Runtime::rank();
    plan.small_where = small_where();
    // Bound the tasks in flight (memory) without synchronising: StarPU only blocks submission
    // while more than a window of iterations is pending.
    const unsigned window = static_cast<unsigned>(stats_.tasks_per_iteration * case_.run.window);
    const int every = case_.run.watchdog_every;
    for (; done < n; ++done) {
      if (g_stop_signal || alarm()) break;
      const int it = iteration_ + done;
      submit_iteration(blocks_, stations_, halo_, plan, it);
      if (every > 0 && (it + 1) % every == 0) watch(it);
      if (snapshots_) snapshots_->submit(it, plan.small_where);
      starpu_task_wait_for_n_submitted(window);
      if (snapshots_) snapshots_->flush();
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
void require_one_process(const char* what) {
  if (Runtime::ranks() > 1)
    throw std::runtime_error(fmt::format("{} works in single-process runs only (this run has {} MPI ranks)", what,
                                         Runtime::ranks()));
}
}  // namespace

void Simulation::save_checkpoint(const std::string& path) {
  require_one_process("checkpointing");
  starpu_task_wait_for_all();
  int64_t pml_cells = 0;
  for (const BlockData& b : blocks_) pml_cells += b.pml_cells;
  CheckpointWriter w(path, case_, iteration_, pml_cells);
  for (BlockData& b : blocks_) {
    Acquired v(b.h_velocity, STARPU_R), s(b.h_stress, STARPU_R), pml(b.h_pml, STARPU_R);
    w.write_fields(b.info.x0, b.info.y0, b.info.shape, b.velocity, b.stress);
    if (b.pml)
      w.write_pml(global_pml_cells(b, case_.grid),
                  reinterpret_cast<const float*>(b.pml + PmlLayout::of(b.info.shape, b.pml_cells).psi_offset));
  }
  w.write_seismograms(seismograms());
  w.commit();
}

// The boundary buffers are rebuilt from the restored fields: at the end of an iteration they hold
// exactly the edges of the current velocity and stress.
void Simulation::restore_checkpoint(const std::string& path) {
  require_one_process("restarting");
  CheckpointReader r(path, case_);
  for (BlockData& b : blocks_) {
    Acquired v(b.h_velocity, STARPU_RW), s(b.h_stress, STARPU_RW), pml(b.h_pml, STARPU_RW);
    r.read_fields(b.info.x0, b.info.y0, b.info.shape, b.velocity, b.stress);
    if (b.pml)
      r.read_pml(global_pml_cells(b, case_.grid),
                 reinterpret_cast<float*>(b.pml + PmlLayout::of(b.info.shape, b.pml_cells).psi_offset));
    for (int dir = 0; dir < kDirections; ++dir) {
      if (b.velocity_out[dir].empty()) continue;
      Acquired vo(b.h_velocity_out[dir], STARPU_W), so(b.h_stress_out[dir], STARPU_W);
      const Box box = edge_box(b.info.shape, dir);
      cpu::save_box(b.info.shape, kVelocityComponents, box, b.velocity, b.velocity_out[dir].data());
      cpu::save_box(b.info.shape, kStressComponents, box, b.stress, b.stress_out[dir].data());
    }
  }
  const std::vector<float> seis = r.seismograms();
  for (StationGroup& g : stations_) {
    Acquired t(g.h_traces, STARPU_RW);
    for (size_t q = 0; q < g.station_ids.size(); ++q)
      std::copy_n(seis.begin() + g.station_ids[q] * 3 * steps_, 3 * steps_, g.traces.begin() + q * 3 * steps_);
  }
  iteration_ = r.iteration();
}

// Rank 0 takes every group's traces in group order, from itself or from the group's home; the
// other ranks send theirs in the same order, so the blocking calls pair up.
std::vector<float> Simulation::seismograms() {
  const int rank = Runtime::rank();
  std::vector<float> out(rank == 0 ? case_.stations.size() * 3 * steps_ : 0, 0.0f);
  for (StationGroup& g : stations_) {
    if (rank != 0) {
      if (g.home == rank)
        check_mpi(starpu_mpi_send(g.h_traces, 0, trace_tag(g.id), MPI_COMM_WORLD), "sending traces");
      continue;
    }
    std::vector<float> remote;
    const float* traces = g.traces.data();
    Acquired local(g.home == 0 ? g.h_traces : nullptr, STARPU_R);
    if (g.home != 0) {
      remote.assign(g.points.size() * 3 * steps_, 0.0f);
      starpu_data_handle_t h;
      starpu_vector_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(remote.data()), remote.size(),
                                  sizeof(float));
      MPI_Status status;
      check_mpi(starpu_mpi_recv(h, g.home, trace_tag(g.id), MPI_COMM_WORLD, &status), "receiving traces");
      starpu_data_unregister(h);
      traces = remote.data();
    }
    for (size_t q = 0; q < g.station_ids.size(); ++q)
      std::copy_n(traces + q * 3 * steps_, 3 * steps_, out.begin() + g.station_ids[q] * 3 * steps_);
  }
  return out;
}

void Simulation::finish_snapshots() {
  if (snapshots_) snapshots_->finish();
}

double Simulation::energy() {
  const Grid& g = case_.grid;
  const int w = case_.boundaries.pml_width;
  const int k0 = case_.boundaries.free_surface ? 0 : w, k1 = g.nz - w;
  double e = 0;
  for (BlockData& b : blocks_) {
    if (!b.local) continue;
    const BlockInfo& in = b.info;
    const int i0 = std::max(w - in.x0, 0), i1 = std::min(g.nx - w - in.x0, in.shape.nx);
    const int j0 = std::max(w - in.y0, 0), j1 = std::min(g.ny - w - in.y0, in.shape.ny);
    if (i0 >= i1 || j0 >= j1) continue;
    Acquired v(b.h_velocity, STARPU_R), s(b.h_stress, STARPU_R), m(b.h_material, STARPU_R);
    e += cpu::energy(in.shape, b.velocity, b.stress, b.material, i0, i1, j0, j1, k0, k1, g.h);
  }
  return e;
}

}  // namespace ondes
