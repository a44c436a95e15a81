// StarPU performance models, stored under $STARPU_HOME and calibrated by runs; each codelet
// (tasks/) makes its own from these. The stencil tasks use StarPU's non-linear regression model: a
// history keyed by what makes two tasks cost the same (the footprint: block dimensions, PML cells,
// neighbours) and, once sizes over more than 10% apart have been seen, a fit time = a * size^b + c
// over the cells a task touches, which StarPU uses for any size within 0.9x-1.1x of the calibrated
// range (so a block size never run before still gets a prediction). Small tasks keep a history.
#pragma once
#include <starpu.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace ondes {

// The symbols are stable (ondes3d_<codelet>) so calibrations carry over between runs.
starpu_perfmodel history_model(const char* symbol);
starpu_perfmodel regression_model(const char* symbol, uint32_t (*footprint)(starpu_task*),
                                  size_t (*size)(starpu_task*, unsigned));

// Simulated (SimGrid) builds: what the runtime costs on the machine simulated besides the kernels
// its models measured. No effect in a real build.
//  task_gap: added to every task's time (scheduling and launch that no pipelining hides: a GPU
//    worker's stream runs its tasks one after the other).
//  launch_latency: the time a GPU worker takes from starting a task to handing it to its GPU,
//    spent by the worker: where tasks queue on a GPU (the CUDA pipeline) the GPU runs the previous
//    one meanwhile; where a task waits for another GPU's, it lengthens the path (docs/lab.md).
struct SimulatedOverheads {
  double task_gap_s = 0, launch_latency_s = 0;
};
void set_simulated_overheads(const SimulatedOverheads& o);

// A footprint from the integers that determine a task's cost.
uint32_t footprint_of(std::initializer_list<int64_t> values);

}  // namespace ondes
