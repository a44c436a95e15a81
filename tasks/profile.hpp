// StarPU's own profiling of a run, gathered for the output's metadata and for Gantt charts.
// Every codelet calls task_ended when one of its tasks completes (StarPU runs the codelet's
// callback on the worker that ran the task); the task's profiling info then holds its worker and
// its start and end.
#pragma once
#include <starpu.h>

#include <string>

#include "io/results/run_profile.hpp"

namespace ondes::profile {

// Enables StarPU's profiling and starts the measured interval: worker and bus counters and the
// codelet totals restart from zero. With `trace`, every task's start and end are kept as well.
void start(bool trace);

// The codelets' completion callback (arg unused), and the same for a task whose own callback
// replaces its codelet's; `updates`: the block updates (a block's velocity or stress update) a
// window's task made (RunProfile::compute_tasks).
void task_ended(void* arg);
void record(const starpu_task* task, int64_t updates = 0);

// A parked CPU worker's sleep (tasks/park.hpp), taken off its busy time and task count.
void parked(int worker, double seconds);

// The measured interval so far: codelet totals, worker times, transfers between memory nodes.
RunProfile collect();

// The tasks kept since start(true), as CSV: worker,worker_kind,codelet,start_s,end_s,block,device,
// ready_s,push_us,pop_us (seconds from the first task's push or start; block: a block task's block,
// x<bx>y<by>, else empty; ready_s: when its dependencies were met and it went to the scheduler;
// push_us, pop_us: the policy's own time taking it in and handing it to its worker, StarPU's
// profiling). Throws when the file cannot be written.
void write_trace(const std::string& path);

}  // namespace ondes::profile
