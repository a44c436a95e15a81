// Measures the figures of the analytic cost model on this machine (`ondes3d calibrate`): for CPU
// workers alone, then CUDA workers alone if there are any, the steady time per iteration of the
// case at a coarse and a fine block layout gives the stencils' effective bandwidth per worker and
// the runtime's cost per task (perfmodels/cost_model.hpp, solve_kind); StarPU's bus calibration
// gives the host <-> GPU link.
#pragma once
#include "perfmodels/cost_model.hpp"
#include "core/case.hpp"

namespace ondes {

// steps: iterations measured per layout (after 10 of warm-up). ncpu: CPU workers (-1: StarPU's
// default or STARPU_NCPU). Logs each measurement.
MachineModel calibrate_machine(const Case& c, int steps, int ncpu);

}  // namespace ondes
