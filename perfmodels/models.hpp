// StarPU performance models of the codelets: history-based, keyed by StarPU's footprint of the
// task's data sizes, so each block shape is calibrated on its own. Stored under $STARPU_HOME.
#pragma once
#include <starpu.h>

namespace ondes {

struct PerfModels {
  starpu_perfmodel velocity, stress, save_boundary, update_source, record, sample, watch;
};

// Initialised on first use; the symbols are stable so calibrations carry over between runs.
PerfModels& perf_models();

}  // namespace ondes
