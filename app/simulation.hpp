// A simulation of one case on StarPU: builds the blocks, submits iterations, gathers results.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/snapshots.hpp"
#include "partition/block_data.hpp"
#include "partition/halo.hpp"
#include "partition/stations.hpp"
#include "physics/case.hpp"

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

// Ends every rank of an MPI run at once (a failure after MPI started); returns without MPI.
void abort_all_ranks(int code);

// Names of StarPU's scheduling policies.
std::vector<std::string> scheduler_names();

struct RunStats {
  int steps = 0;
  double wall_seconds = 0;
  double cell_updates_per_second = 0;         // over every window so far
  int tasks_per_iteration = 0;   // on this rank
  size_t bytes_sent_per_iteration = 0;  // boundary buffers this rank sends to other ranks
  int station_groups_across_ranks = 0;  // recorded from samples sent between ranks
};

// Where the watchdog found the velocity out of bounds (or not finite).
struct WatchdogAlarm {
  int iteration = -1;  // the iteration after which it was checked (0-based)
  int block = -1;
  float peak = 0;  // m/s; +inf when not finite
};

class Simulation {
 public:
  // Needs a live Runtime. `steps` sizes the seismograms; the case is validated by the caller.
  Simulation(const Case& c, int steps);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Submits the next `n` iterations and waits for them (one wait for the whole window). Stops
  // submitting early when the watchdog raises an alarm or a stop is requested; returns the
  // iterations done (all submitted ones complete).
  int advance(int n, bool progress = false);
  int iteration() const { return iteration_; }
  std::optional<WatchdogAlarm> alarm() const;

  // Asks every Simulation to stop submitting at the next iteration (async-signal-safe).
  static void request_stop(int signal);
  static int stop_signal();  // the signal given to request_stop, 0 if none

  // The state after iteration(), to a checkpoint file (one process only), and back: restore
  // before the first advance.
  void save_checkpoint(const std::string& path);
  void restore_checkpoint(const std::string& path);

  // Seismograms recorded so far: [station][component][step], float32, steps = the constructor's.
  // Over MPI every rank must call it; rank 0 gets the traces of every rank, the others nothing.
  std::vector<float> seismograms();
  // Kinetic + strain energy outside the PML (joules), of this rank's blocks.
  double energy();
  const RunStats& stats() const { return stats_; }
  // Ends the snapshot file (remaining frames, PGV map, XDMF); no-op without snapshots. After the
  // last advance, whether the run completed or stopped early.
  void finish_snapshots();
  int local_blocks() const;

 private:
  const Case& case_;
  int steps_;
  int iteration_ = 0;
  std::vector<BlockData> blocks_;
  std::vector<StationGroup> stations_;
  Halo halo_;
  std::unique_ptr<SnapshotRecorder> snapshots_;
  RunStats stats_;
  mutable std::mutex alarm_mutex_;
  std::condition_variable probes_done_;
  int probes_in_flight_ = 0;  // watchdog reads not yet called back (under alarm_mutex_)
  std::optional<WatchdogAlarm> alarm_;
  void watch(int iteration);
  unsigned long long small_where() const;  // run.small_tasks: the workers the small tasks may use
  static void on_peak(void* probe);
};

}  // namespace ondes
