// CPU workers that no task of the run may use, put to sleep for a while. StarPU 1.3 as built here
// (and as Debian ships it) has non-blocking drivers: an idle worker loops popping its queue and
// progressing its memory node's requests. When run.cpu_compute and run.small_tasks keep every
// task on the GPUs, the CPU workers are idle for the whole run, yet dozens of them looping beside
// one GPU slowed the GPU's own dispatch (docs/performance.md, Decisions: parked workers).
// A parked worker runs one task that sleeps on a condition variable until the scope ends, and the
// tasks the constructing thread submits meanwhile go to a scheduling context of the other workers:
// none can land in a parked worker's queue, and the scheduler weighs only the workers that run
// (dmda's push looks at every worker of its context). ExecutionPolicy::park_cpus false leaves them looping.
#pragma once
#include <starpu.h>

#include <vector>

namespace ondes {

class ParkedCpus {
 public:
  // Parks the CPU workers `workers` (each a CPU worker id; none if the list is empty, or if it
  // names every worker) and sets the calling thread's context to the others'. One scope at a time
  // in a process (its parked tasks share one gate).
  explicit ParkedCpus(const std::vector<int>& workers);
  // Restores the thread's context, wakes the parked workers, waits for every task of the context
  // (StarPU 1.3 deletes a context only once its tasks are done).
  ~ParkedCpus();
  ParkedCpus(const ParkedCpus&) = delete;
  ParkedCpus& operator=(const ParkedCpus&) = delete;

  int count() const { return static_cast<int>(tasks_.size()); }  // workers parked

  static std::vector<int> cpu_workers();

 private:
  void release();
  std::vector<starpu_task*> tasks_;
  unsigned ctx_ = STARPU_NMAX_SCHED_CTXS;  // the others' context (its address is the thread's key)
};

}  // namespace ondes
