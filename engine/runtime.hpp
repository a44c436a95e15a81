// StarPU (and StarPU-MPI) for the lifetime of a run, and what the MPI launcher tells before MPI
// starts.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ondes {

// StarPU, initialised for the lifetime of the object with the given scheduler (empty: StarPU's
// choice, or STARPU_SCHED). Throws on an unknown scheduler name or when StarPU cannot start.
// With `mpi`, StarPU-MPI too (it initialises MPI over MPI_COMM_WORLD); there is one Runtime at a
// time, and Simulation spreads its blocks over the ranks of the live one.
class Runtime {
 public:
  // ncpu / ncuda: worker counts (-1: StarPU's default or STARPU_NCPU / STARPU_NCUDA).
  explicit Runtime(const std::string& scheduler, int ncpu = -1, int ncuda = -1, bool mpi = false);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  std::string scheduler() const;
  int cpu_workers() const;
  int cuda_workers() const;
  int cuda_devices() const;  // distinct GPUs behind the CUDA workers
  static int rank();   // 0 without MPI
  static int ranks();  // 1 without MPI
  static bool distributed();
};

// Whether this process was started by an MPI launcher (mpirun, srun, ...), and its rank and size
// as the launcher's environment tells them (readable before MPI starts; 0 and 1 otherwise).
bool launched_by_mpi();
int launch_rank();
int launch_size();
int launch_local_size();  // ranks of this run on this node
int launch_local_rank();  // this rank among them
// This machine's host name.
std::string host_name();
// The node this rank runs on: the host's name; in the SMPI build the simulated node's (under SMPI
// every rank's StarPU has a host of its own: tools/sim_nodes.sh puts ONDES_SIM_RANKS_PER_NODE
// consecutive ranks on a node).
std::string node_name();

// A StarPU environment variable set for a scope (StarPU's STARPU_NCPU / STARPU_NCUDA win over its
// conf): what `calibrate` uses to start StarPU on one kind of worker at a time. The environment is
// read and written here (runtime.cpp) and nowhere else in the program.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Seconds on StarPU's clock (starpu_timing_now): monotonic real time, or the simulated time in a
// SimGrid build (tools/build_starpu_simgrid.sh), where the run's figures must come from it.
double clock_seconds();

// Whether this StarPU simulates its runs (SimGrid): codelets are not executed, so fields and
// seismograms stay zero and only the times mean something.
bool simulated_runtime();
// The machine a simulated run plays (STARPU_HOSTNAME, whose calibration StarPU reads), or this one's.
std::string simulated_machine();

// Ends every rank of an MPI run at once (a failure after MPI started); returns without MPI.
void abort_all_ranks(int code);

// Returns on every rank once all have called it (no-op in one process): before ranks leave with a
// failing status, so that the launcher, which ends a job when one rank fails, does not stop rank 0
// while it writes the output.
void wait_for_all_ranks();

// Cores StarPU leaves to the thread that submits the tasks (and runs their callbacks) when it
// chooses the number of CPU workers itself, on a process that may use `cores` cores: one from 8 on.
// With a worker on every core that thread takes turns with one of them; below 8 cores a core is
// worth more as a worker (docs/performance.md, Decisions: the submitting thread's core).
int cores_for_submission(int cores);

// StarPU's CUDA workers per GPU (streams: STARPU_NWORKER_PER_CUDA, 4 unless the user sets it).
int workers_per_gpu();

// Names of StarPU's scheduling policies.
std::vector<std::string> scheduler_names();

}  // namespace ondes
