// A simulation of one case on StarPU: builds the blocks, submits iterations, gathers results.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/runtime.hpp"
#include "engine/snapshots.hpp"
#include "plan/run_plan.hpp"
#include "partition/block_data.hpp"
#include "partition/halo.hpp"
#include "partition/stations.hpp"
#include "tasks/chain.hpp"
#include "tasks/ipc_halos.hpp"
#include "core/case.hpp"

namespace ondes {

class CheckpointReader;
struct IterationPlan;  // tasks/iteration.hpp
struct GraphData;

struct RunStats {
  int steps = 0;
  double wall_seconds = 0;
  double cell_updates_per_second = 0;         // over every window so far
  double tasks_per_iteration = 0;  // on this rank (a chained window of K iterations: 1/K a block)
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
  // Needs a live Runtime. `steps` sizes the seismograms; the case is validated by the caller. The
  // blocks, their owners, GPUs, priorities and the policy are the plan's (plan_run of the case on
  // the live runtime, current_launch(), unless given).
  Simulation(const Case& c, const RunPlan& plan, int steps);
  Simulation(const Case& c, int steps) : Simulation(c, plan_run(c, current_launch()), steps) {}
  // The live runtime as a plan sees it: ranks, this process's GPUs and workers.
  static Launch current_launch();
  const RunPlan& plan() const { return plan_; }
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Submits the next `n` iterations and waits for them (one wait for the whole window). In one
  // process, stops submitting early when the watchdog raises an alarm or a stop is requested;
  // returns the iterations done (all submitted ones complete).
  int advance(int n, bool progress = false);
  int iteration() const { return iteration_; }
  std::optional<WatchdogAlarm> alarm() const;

  // Keeps each block's tasks on the workers of its group (groups[g]: the workers of the plan's GPU g,
  // as a multi-GPU process makes them; any workers in tests) and on the CPU workers where it lets
  // them compute; nothing where the plan gave the blocks no GPU or was made for another count of
  // GPUs. Before the first advance. Returns the blocks pinned.
  int pin_blocks(const std::vector<std::vector<int>>& groups);

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
  int chained_blocks() const;  // local blocks whose steps run in chained windows (tasks/chain.hpp)
  int side_stream_blocks() const;  // of those, the blocks with a second stream (chain_side_stream)
  // Ends the snapshot file (remaining frames, PGV map, XDMF); no-op without snapshots. After the
  // last advance, whether the run completed or stopped early.
  void finish_snapshots();
  int local_blocks() const;

 private:
  const Case& case_;
  const RunPlan plan_;
  int steps_;
  int iteration_ = 0;
  std::vector<BlockData> blocks_;
  std::vector<StationGroup> stations_;
  Halo halo_;
  IpcMemory ipc_memory_;  // GPU memory of halos between ranks by CUDA IPC
  ChainMemory chain_memory_;  // GPU memory of the halo channels of chained steps
  std::unique_ptr<SnapshotRecorder> snapshots_;
  RunStats stats_;
  mutable std::mutex alarm_mutex_;
  std::condition_variable probes_done_;
  int probes_in_flight_ = 0;  // watchdog reads not yet called back (under alarm_mutex_)
  std::optional<WatchdogAlarm> alarm_;
  void read_peaks(int iteration);  // after the iteration's watch_velocity tasks
  IterationPlan iteration_plan(void* progress) const;  // advance()'s, its callbacks reporting to progress
  GraphData graph_data();  // what advance() builds the graph of
  void apply_plan();  // the plan's placement and priority onto the local blocks
  void restore_snapshots(CheckpointReader& r, const std::string& path);  // a restart's PGV map and frames
  unsigned long long small_where() const;  // run.small_tasks: the workers the small tasks may use
  void attach_station_slots(int rank);  // each local block's slots of the station groups, to its compute_stress
  std::vector<int> cpus_to_park();  // the CPU workers no task may use (tasks/park.hpp); logs it once
  bool park_logged_ = false;
  void pin_to_gpus();  // several GPUs in one process: each block's tasks on its GPU's workers
  static std::vector<int> cuda_devices();     // the CUDA devices StarPU drives, sorted
  static void on_peak(void* probe);
};

}  // namespace ondes
