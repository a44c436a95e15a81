// CUDA kernels of one block, launched asynchronously on the given stream. They use the per-cell
// stencils of stencil.hpp (the same code as the CPU loops) and never copy data: StarPU hands them
// device pointers. No StarPU here, so they compile without a CUDA-enabled StarPU.
#pragma once
#include <cuda_runtime.h>

#include "codelets/layout.hpp"
#include "codelets/snapshot.hpp"

namespace ondes::cuda {

void compute_velocity(const StepParams& p, float* v, const float* s, const float* mat, char* pml, int64_t pml_cells,
                      cudaStream_t stream);
void compute_stress(const StepParams& p, float* s, const float* v, const float* mat, char* pml, int64_t pml_cells,
                    cudaStream_t stream);
void save_box(const BlockShape& shape, int ncomp, const Box& b, const float* field, float* buffer, cudaStream_t stream);
void load_box(const BlockShape& shape, int ncomp, const Box& b, const float* buffer, float* field, cudaStream_t stream);
void apply_sources(float* field, int64_t cells, const SourcePoint* points, int64_t count, double t,
                   cudaStream_t stream);

void record(const StationBlocks& blocks, const StationPoint* st, int64_t count, int step, int nsteps, float* traces,
            cudaStream_t stream);
void sample_stations(const float* v, int64_t cells, const StationPoint* st, int64_t count, int slot, float* samples,
                     cudaStream_t stream);
// Snapshots (codelets/snapshot.hpp): a plane of the velocity, the running peak ground velocity.
void extract_plane(const PlaneArgs& p, const float* v, float* plane, cudaStream_t stream);
void update_pgv(const BlockShape& shape, const float* v, float* pgv, cudaStream_t stream);
// *peak (device memory) = the largest watchdog_magnitude of the interior velocity.
void velocity_peak(const BlockShape& shape, const float* v, float* peak, cudaStream_t stream);

}  // namespace ondes::cuda
