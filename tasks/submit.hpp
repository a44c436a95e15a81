// Submission of one iteration's tasks for every block (DESIGN.md's task graph). Nothing here waits:
// StarPU infers the dependencies from the data each task reads and writes.
#pragma once
#include <vector>

#include "partition/block_data.hpp"
#include "partition/stations.hpp"

namespace ondes {

struct IterationPlan {
  StepParams base;  // shape is set per block
  int nsteps = 0;   // length of the traces
  double dt = 0;
  void (*on_stress_done)(void*) = nullptr;  // called when a block's compute_stress completes
  void* callback_arg = nullptr;
};

// Submits iteration n (velocity from t_{n-1/2} to t_{n+1/2}, stress from t_n to t_{n+1}).
// Forces act at t_n right after the velocity update and moments at t_{n+1/2} after the stress
// update, before the boundaries are saved, so that neighbours see the source too.
void submit_iteration(std::vector<BlockData>& blocks, std::vector<StationGroup>& stations, const IterationPlan& plan,
                      int n);

// Tasks submitted per iteration (for throttling and statistics).
int tasks_per_iteration(const std::vector<BlockData>& blocks, const std::vector<StationGroup>& stations);

}  // namespace ondes
