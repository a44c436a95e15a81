// StarPU performance models of the codelets, stored under $STARPU_HOME and calibrated by runs.
// The stencil tasks (compute_velocity, compute_stress, save_boundary) use StarPU's non-linear
// regression model: a history keyed by the block's dimensions (and PML cells, neighbours) and,
// once sizes over more than 10% apart have been seen, a fit time = a * size^b + c over the cells
// a task touches, which StarPU uses for any size within 0.9x-1.1x of the calibrated range (so a
// block size never run before still gets a prediction). The small tasks keep a history model.
#pragma once
#include <starpu.h>

#include <cstddef>

namespace ondes {

struct PerfModels {
  starpu_perfmodel velocity, stress, save_boundary, update_source, record, sample, watch, plane, pgv;
};

// Initialised on first use; the symbols are stable so calibrations carry over between runs.
PerfModels& perf_models();

// The regression's size of a task: cells of the block (compute tasks) or values copied (save).
size_t model_size(starpu_task* task);

}  // namespace ondes
