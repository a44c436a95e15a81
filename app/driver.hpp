// A whole run of a case, as `ondes3d run` does it: StarPU (and MPI) up, the time loop in windows
// between checkpoints, the watchdog and signals, the output file.
#pragma once
#include <string>

#include "partition/mapping.hpp"
#include "core/case.hpp"
#include "plan/run_plan.hpp"

namespace ondes {

struct RunControl {
  int checkpoint_every = 0;  // iterations between checkpoints; 0: only when interrupted
  std::string checkpoint;    // checkpoint file; empty: the output's name with .checkpoint.h5
  std::string restart;       // checkpoint to continue from; empty: start at t = 0
  std::string trace;         // CSV of every task (worker, codelet, start, end); empty: none
  std::string summary;       // one-row CSV of the run (tools/sweep); empty: none
  double sim_task_gap_us = 0;        // SimGrid builds: what every task costs besides its kernels (perfmodels)
  double sim_launch_latency_us = 0;  // SimGrid builds: a GPU worker's time from a task to its launch
};

// Exit statuses of run_case besides 0 and CaseError's 2.
constexpr int kExitWatchdog = 3;
inline int exit_status_of_signal(int sig) { return 128 + sig; }

std::string default_checkpoint_path(const Case& c);

// Runs the case and writes its output. Interrupted by SIGINT/SIGTERM (any rank, or all): finishes
// the tasks in flight, writes a checkpoint and the seismograms so far (flagged incomplete), returns
// 128 + signal. Stopped by the watchdog (any rank): writes the seismograms so far (flagged), returns
// 3. Over MPI every rank stops after the same iteration and returns the same status.
int run_case(const Case& c, const RunControl& rc);

// Throws CaseError (one line) where a file the run would write cannot be written: the output, the
// snapshots, and rc's checkpoint, trace and summary (io/partial_file check_result_path).
void check_result_files(const Case& c, const RunControl& rc);


// Throws CaseError with the figures when the ranks on this node would not fit in its available
// memory (MemAvailable).
void check_host_memory(const Case& c, const MemoryNeeds& needs, int ranks_on_node);

std::string human_bytes(double bytes);

}  // namespace ondes
