// Submission of one iteration's tasks for every block (DESIGN.md's task graph). Nothing here waits:
// StarPU infers the dependencies from the data each task reads and writes.
#pragma once
#include <vector>

#include "partition/block_data.hpp"
#include "partition/halo.hpp"
#include "partition/stations.hpp"

namespace ondes {

struct IterationPlan {
  StepParams base;  // shape is set per block
  int nsteps = 0;   // length of the traces
  double dt = 0;
  void (*on_stress_done)(void*) = nullptr;  // called when a block's compute_stress completes
  void* callback_arg = nullptr;
  int rank = 0;  // this process's MPI rank (0 without MPI)
  unsigned long long small_where = STARPU_CPU | STARPU_CUDA;  // where saves, sources, records may run
};

// Submits this rank's part of iteration n (velocity from t_{n-1/2} to t_{n+1/2}, stress from t_n
// to t_{n+1}). Forces act at t_n right after the velocity update and moments at t_{n+1/2} after
// the stress update, before the boundaries are saved, so that neighbours see the source too.
// Boundary buffers bound for other ranks are sent as soon as saved; those from other ranks are
// received into their copies before the compute task that reads them.
void submit_iteration(std::vector<BlockData>& blocks, std::vector<StationGroup>& stations, const Halo& halo,
                      const IterationPlan& plan, int n);

// Tasks this rank submits per iteration (for throttling and statistics); communications excluded.
int tasks_per_iteration(const std::vector<BlockData>& blocks, const std::vector<StationGroup>& stations, int rank);

}  // namespace ondes
