#include "engine/runtime.hpp"

#include <set>

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>
#include <spdlog/spdlog.h>
#include <starpu.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "engine/node_share.hpp"
#include "partition/mpi.hpp"
#include "tasks/float_mode.hpp"

#ifdef STARPU_USE_CUDA
#include <cuda_runtime.h>
#endif

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

double clock_seconds() { return starpu_timing_now() * 1e-6; }

bool simulated_runtime() {
#ifdef STARPU_SIMGRID
  return true;
#else
  return false;
#endif
}

std::string simulated_machine() {
  const char* h = std::getenv("STARPU_HOSTNAME");
  return h && *h ? h : "this machine";
}

ScopedEnv::ScopedEnv(const char* name, const std::string& value) : name_(name) {
  if (const char* v = std::getenv(name)) old_ = v;
  setenv(name, value.c_str(), 1);
}
ScopedEnv::~ScopedEnv() {
  if (old_) setenv(name_.c_str(), old_->c_str(), 1);
  else unsetenv(name_.c_str());
}

// Open MPI, MPICH / Intel MPI (PMI), PMIx launchers and Slurm's srun; in the SMPI build, the
// simulated ranks of tools/sim_nodes.sh (ONDES_SIM_RANKS: SMPI gives its ranks no environment of
// their own, so they all read rank 0 until StarPU-MPI runs: Runtime::rank()).
#ifdef ONDES_SMPI
bool launched_by_mpi() { return true; }
#else
bool launched_by_mpi() { return env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}, 0) > 0; }
#endif
int launch_rank() { return env_int({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}, 0); }
int launch_size() { return env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "ONDES_SIM_RANKS"}, 1); }
int launch_local_size() { return env_int({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}, 1); }
int launch_local_rank() { return env_int({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}, 0); }
std::string host_name() {
  char h[256] = {};
  gethostname(h, sizeof(h) - 1);
  return h;
}
#ifdef ONDES_SMPI
std::string node_name() { return "node" + std::to_string(Runtime::rank() / std::max(1, env_int({"ONDES_SIM_RANKS_PER_NODE"}, 1))); }
#else
std::string node_name() { return host_name(); }
#endif

void abort_all_ranks(int code) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
}

void wait_for_all_ranks() {
  if (g_mpi) starpu_mpi_barrier(MPI_COMM_WORLD);
}

int Runtime::rank() { return g_mpi ? starpu_mpi_world_rank() : 0; }
int Runtime::ranks() { return g_mpi ? starpu_mpi_world_size() : 1; }
bool Runtime::distributed() { return g_mpi; }

namespace {
// The CPUs this process may run on (its affinity mask; empty if that cannot be read).
std::set<int> usable_cpu_set() {
  cpu_set_t set;
  std::set<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.insert(c);
  return cpus;
}

// How many: all of the machine's if the mask cannot be read.
int usable_cores() {
  const std::set<int> cpus = usable_cpu_set();
  return cpus.empty() ? static_cast<int>(std::thread::hardware_concurrency()) : static_cast<int>(cpus.size());
}

// mpirun binds each rank to one core by default when there are 2 ranks or fewer: StarPU's workers,
// its MPI progress thread and the GPU drivers would then take turns on that core (docs/
// performance.md, Decisions: one core a rank).
void warn_if_bound_to_one_core() {
  if (usable_cores() > 1) return;
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

// Ranks of one run sharing a node with its GPUs: StarPU would give every rank every GPU (or, with
// STARPU_NCUDA=1, GPU 0 to all of them). Unless told otherwise (STARPU_WORKERS_CUDAID, a
// STARPU_NCUDA or --workers count above one), each rank takes one GPU, that of its local rank
// (modulo the GPUs: with more ranks than GPUs, they share), which also lets ranks pass halos GPU
// to GPU (tasks/ipc_halos.hpp).
void share_node_gpus(starpu_conf& conf) {
#ifdef STARPU_USE_CUDA
  const int local = launch_local_size();
  if (local <= 1 || std::getenv("STARPU_WORKERS_CUDAID")) return;
  const char* n = std::getenv("STARPU_NCUDA");
  const int asked = n ? std::atoi(n) : conf.ncuda;
  if (asked == 0 || asked > 1) return;
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 2) return;
  conf.ncuda = 1;
  conf.use_explicit_workers_cuda_gpuid = 1;
  conf.workers_cuda_gpuid[0] = unsigned(launch_local_rank() % gpus);
  spdlog::info("rank {} of this node on GPU {} of {}", launch_local_rank(), conf.workers_cuda_gpuid[0], gpus);
#else
  (void)conf;
#endif
}

// Independent runs of this program sharing a node (not ranks of one MPI run: share_node_cores):
// StarPU would bind each one's threads from the first core up, onto the cores an earlier run's
// threads hold, every run's GPU driver thread on core 0 (docs/performance.md, Decisions: runs
// sharing a node). So a run that finds threads of another run bound to its cores leaves its own
// unbound, unless the user placed them
// (STARPU_WORKERS_CPUID / _COREID / _NOBIND). Runs that start together take turns (NodeLock)
// until each has bound its threads in starpu_init.
struct NodeNeighbours {
  std::optional<NodeLock> turn;
  std::optional<ScopedEnv> unbound;
};

// Whether this run will have CUDA workers (before StarPU starts: the devices and STARPU_NCUDA).
bool drives_gpus(const starpu_conf& conf) {
#ifdef STARPU_USE_CUDA
  const char* n = std::getenv("STARPU_NCUDA");
  if ((n ? std::atoi(n) : conf.ncuda) == 0) return false;
  int gpus = 0;
  return cudaGetDeviceCount(&gpus) == cudaSuccess && gpus > 0;
#else
  (void)conf;
  return false;
#endif
}

void avoid_other_runs_cores(NodeNeighbours& n, starpu_conf& conf) {
  for (const char* v : {"STARPU_WORKERS_CPUID", "STARPU_WORKERS_COREID", "STARPU_WORKERS_NOBIND"})
    if (std::getenv(v)) return;
  std::string self;
  std::getline(std::ifstream("/proc/self/comm"), self);
  if (self.empty()) return;
  n.turn.emplace((std::filesystem::temp_directory_path() / (self + "-start.lock")).string());
  const BoundCpus others = cpus_bound_by(self, static_cast<int>(getpid()));
  std::set<int> shared;
  for (int c : usable_cpu_set())
    if (others.cpus.count(c)) shared.insert(c);
  if (shared.empty()) return;
  n.unbound.emplace("STARPU_WORKERS_NOBIND", "1");
  // Beside GPUs the CPU workers compute only what fits in the GPUs' shadow (run.cpu_compute) and
  // are parked otherwise; a run's worth of them beside another run's only adds threads to the
  // cores (docs/performance.md, Decisions: runs sharing a node).
  // One stays, so that every codelet keeps a worker.
  const bool one_cpu = conf.ncpus < 0 && !std::getenv("STARPU_NCPU") && drives_gpus(conf);
  if (one_cpu) conf.ncpus = 1, conf.reserve_ncpus = 0;
  const bool one = shared.size() == 1;
  spdlog::info("{} {} {} held by the threads of another {} on this node ({} {}): this run's StarPU threads are left "
               "unbound{} (STARPU_WORKERS_CPUID or taskset to place them)",
               one ? "core" : "cores", format_cpu_list(shared), one ? "is" : "are", self,
               others.holders.size() == 1 ? "pid" : "pids", fmt::join(others.holders, ", "),
               one_cpu ? ", with one CPU worker beside its GPUs (STARPU_NCPU to choose)" : "");
}
}  // namespace

int cores_for_submission(int cores) { return cores >= 8 ? 1 : 0; }

namespace {
constexpr const char* kWorkersPerGpu = "4";
}

int workers_per_gpu() {
  const char* v = std::getenv("STARPU_NWORKER_PER_CUDA");
  return std::max(1, std::atoi(v && *v ? v : kWorkersPerGpu));
}

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
  // Several workers (streams) per GPU, so that the kernels of several blocks overlap (docs/
  // performance.md, Decisions: workers per GPU). STARPU_NWORKER_PER_CUDA set by the user wins.
  setenv("STARPU_NWORKER_PER_CUDA", kWorkersPerGpu, 0);
  // A simulated run's block arrays are folded memory (partition/block_data.cpp): StarPU maps one
  // file every STARPU_MALLOC_SIMULATION_FOLD MiB (default 1), which for a 4.3 G-cell grid is more
  // maps than Linux allows a process (vm.max_map_count 65530); 64 MiB keeps them to a few thousand.
  if (simulated_runtime()) setenv("STARPU_MALLOC_SIMULATION_FOLD", "64", 0);
  starpu_conf conf;
  starpu_conf_init(&conf);
  if (ncpu >= 0) conf.ncpus = ncpu;
  if (mpi) {
    warn_if_bound_to_one_core();
    share_node_cores(conf);
  }
  // Only where StarPU counts the workers itself: StarPU 1.3 subtracts reserve_ncpus from any count,
  // a STARPU_NCPU the user gave included. (StarPU-MPI reserves one more for its progress thread.)
  if (conf.ncpus < 0 && !std::getenv("STARPU_NCPU")) conf.reserve_ncpus = cores_for_submission(usable_cores());
  if (ncuda >= 0) conf.ncuda = ncuda;
  if (mpi) share_node_gpus(conf);
  if (!scheduler.empty()) {
    const auto names = scheduler_names();
    if (std::find(names.begin(), names.end(), scheduler) == names.end())
      throw std::runtime_error(fmt::format("unknown scheduler '{}'; StarPU offers: {}", scheduler,
                                           fmt::join(names, ", ")));
    conf.sched_policy_name = scheduler.c_str();
  }
  NodeNeighbours neighbours;  // until StarPU has bound its threads
  if (!mpi && !simulated_runtime()) avoid_other_runs_cores(neighbours, conf);
  const int ret = mpi ? starpu_mpi_init_conf(nullptr, nullptr, 1, MPI_COMM_WORLD, &conf) : starpu_init(&conf);
  if (ret != 0) throw std::runtime_error(fmt::format("StarPU{} could not start (error {})", mpi ? "-MPI" : "", ret));
  g_mpi = mpi;
  flush_subnormals_on_cpu_workers();
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
int Runtime::cuda_devices() const {
  std::set<int> devices;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
    if (starpu_worker_get_type(int(w)) == STARPU_CUDA_WORKER) devices.insert(starpu_worker_get_devid(int(w)));
  return static_cast<int>(devices.size());
}

}  // namespace ondes
