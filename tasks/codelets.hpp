// StarPU codelets of the iteration. Each has a CPU implementation (codelets/cpu_kernels) and, when
// StarPU has CUDA and the CUDA kernels are built, a CUDA one (codelets/cuda_kernels, asynchronous on
// StarPU's stream), and a performance model.
#pragma once
#include <starpu.h>

#include "codelets/layout.hpp"
#include "codelets/snapshot.hpp"

namespace ondes {

// Arguments of compute_velocity / compute_stress, passed by value. Buffers: the updated field (RW),
// the other field (RW: its ghosts are filled from the neighbours' boundary buffers), material (R),
// PML memory (RW) if has_pml, then one boundary buffer (R) per bit of neighbour_mask, in Direction order.
struct ComputeArgs {
  StepParams params;
  int has_pml = 0;
  int neighbour_mask = 0;
  int64_t pml_cells = 0;
};

struct SaveArgs {
  BlockShape shape;
  int ncomp = 0;
  int dir = 0;
};

struct SourceArgs {
  int64_t cells = 0;
  double time = 0;
};

// Buffers of record_seismograms: station points (R), traces (RW), then the velocity (R) of each
// block the stations read, cells[slot] per component (or, for a group spread over ranks, the
// samples of each slot, cells 0).
struct RecordArgs {
  int step = 0;
  int nsteps = 0;
  int nblocks = 0;
  int64_t cells[kMaxStationBlocks] = {};
};

// Buffers of sample_stations: the block's velocity (R), station points (R), samples (W).
struct SampleArgs {
  int64_t cells = 0;
  int slot = 0;
};

// Buffers of watch_velocity: the block's velocity (R), its peak (W, one float).
struct WatchArgs {
  BlockShape shape;
};

// Buffers of extract_plane: the block's velocity (R), the plane (W); args PlaneArgs.
// Buffers of update_pgv: the block's velocity (R), the peaks (RW); args BlockShape.

// The arguments a task was submitted with (STARPU_VALUE), as its codelet and its models read them.
template <class Args>
Args task_args(void* cl_arg) {
  Args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  return a;
}

struct Codelets {
  starpu_codelet velocity, stress, save_boundary, update_source, record, sample, watch, plane, pgv;
};

Codelets& codelets();

// Whether the codelets carry CUDA implementations in this build.
bool cuda_codelets_built();

}  // namespace ondes
