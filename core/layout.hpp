// Memory layout of a block's arrays, shared by every kernel (CPU and CUDA) and by the set-up code.
// A block holds nx x ny x nz interior cells plus kGhost cells on every side; x is contiguous.
// A handle of a field kind stores its components one after another, each `cells()` long.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/host_device.hpp"
#include "core/stf_kind.hpp"

namespace ondes {

constexpr int kGhost = 2;

enum Component : int { VX = 0, VY = 1, VZ = 2 };
enum StressComponent : int { SXX = 0, SYY = 1, SZZ = 2, SXY = 3, SXZ = 4, SYZ = 5 };
// Material: three properties per cell centre, from which the staggered points' values are
// computed where they are used (buoyancy, shear_modulus, shear_mean below): density, lambda, and
// 1/mu (infinite in a fluid, so that a harmonic mean touching a fluid cell is zero without a
// branch). Three arrays instead of eight precomputed ones: 20 fewer bytes per cell-update.
// Ondes3D's geological models (StepParams::node_material) hold its nodes' material instead:
// density, 1/kappa (IKAP, kappa = lambda + 2 mu / 3, infinite where zero) and 1/mu, the node of
// cell (i, j, k) lying at (i, j - 1/2, k), where Ondes3D puts its vx (node_buoyancy below,
// codelets/stencil.hpp's NodeAt).
enum MaterialComponent : int { RHO = 0, LAM = 1, IMU = 2, IKAP = 1 };
constexpr int kVelocityComponents = 3, kStressComponents = 6, kMaterialComponents = 3;
// After the three arrays, a block's material buffer holds its planes' factors: for plane k of
// [0, nz), kPlaneFactors floats, the buoyancies at a cell's three velocity points and its elastic
// moduli, then its z partner (kMaterialComponents floats: the material its points half a cell
// below average with, physics/grid_setup.hpp's fill_material), where every plane is uniform
// (codelets/material.hpp: PlaneFactors; stencil.hpp: PlaneAt; unused elsewhere).
constexpr int kPlaneMaterialFactors = 10;
constexpr int kPlaneFactors = kPlaneMaterialFactors + kMaterialComponents;
ONDES_HD inline int64_t z_partner_offset(int k) { return int64_t(k) * kPlaneFactors + kPlaneMaterialFactors; }
// Then, from a 16-byte boundary, the factors of a block whose planes repeat with period 2 along x
// and y (StepParams::parity_planes: the coarse-grained attenuation's cubes of unrelaxed moduli):
// for plane k of [0, nz) and each parity (i & 1) | (j & 1) << 1 of the block's indices,
// kParityFloats floats, the buoyancies at a cell's three velocity points, its elastic moduli and
// mu at its normal stresses (codelets/material.hpp: ParityFactors, cpu::fill_parity_factors).
constexpr int kParities = 4, kParityFloats = 12;
// With Ondes3D's geological nodes (StepParams::node_material) the buffer goes on, after the planes'
// factors, with each padded cell's node class (uint32), each plane's class where all its cells share
// one (int32, else -1: the CPU rows' NodeClassPlane), then, from a 32-byte boundary, the classes'
// values, kNodeClassFloats each: the buoyancies at the cell's three velocity points, then lambda,
// lambda + 2 mu and mu at sxy, sxz, syz, as codelets/stencil.hpp's NodeAt averages the nodes
// (codelets/material.hpp: NodeClassAt, cpu::node_classes). Why: a geological model has few
// distinct neighbourhoods of nodes, and a class read a cell replaces the node averages' five
// reciprocals and the nodes' loads (the stress march issued near its peak on them).
constexpr int kNodeClassFloats = 8;
// Floats a velocity and a stress update read or write per cell at the least: each field once,
// the density (velocity), lambda and 1/mu (stress).
constexpr int kVelocityFloatsPerCell = kStressComponents + 2 * kVelocityComponents + 1;
constexpr int kStressFloatsPerCell = kVelocityComponents + 2 * kStressComponents + 2;

// Boundary directions of a block: -x, +x, -y, +y.
enum Direction : int { XM = 0, XP = 1, YM = 2, YP = 3 };
constexpr int kDirections = 4;
ONDES_HD inline int opposite(int dir) { return dir ^ 1; }

struct BlockShape {
  int nx = 0, ny = 0, nz = 0;  // interior cells

  ONDES_HD int64_t sy() const { return nx + 2 * kGhost; }
  ONDES_HD int64_t sz() const { return sy() * (ny + 2 * kGhost); }
  ONDES_HD int64_t cells() const { return sz() * (nz + 2 * kGhost); }
  // Floats of the block's material buffer: the arrays, then the planes' factors and parity factors.
  ONDES_HD int64_t material_floats() const { return parity_offset() + int64_t(kParities) * kParityFloats * nz; }
  // Where the parity factors start (kParityFloats).
  ONDES_HD int64_t parity_offset() const { return (kMaterialComponents * cells() + int64_t(kPlaneFactors) * nz + 3) / 4 * 4; }
  // Where Ondes3D's node classes start in the material buffer (kNodeClassFloats): the cells'
  // classes, then each plane's (int32: the class of every cell the plane's updates read, -1 where
  // they differ), then the classes' values; the floats of such a buffer with `classes` classes.
  ONDES_HD int64_t node_class_offset() const { return material_floats(); }
  ONDES_HD int64_t node_plane_offset() const { return material_floats() + cells(); }
  ONDES_HD int64_t node_table_offset() const { return (node_plane_offset() + nz + 7) / 8 * 8; }
  ONDES_HD int64_t node_material_floats(int64_t classes) const {
    return node_table_offset() + kNodeClassFloats * classes;
  }
  ONDES_HD int64_t idx(int i, int j, int k) const {
    return (static_cast<int64_t>(k + kGhost) * (ny + 2 * kGhost) + (j + kGhost)) * sy() + (i + kGhost);
  }
};

// The material at the staggered points, from the cell-centre properties around them. One
// definition for the stencils (CPU and CUDA), the sources and the energy. Each is a reciprocal
// times a power of two, the same bits as the quotient on either side (IEEE division and reciprocal
// are correctly rounded on both). Buoyancy at a velocity point: 1 / the mean of two densities.
// Vacuum cells (air above a topography) have density 0: a point between vacuum and ground carries
// half the ground cell's mass (the vacuum formalism's surface), one inside vacuum none (buoyancy 0:
// it stays at rest, where 1/0 would feed infinities into the ground's 4th-order stencils).
ONDES_HD inline float buoyancy(float rho0, float rho1) {
  const float sum = rho0 + rho1;
  return sum > 0.0f ? 2.0f * (1.0f / sum) : 0.0f;
}
// mu at a cell centre from 1/mu (zero in a fluid).
ONDES_HD inline float shear_modulus(float imu) { return 1.0f / imu; }
// mu at a shear-stress point: the harmonic mean of the four cells around it, zero if one is fluid.
ONDES_HD inline float shear_mean(float imu00, float imu10, float imu01, float imu11) {
  return 4.0f * (1.0f / ((imu00 + imu10) + (imu01 + imu11)));
}
// Ondes3D's averages of its nodes (computeVeloAndSource.c, computeStress.c, model == GEOLOGICAL):
// a buoyancy 1 / the mean density of four nodes (summed in its order), a modulus the harmonic mean
// of two from their inverses (zero if either is).
ONDES_HD inline float node_mean_buoyancy(float r0, float r1, float r2, float r3) {
  return 1.0f / (0.25f * (((r0 + r1) + r2) + r3));
}
ONDES_HD inline float harmonic2(float inv0, float inv1) { return 2.0f * (1.0f / (inv0 + inv1)); }
// The same from a block's material array: cell i and its neighbour at stride s (1, sy or sz).
ONDES_HD inline float buoyancy_at(const float* mat, int64_t n, int64_t i, int64_t s) {
  return buoyancy(mat[RHO * n + i], mat[RHO * n + i + s]);
}
ONDES_HD inline float mu_at(const float* mat, int64_t n, int64_t i) { return shear_modulus(mat[IMU * n + i]); }
// The buoyancy at velocity point c (VX, VY, VZ) of cell i of a block whose arrays hold Ondes3D's
// nodes: vy is its vx, at a node; vx (its vy) and vz average the four nodes around them
// (codelets/stencil.hpp's NodeAt takes the same).
ONDES_HD inline float node_buoyancy(const float* mat, int64_t n, int64_t i, int64_t sy, int64_t sz, int c) {
  const float* r = mat + RHO * n + i;
  if (c == VX) return node_mean_buoyancy(r[0], r[1], r[sy], r[1 + sy]);
  if (c == VY) return 1.0f / r[sy];
  return node_mean_buoyancy(r[sz], r[0], r[sy + sz], r[sy]);
}

// An x-y box of cells over the whole z column.
struct Box {
  int i0, ni, j0, nj;
};

// The interior cells a block sends to its neighbour in direction dir.
ONDES_HD inline Box edge_box(const BlockShape& s, int dir) {
  switch (dir) {
    case XM: return {0, kGhost, 0, s.ny};
    case XP: return {s.nx - kGhost, kGhost, 0, s.ny};
    case YM: return {0, s.nx, 0, kGhost};
    default: return {0, s.nx, s.ny - kGhost, kGhost};
  }
}

// The ghost cells a block receives from its neighbour in direction dir.
ONDES_HD inline Box ghost_box(const BlockShape& s, int dir) {
  switch (dir) {
    case XM: return {-kGhost, kGhost, 0, s.ny};
    case XP: return {s.nx, kGhost, 0, s.ny};
    case YM: return {0, s.nx, -kGhost, kGhost};
    default: return {0, s.nx, s.ny, kGhost};
  }
}

// Position in a boundary buffer (components, then z, y, x) of cell (ii, jj, k) of a box.
ONDES_HD inline int64_t buffer_index(const Box& b, int nz, int c, int k, int jj, int ii) {
  return ((static_cast<int64_t>(c) * nz + k) * b.nj + jj) * b.ni + ii;
}

// A field kind's halo: the components a neighbour's stencils read across a face (stencil.hpp's
// velocity_diffs and stress_diffs). All three of the velocity; of the six stresses only the three
// differentiated along the face's normal (x faces: sxx, sxy, sxz; y faces: syy, sxy, syz): the other
// three ghosts are never read, and a stress halo is half the size of the whole field's.
enum FieldKind : int { kVelocityKind = 0, kStressKind = 1 };
constexpr int kHaloComponents = 3;
// The field component of the halo's component c towards dir.
ONDES_HD inline int halo_component(int kind, int dir, int c) {
  if (kind == kVelocityKind) return c;
  return dir == XM || dir == XP ? (c == 0 ? SXX : c + 2) : 2 * c + 1;
}

inline int64_t boundary_floats(const BlockShape& s, int dir, int ncomp = kHaloComponents) {
  const Box b = edge_box(s, dir);
  return static_cast<int64_t>(ncomp) * b.ni * b.nj * s.nz;
}

// The part of a block outside the C-PML, in block-local cells: [lo, hi) per axis (empty when
// lo >= hi). Every other cell of the block is a PML cell, and the block's PML list holds them in
// (k, j, i) order, so a cell's place in that list follows from the box alone (pml_index).
struct PmlBox {
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  ONDES_HD bool inside(int i, int j, int k) const {
    return i >= lo[0] && i < hi[0] && j >= lo[1] && j < hi[1] && k >= lo[2] && k < hi[2];
  }
};

// The position in the block's PML list of PML cell (i, j, k): the PML cells of the planes, rows
// and cells before it. A plane outside the box's z span is all PML; in a plane crossing the box,
// a row outside its y span is all PML, and a row crossing it has the cells left and right of it.
// The box is clamped to the block (0 <= lo <= hi <= n).
ONDES_HD inline int64_t pml_index(const PmlBox& b, const BlockShape& s, int i, int j, int k) {
  const int64_t nx = s.nx, ny = s.ny;
  const int64_t box_x = b.hi[0] - b.lo[0], box_y = b.hi[1] - b.lo[1];
  const int64_t row_pml = nx - box_x;                             // of a row crossing the box
  const int64_t plane_pml = (ny - box_y) * nx + box_y * row_pml;  // of a plane crossing it
  const int64_t crossing_planes = k <= b.lo[2] ? 0 : (k < b.hi[2] ? k : b.hi[2]) - b.lo[2];
  int64_t q = (k - crossing_planes) * nx * ny + crossing_planes * plane_pml;
  if (k < b.lo[2] || k >= b.hi[2]) return q + j * nx + i;
  const int64_t crossing_rows = j <= b.lo[1] ? 0 : (j < b.hi[1] ? j : b.hi[1]) - b.lo[1];
  q += (j - crossing_rows) * nx + crossing_rows * row_pml;
  if (j < b.lo[1] || j >= b.hi[1]) return q + i;
  return q + (i < b.lo[0] ? i : i - box_x);
}

// Ondes3D's simple attenuation (Medium::q0_frequency): after each velocity update and each stress
// update a field at depth z (in cells) is multiplied by the factor of the layer holding z: layer l
// from top[l] down.
constexpr int kMaxDampedLayers = 16;
struct Q0Damping {
  int layers = 0;  // 0: no damping
  float top[kMaxDampedLayers] = {};     // cells, increasing, top[0] = 0
  float factor[kMaxDampedLayers] = {};  // exp(-pi f0 dt / q0); 1 where q0 = 0
  ONDES_HD float at(float depth) const {
    float f = factor[0];
    for (int l = 1; l < layers; ++l)
      if (depth >= top[l]) f = factor[l];
    return f;
  }
  // The factors of plane k's two levels: at depth k (vx, vy, the normal stresses, sxy) and at
  // k + 1/2 (vz, sxz, syz).
  struct Plane {
    float xy, z;
  };
  ONDES_HD Plane plane(int k) const { return {at(float(k)), at(float(k) + 0.5f)}; }
};
// StepParams::free_surface: an absorbing top, or core/case.hpp's SurfaceScheme::Imaging / ::Ondes3d.
enum SurfaceKind : int { kNoSurface = 0, kImagingSurface = 1, kOndes3dSurface = 2 };

// Parameters of a compute task, passed by value to the codelets.
struct StepParams {
  BlockShape shape;
  float dt = 0;      // s
  float dt_h = 0;    // dt / h
  float inv_h = 0;   // 1 / h
  int free_surface = 0;  // kNoSurface, kImagingSurface or kOndes3dSurface
  // The block's faces where Ondes3D's computed region ends differently (PmlProfile::Ondes3d,
  // codelets/faces.hpp): bit 0 its y-low face, 1 its y-high face, 2 the bottom, 3 its x-high face.
  int ondes3d_faces = 0;
  PmlBox pml;  // the block's cells outside the C-PML
  Q0Damping damping;
  // Every plane of the block's material is uniform, ghosts included (uniform_planes in
  // partition/block_data.hpp): the CUDA kernels read it once a plane (codelets/stencil.hpp: PlaneAt).
  int uniform_planes = 0;
  // Not uniform, every plane repeats with period 2 along x and y, ghosts included (periodic_planes
  // in partition/block_data.hpp): the kernels read a cell's factors by its parity (ParityFactors).
  int parity_planes = 0;
  // The material arrays hold Ondes3D's geological nodes (MaterialComponent: Medium::ondes3d_nodes).
  int node_material = 0;
  // The vp classes of the block's C-PML levels (core/pml_layout.hpp; several only with Ondes3D's
  // C-PML on layers), 0 where not known: with one, the CUDA PML kernels take class 0's profiles
  // without reading the plane's classes (PmlView::at_plane).
  int pml_classes = 0;
  // The length of the block's PML list (0: none, or no C-PML; tasks/compute.hpp block_params).
  int64_t pml_cells = 0;
};

// A source's time function as its points in a block share it (physics/stf.hpp stf_value's
// arguments), evaluated once a step whatever the number of its points (a finite fault's Ondes3D
// body forces: dozens of points a source). Sampled ones (StfKind::Sampled): f0 the sampling rate,
// duration the sample count, their samples from sample0 on in the block's samples of that field
// kind; Held ones the same but t0 the solver's time step and their samples by step: sample n at
// sample0 + n * stride, the block's held emitters' samples of one step one after another (stride
// their count). Why: a fault's thousands of emitters read a step's values from one stretch of memory
// instead of a cache line and a page each.
struct SourceEmitter {
  double f0, t0, duration;
  int64_t sample0, stride;
  StfKind stf;
};

// A source's contribution to one field value: field[target] += coef * s_emitter(t), target the
// component's array then the padded cell (comp * cells + idx). A block's points are sorted by
// target; the first of each run of points on one target holds the run's length (run), the others
// 0: a CUDA thread per run sums it in the CPU's order without looking for its end.
struct SourcePoint {
  double coef;
  int64_t target;
  int32_t emitter;
  int32_t run;
};

// A run of a block's source points (those on one value, SourcePoint::run of them from `first`) as the
// CPU adds it: its sum over the run's points (codelets/source.hpp source_run) rounded to float, which
// while each of its emitters holds one value is the same at every step. Where all its emitters are
// held (StfKind::Held, on one clock: `clock` their t0), at held step n (stf_value's) below `from` each
// holds its value of step 0 and from `to` on its last: the sum is `before`, `after` there, computed once
// (cpu::source_runs) by the same arithmetic, hence the same bits. clock 0: the run sums every step.
// Why: a fault's subfaults act for a few seconds each, and before the rupture reaches them and after
// they stop their points (a fault's hundreds of thousands in a block) were summed at every step.
struct SourceRun {
  int64_t target, first;
  double clock;
  int32_t from, to;
  float before, after;
};

// Trilinear interpolation of the three velocity components at a station. For component c, corner q
// (q = dx + 2 dy + 4 dz) is read from the velocity buffer `slot[c][q]` of the record task at index
// idx[c][q] (slot -1: outside the grid, value 0), so that no ghost is needed and the value does not
// depend on the block layout.
constexpr int kMaxStationBlocks = 4;
struct StationPoint {
  int64_t idx[3][8];
  int32_t slot[3][8];
  float fx[3], fy[3], fz[3];
};

// A station's corner values as one rank sends them to another: [component][corner].
constexpr int kSampleFloats = 3 * 8;

// The velocity buffers a record task reads, by slot, and their cells per component.
struct StationBlocks {
  const float* v[kMaxStationBlocks];
  int64_t cells[kMaxStationBlocks];
};

}  // namespace ondes
