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

// Simulated (SimGrid) builds: the time a task costs besides its kernels on the machine simulated
// (scheduling, launch), added to every task's measured mean. No effect in a real build.
void set_simulated_task_gap(double seconds);

// A footprint from the integers that determine a task's cost.
uint32_t footprint_of(std::initializer_list<int64_t> values);

}  // namespace ondes
