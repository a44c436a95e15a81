// A simulation of one case on StarPU: builds the blocks, submits iterations, gathers results.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "partition/block_data.hpp"
#include "partition/stations.hpp"
#include "physics/case.hpp"

namespace ondes {

// StarPU, initialised for the lifetime of the object with the given scheduler (empty: StarPU's
// choice, or STARPU_SCHED). Throws on an unknown scheduler name or when StarPU cannot start.
class Runtime {
 public:
  // ncpu / ncuda: worker counts (-1: StarPU's default or STARPU_NCPU / STARPU_NCUDA).
  explicit Runtime(const std::string& scheduler, int ncpu = -1, int ncuda = -1);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  std::string scheduler() const;
  int cpu_workers() const;
  int cuda_workers() const;
};

// Names of StarPU's scheduling policies.
std::vector<std::string> scheduler_names();

struct RunStats {
  int steps = 0;
  double wall_seconds = 0;
  double cell_updates_per_second = 0;         // over every window so far
  double window_cell_updates_per_second = 0;  // over the last advance() only
  int tasks_per_iteration = 0;
};

class Simulation {
 public:
  // Needs a live Runtime. `steps` sizes the seismograms; the case is validated by the caller.
  Simulation(const Case& c, int steps);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Submits the next `n` iterations and waits for them (one wait for the whole window).
  void advance(int n, bool progress = false);
  int iteration() const { return iteration_; }

  // Seismograms recorded so far: [station][component][step], float32, steps = the constructor's.
  std::vector<float> seismograms();
  // Kinetic + strain energy outside the PML (joules).
  double energy();
  const RunStats& stats() const { return stats_; }
  int blocks() const { return static_cast<int>(blocks_.size()); }

 private:
  const Case& case_;
  int steps_;
  int iteration_ = 0;
  std::vector<BlockData> blocks_;
  std::vector<StationGroup> stations_;
  RunStats stats_;
};

}  // namespace ondes
