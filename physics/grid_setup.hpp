// What the grid's physics puts into a block's arrays before the first step: the material at the
// staggered points, the C-PML cells and profiles, and the source points. The block's place is its
// first interior cell (x0, y0) in the grid and its shape; partition/block_data allocates the
// arrays and hands them to StarPU.
#pragma once
#include <cstdint>
#include <vector>

#include "core/case.hpp"
#include "core/anelastic_layout.hpp"
#include "core/pml_layout.hpp"

namespace ondes {

// The per-step constants of the compute tasks (shape left for the block).
StepParams step_params(const Case& c);

// material[kMaterialComponents][cells]: density, lambda and 1/mu of every cell, ghosts included
// (core/layout.hpp's buoyancy, shear_modulus, shear_mean give them at the staggered points), then
// each plane's z partner (core/layout.hpp): s.material_floats() floats.
void fill_material(const Case& c, int x0, int y0, const BlockShape& s, float* material);
// fill_material in two parts: the padded planes [k_begin, k_end) (-kGhost <= k_begin, k_end <= nz +
// kGhost; slabs may be filled at once by several threads), then, once every plane is, the z partners.
void fill_material_planes(const Case& c, int x0, int y0, const BlockShape& s, float* material, int k_begin, int k_end);
void fill_material_partners(const Case& c, const BlockShape& s, float* material);

// The attenuation of a case's compute_stress tasks: the mechanisms fitted over its band and the
// distinct (Qp, Qs) of its cells; {0, 0} for an elastic case.
AnelasticShape anelastic_shape(const Case& c);
// The AnelasticLayout buffer of an attenuating case's block: memory variables left as they are
// (zero), each cell's Q class from its layer's qp and qs (a 3D model cannot attenuate yet), the
// classes' gains and the mechanisms' decays (physics/attenuation.hpp).
void fill_anelastic(const Case& c, int x0, int y0, const BlockShape& s, char* anelastic);

// The block's cells outside the C-PML (PmlRegion), clamped to the block.
PmlBox pml_box(const Case& c, int x0, int y0, const BlockShape& s);

// Padded indices of the block's PML cells (PmlRegion), in z, y, x order.
std::vector<int64_t> pml_cells(const Case& c, int x0, int y0, const BlockShape& s);
// With Ondes3D's geological nodes (Medium::ondes3d_nodes), the classes of those cells' field points
// as PmlLayout holds them (words: [count] of the velocity points, then [count] of the stress points)
// and vps, the distinct vps Ondes3D's C-PML takes at them, from the nodes of the block's material mat.
struct PmlPointClasses {
  std::vector<PmlPointWords> words;
  std::vector<double> vps;
};
PmlPointClasses pml_point_classes(const BlockShape& s, const std::vector<int64_t>& cells, const float* mat);
// The PmlLayout buffer of those cells: indices, per-axis profiles, the point classes and their
// profiles (none without Ondes3D's geological nodes); memory variables left as they are. Returns
// the number of vp classes of the block's levels (StepParams::pml_classes).
int fill_pml(const Case& c, int x0, int y0, const BlockShape& s, const std::vector<int64_t>& cells,
             const PmlPointClasses& points, char* pml);

// A block's source points of one field kind, their sources' time functions (one emitter a source)
// and the samples of the sampled ones (never empty: a task reads them whether any is sampled or not).
struct SourceSet {
  std::vector<SourcePoint> points;
  std::vector<SourceEmitter> emitters;
  std::vector<double> samples{0.0};
  std::vector<SourceRun> runs;  // the points' runs as the CPU adds them (partition/: cpu::source_runs)
};
struct BlockSources {
  SourceSet force, moment;
};
// The points through which the case's sources act on the block: forces on the velocity
// (`material` gives the buoyancy), moment tensors on the stress; sorted by target, each run's first
// point holding the run's length (core/layout.hpp SourcePoint).
BlockSources source_points(const Case& c, int x0, int y0, const BlockShape& s, const float* material);

// The block's cells [lo[0], hi[0]) x [lo[1], hi[1]) x [lo[2], hi[2]).
struct CellRange {
  int lo[3], hi[3];
};
// Kinetic + strain energy of the block's cells in r (joules).
double energy(const BlockShape& s, const float* v, const float* stress, const float* mat, const CellRange& r, double h);

}  // namespace ondes
