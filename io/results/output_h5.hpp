// The run's HDF5 file: /seismograms/velocity float32 [station][3][step] (vx, vy, vz; attributes dt,
// t0, units), /stations/name, /stations/position float64 [station][3], /run attributes, and
// /run/profile: tables codelets, workers, transfers (see io/results/run_profile.hpp), one dataset per column.
// Written to a temporary file renamed at the end, so no half-written output is ever left.
#pragma once
#include <string>
#include <vector>

#include "core/case.hpp"
#include "io/results/run_profile.hpp"

namespace ondes {

struct RunMetadata {
  std::string program_version, starpu_version, scheduler;
  int nbx = 1, nby = 1, cpu_workers = 0, cuda_workers = 0, steps = 0;  // workers of rank 0
  double tasks_per_iteration = 0;  // on rank 0
  int ranks = 1;
  std::string mapping = "tiles";
  double wall_seconds = 0, cell_updates_per_second = 0;
  bool complete = true;      // false: stopped early (watchdog, signal); samples after steps_completed are NaN
  int steps_completed = 0;
  std::string stop_reason;   // empty when complete
  std::string restarted_from;  // checkpoint the run continued from, if any
  RunProfile profile;          // /run/profile (empty tables when StarPU's profiling was off)
  // The run's plan as `check` prints it (plan/run_plan.hpp describe_plan) and the execution policy
  // beside its defaults: /run attribute `plan`, a line each; the summary CSV's `plan` column.
  std::vector<std::string> plan;
};

void write_output(const std::string& path, const Case& c, const std::vector<float>& seismograms,
                  const RunMetadata& meta);

// One run as one CSV row (with its header), for sweeps: case, grid, layout, workers, throughput,
// tasks, idle fractions per worker kind, bytes moved between memory nodes. Throws when the file
// cannot be written.
void write_summary_csv(const std::string& path, const Case& c, const RunMetadata& meta);

// Reading back, for tests and tools.
struct Seismograms {
  std::vector<float> data;  // [station][3][steps]
  int stations = 0, steps = 0;
  double dt = 0, t0 = 0;
  std::vector<std::string> names;
};
Seismograms read_seismograms(const std::string& path);

}  // namespace ondes
