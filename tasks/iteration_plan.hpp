// What every task of a run's graph is submitted with: the step's parameters, the execution policy,
// the run's length and time step, the completion callbacks, where small tasks may run and when the
// periodic ones are due (built once by engine/simulation from the run's plan).
#pragma once
#include <starpu.h>

#include "core/execution_policy.hpp"
#include "core/layout.hpp"

namespace ondes {

struct IterationPlan {
  StepParams base;  // shape is set per block
  ExecutionPolicy policy;  // how the tasks run (the case's [tuning], --tune)
  int nsteps = 0;   // length of the traces
  double dt = 0;
  void (*on_stress_done)(void*) = nullptr;  // called when a block's compute_stress completes
  void (*on_steps_done)(void*, int) = nullptr;  // called when a chained window of a block completes, with its steps
  void* callback_arg = nullptr;
  int rank = 0;  // this process's MPI rank (0 without MPI)
  unsigned long long small_where = STARPU_CPU | STARPU_CUDA;  // where saves, sources, records may run
  int watchdog_every = 0;  // iterations between watch_velocity tasks; 0: none
  int snapshot_every = 0;  // iterations between snapshot frames; 0: none
};

}  // namespace ondes
