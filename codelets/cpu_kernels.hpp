// CPU kernels of one block: loops over the shared per-cell stencils of stencil.hpp.
// No StarPU here; tasks/ wraps these in codelets.
#pragma once
#include "codelets/layout.hpp"
#include "codelets/snapshot.hpp"

namespace ondes::cpu {

// Velocity from stress over the interior, then the PML correction on the `pml_cells` PML cells
// (pml may be null).
void compute_velocity(const StepParams& p, float* v, const float* s, const float* mat, char* pml, int64_t pml_cells);
// Stress from velocity, PML correction, then the free-surface images of the stress.
void compute_stress(const StepParams& p, float* s, const float* v, const float* mat, char* pml, int64_t pml_cells);

// Copies a box of every component between the block's array and a boundary buffer.
void save_box(const BlockShape& shape, int ncomp, const Box& b, const float* field, float* buffer);
void load_box(const BlockShape& shape, int ncomp, const Box& b, const float* buffer, float* field);

// field[comp][idx] += coef * s(t) for each point.
void apply_sources(float* field, int64_t cells, const SourcePoint* points, int64_t count, double t);

// traces[station][component][step] from the velocity buffers of the stations' blocks.
void record(const StationBlocks& blocks, const StationPoint* st, int64_t count, int step, int nsteps,
            float* traces);

// samples[station][3][8] = the corners of the stations that lie in the block of `slot`.
void sample_stations(const float* v, int64_t cells, const StationPoint* st, int64_t count, int slot, float* samples);

// The largest watchdog_magnitude of the interior velocity of a block.
float velocity_peak(const BlockShape& shape, const float* v);

// A plane of the velocity into plane[3][n2][n1] (codelets/snapshot.hpp).
void extract_plane(const PlaneArgs& p, const float* v, float* plane);
// Running peak ground velocity of the top face, pgv[2][ny][nx].
void update_pgv(const BlockShape& shape, const float* v, float* pgv);

// Kinetic + strain energy of the cells [i0,i1) x [j0,j1) x [k0,k1), times h^3 (joules).
double energy(const BlockShape& shape, const float* v, const float* s, const float* mat, int i0, int i1, int j0,
              int j1, int k0, int k1, double h);

}  // namespace ondes::cpu
