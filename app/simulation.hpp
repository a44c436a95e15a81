// A simulation of one case on StarPU: builds the blocks, submits iterations, gathers results.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/runtime.hpp"
#include "app/snapshots.hpp"
#include "partition/block_data.hpp"
#include "partition/halo.hpp"
#include "partition/stations.hpp"
#include "core/case.hpp"

namespace ondes {

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

  // Submits the next `n` iterations and waits for them (one wait for the whole window). In one
  // process, stops submitting early when the watchdog raises an alarm or a stop is requested;
  // returns the iterations done (all submitted ones complete).
  int advance(int n, bool progress = false);
  int iteration() const { return iteration_; }
  std::optional<WatchdogAlarm> alarm() const;

  // Tiles the blocks over the worker groups (one per GPU, as a multi-GPU process makes them;
  // any workers in tests) and keeps each block's tasks on its group's workers (and on the CPU
  // workers where it lets them compute); nothing with fewer than 2 groups or blocks. Before the
  // first advance. Returns the blocks pinned.
  int pin_blocks(const Decomposition& d, const std::vector<std::vector<int>>& groups);

  // Asks every Simulation to stop submitting at the next iteration (async-signal-safe).
  static void request_stop(int signal);
  static int stop_signal();  // the signal given to request_stop, 0 if none

  // The state after iteration(), to one checkpoint file (written by rank 0; every rank must call
  // it), and back on any number of ranks, mapping and layout: restore before the first advance.
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
  std::vector<int> owner_;  // rank of each block
  std::unique_ptr<SnapshotRecorder> snapshots_;
  RunStats stats_;
  mutable std::mutex alarm_mutex_;
  std::condition_variable probes_done_;
  int probes_in_flight_ = 0;  // watchdog reads not yet called back (under alarm_mutex_)
  std::optional<WatchdogAlarm> alarm_;
  void read_peaks(int iteration);  // after the iteration's watch_velocity tasks
  // Frontier blocks (a neighbour with another owner: rank or GPU) compute at a higher priority.
  void mark_frontiers(const RankMap& owner);
  void place_compute(const Decomposition& d);  // run.cpu_compute: the workers each block's compute may use
  unsigned long long small_where() const;  // run.small_tasks: the workers the small tasks may use
  bool samples_in_stress(const Decomposition& d) const;  // the stations' samples taken by compute_stress
  void attach_station_slots(int rank);  // each local block's slots of the station groups, to its compute_stress
  std::vector<int> cpus_to_park();  // the CPU workers no task may use (tasks/park.hpp); logs it once
  bool park_logged_ = false;
  void pin_to_gpus(const Decomposition& d);  // several GPUs in one process: each block's tasks on one
  static std::vector<int> cuda_devices();     // the CUDA devices StarPU drives, sorted
  static void on_peak(void* probe);
};

}  // namespace ondes
