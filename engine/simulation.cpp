#include "engine/simulation.hpp"

#include <starpu.h>
#include "partition/mpi.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "engine/progress.hpp"
#include "io/results/checkpoint.hpp"
#include "perfmodels/cost_model.hpp"
#include "physics/grid_setup.hpp"
#include "physics/pml.hpp"
#include "tasks/gather.hpp"
#include "tasks/ipc_halos.hpp"
#include "tasks/iteration.hpp"
#include "tasks/messages.hpp"
#include "tasks/park.hpp"
#include "tasks/peer_halos.hpp"
#include "tasks/profile.hpp"

namespace ondes {

namespace {
// Idle StarPU workers poll for tasks; while the main thread fills gigabytes of arrays they would
// take its cores (docs/performance.md, Decisions: paused workers at set-up). Paused workers sleep
// instead.

struct PausedWorkers {
  PausedWorkers() { starpu_pause(); }
  ~PausedWorkers() { starpu_resume(); }
};
}  // namespace

Launch Simulation::current_launch() {
  Launch l;
  l.ranks = Runtime::ranks();
  l.gpus = static_cast<int>(cuda_devices().size());
  l.cuda_workers = static_cast<int>(starpu_worker_get_count_by_type(STARPU_CUDA_WORKER));
  l.cpu_workers = static_cast<int>(starpu_worker_get_count_by_type(STARPU_CPU_WORKER));
  l.simulated = simulated_runtime();
  return l;
}

Simulation::Simulation(const Case& c, const RunPlan& plan, int steps) : case_(c), plan_(plan), steps_(steps) {
  PausedWorkers paused;
  const Decomposition& d = plan_.decomposition;
  const RankMap& map = plan_.ranks;
  const int rank = Runtime::rank();
  std::vector<bool> pinned;  // a block only GPUs compute stays in plain pages (partition/block_data.hpp)
  for (const BlockPlan& b : plan_.blocks) pinned.push_back(b.cpu_compute);
  blocks_ = build_blocks(c, d, map, rank, pinned);
  const auto local = std::count_if(blocks_.begin(), blocks_.end(), [](const BlockData& b) { return b.local; });
  const auto by_plane = std::count_if(blocks_.begin(), blocks_.end(), [](const BlockData& b) { return b.uniform_planes; });
  spdlog::info("material uniform in every plane in {} of {} blocks (read once a plane by the CPU and CUDA kernels)", by_plane, local);
  // A chained window samples each of its steps (tasks/chain.hpp).
  const int depth = plan_.samples_in_stress ? plan_.policy.chain_steps : 1;
  stations_ = build_station_groups(c, d, steps, map, rank, plan_.sampling, depth);
  register_handles(blocks_);
  apply_plan();
  pin_to_gpus();
  if (const int routed = route_peer_halos(blocks_, plan_.policy))
    spdlog::info("{} boundary buffers written straight into the neighbour's GPU (peer_halos)", routed);
  register_station_groups(stations_);
  if (plan_.samples_in_stress) attach_station_slots(rank);
  halo_ = build_halo(blocks_, map, rank);
  if (Runtime::distributed())
    if (const int routed = route_ipc_halos(blocks_, halo_, plan_.policy, node_name(), ipc_memory_))
      spdlog::info("{} boundary buffers exchanged with ranks of this node GPU to GPU (CUDA IPC, peer_halos)", routed);
  if (c.snapshots.every > 0)
    snapshots_ = std::make_unique<SnapshotRecorder>(c, blocks_, map, rank, snapshot_path(c));
  ChainRefusal refusal;
  const std::string host = node_name();
  const int chained = route_chained_steps(blocks_, stations_, plan_.policy, {map, rank, host},
                                           c.snapshots.every > 0 && (c.snapshots.pgv || c.snapshots.any_displacement()),
                                           chain_memory_, &refusal);
  if (chained && plan_.policy.chain_on_cpus)
    spdlog::info("{} blocks run up to {} iterations a task, each on a CPU worker of its own, ordering the halos between "
                 "them in main memory (chain_steps, chain_on_cpus)",
                 chained, plan_.policy.chain_steps);
  else if (chained)
    spdlog::info("{} blocks run up to {} iterations a task, their GPUs ordering the halos between them (chain_steps); "
                 "{} with a second stream (chain_side_stream)",
                 chained, plan_.policy.chain_steps, side_stream_blocks());
  else if (plan_.policy.chain_steps > 0)
    spdlog::log(refusal.quiet ? spdlog::level::debug : spdlog::level::info, "steps not chained: {}", refusal.why);
  // Chained windows send no halo message (their GPUs write the halos by CUDA IPC).
  stats_.bytes_sent_per_iteration = chained ? 0 : halo_.bytes_sent_per_iteration();
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

// The plan's priorities and run.cpu_compute's choice (plan/run_plan.cpp) onto the local blocks.
void Simulation::apply_plan() {
  int pinned = 0;
  for (BlockData& b : blocks_) {
    if (!b.local) continue;
    const BlockPlan& p = plan_.blocks[b.info.id];
    b.place.priority = p.priority;
    if (!p.cpu_compute) b.place.where = STARPU_CUDA, ++pinned;
  }
  if (pinned > 0)
    spdlog::info("run.cpu_compute = auto: {} of {} blocks computed on the GPUs only (a CPU worker would take longer "
                 "than the GPUs' iteration); --cpu-compute any leaves them to the scheduler",
                 pinned, local_blocks());
}

// Each local block's compute_stress samples up to stress_station_slots of its slots (the policy's;
// tests mix both ways); sample_stations tasks take the others.
void Simulation::attach_station_slots(int rank) {
  const int most = std::clamp(plan_.policy.stress_station_slots, 0, kMaxStressSlots);
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

// One process driving several GPUs: each block's tasks run on its GPU's workers (its CPU workers
// too where it lets them compute), the GPU the plan gave it, so that a block's fields stay on its
// GPU and only the halos cross. Left to the scheduler, dmda moved whole blocks between the GPUs
// (docs/performance.md, Decisions: blocks pinned to GPUs). The policy's
// gpu_affinity = false leaves the placement to the scheduler (scheduler studies).
void Simulation::pin_to_gpus() {
  const std::vector<int> devices = cuda_devices();
  if (devices.size() < 2 || std::none_of(plan_.blocks.begin(), plan_.blocks.end(), [](const BlockPlan& b) { return b.gpu >= 0; }))
    return;
  const int n = static_cast<int>(starpu_worker_get_count());
  std::vector<std::vector<int>> groups(devices.size());
  for (int w = 0; w < n; ++w)
    if (starpu_worker_get_type(w) == STARPU_CUDA_WORKER)
      groups[std::find(devices.begin(), devices.end(), starpu_worker_get_devid(w)) - devices.begin()].push_back(w);
  if (pin_blocks(groups) > 0)
    spdlog::info("{} blocks tiled over {} GPUs, each block's tasks on its GPU", plan_.blocks.size(), devices.size());
}

int Simulation::pin_blocks(const std::vector<std::vector<int>>& groups) {
  // The plan's GPU of each block (plan/run_plan.cpp), for the GPUs it was made for: nothing else.
  if (groups.size() < 2 || plan_.blocks[0].gpu < 0 || int(groups.size()) != plan_.launch.gpus) return 0;
  const std::vector<int> cpus = ParkedCpus::cpu_workers();
  int pinned = 0;
  for (BlockData& b : blocks_) {
    if (!b.local) continue;
    const int g = plan_.blocks[b.info.id].gpu;
    b.place.workers = WorkerSet{};
    const std::vector<int>& group = groups[g];
    for (int w : group) b.place.workers.add(w);
    if (!group.empty()) b.place.node = static_cast<int>(starpu_worker_get_memory_node(group.front()));
    // Beside a GPU's workers, the CPU workers stay allowed where the block lets them compute.
    const bool gpu = std::any_of(group.begin(), group.end(),
                                 [](int w) { return starpu_worker_get_type(w) == STARPU_CUDA_WORKER; });
    if (gpu && (b.place.where & STARPU_CPU))
      for (int w : cpus) b.place.workers.add(w);
    ++pinned;
  }
  return pinned;
}

unsigned long long Simulation::small_where() const {
  return plan_.small_tasks_on_gpus ? STARPU_CUDA : STARPU_CPU | STARPU_CUDA;
}

// Every task of an iteration goes where place.where (the blocks') or small_where allows: when
// both exclude the CPUs, no CPU worker can take any task of the run.
std::vector<int> Simulation::cpus_to_park() {
  if (!plan_.policy.park_cpus || starpu_worker_get_count_by_type(STARPU_CUDA_WORKER) == 0) return {};
  if (small_where() & STARPU_CPU) return {};
  for (const BlockData& b : blocks_)
    if (b.local && (b.place.where & STARPU_CPU)) return {};
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

int Simulation::chained_blocks() const {
  return static_cast<int>(std::count_if(blocks_.begin(), blocks_.end(), [](const BlockData& b) { return b.routes.chained; }));
}

int Simulation::side_stream_blocks() const {
  return static_cast<int>(
      std::count_if(blocks_.begin(), blocks_.end(), [](const BlockData& b) { return b.routes.chain_side.stream != nullptr; }));
}

int Simulation::local_blocks() const {
  return static_cast<int>(std::count_if(blocks_.begin(), blocks_.end(), [](const BlockData& b) { return b.local; }));
}

Simulation::~Simulation() {
  starpu_task_wait_for_all();
  snapshots_.reset();  // its handles go before the blocks'
  release_station_groups(stations_);
  release_blocks(blocks_);
  ipc_memory_.release();
  chain_memory_.release();
}

namespace {
// compute_stress's own callback, which replaces its codelet's: the profile and the progress counter.
void stress_done(void* progress) {
  profile::record(starpu_task_get_current());
  Progress::on_block_done(progress);
}
}  // namespace

IterationPlan Simulation::iteration_plan(void* progress) const {
  IterationPlan plan;
  plan.base = plan_.step;
  plan.policy = plan_.policy;
  plan.nsteps = steps_;
  plan.dt = case_.time.dt;
  plan.on_stress_done = &stress_done;
  plan.on_steps_done = &Progress::on_blocks_done;  // a chained window's, with its steps
  plan.callback_arg = progress;
  plan.rank = Runtime::rank();
  plan.small_where = small_where();
  plan.watchdog_every = plan_.watchdog_every;
  plan.snapshot_every = case_.snapshots.every;
  return plan;
}

GraphData Simulation::graph_data() {
  GraphData graph{blocks_, stations_, halo_};
  graph.record_tokens = chain_memory_.record_tokens;
  if (snapshots_) {
    graph.planes = &snapshots_->planes();
    graph.pgv = &snapshots_->pgv_handles();
  }
  return graph;
}

int Simulation::advance(int n, bool show_progress) {
  n = std::min(n, steps_ - iteration_);
  if (n <= 0) return 0;
  int done = 0;
  const double cells = double(case_.grid.nx) * case_.grid.ny * case_.grid.nz;
  const double start = clock_seconds();
  {
    // Counted against the run's last step (steps_), not this window's: the driver advances in
    // windows (the warm-up, each checkpoint), and the line must not read as if the run had ended.
    Progress progress(local_blocks(), iteration_, steps_, case_.time.dt, cells, show_progress);
    const IterationPlan plan = iteration_plan(&progress);
    GraphData graph = graph_data();
    {
      const ParkedCpus parked(cpus_to_park());  // until every step is submitted and done
      while (done < n) {
        // Over MPI a rank never stops alone: the ranks vote between windows (app/driver.cpp).
        if (!Runtime::distributed() && (g_stop_signal || alarm())) break;
        const int it = iteration_ + done;
        const Submitted sub = submit_steps(graph, plan, it, n - done, done == 0);
        done += sub.steps;
        const int last = it + sub.steps - 1;
        stats_.tasks_per_iteration = double(sub.tasks - sub.periodic) / sub.steps;
        if (sub.watched) read_peaks(last);
        if (sub.frame) snapshots_->deliver(last);
        // Bound the tasks in flight (memory) without synchronising: StarPU only blocks submission
        // while more than a window of iterations (two chained windows at least) is pending (of this
        // thread's context: the parked tasks are not in it).
        starpu_task_wait_for_n_submitted(static_cast<unsigned>(
            std::max(int(stats_.tasks_per_iteration * case_.run.window), 2 * (sub.tasks - sub.periodic))));
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
  const double wall = clock_seconds() - start;
  stats_.steps += done;
  stats_.wall_seconds += wall;
  stats_.cell_updates_per_second = cells * stats_.steps / stats_.wall_seconds;
  return done;
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
    e += ondes::energy(in.shape, b.velocity, b.stress, b.material, {{i0, j0, pml.lo(2)}, {i1, j1, pml.hi(2)}},
                       case_.grid.h);
  }
  return e;
}

}  // namespace ondes
