// The material the z-marching kernels (codelets/march.hpp) read at their cells, by the block's
// material form, carried down a thread block's column: the values of the plane below are loaded
// while the plane is computed (fetch), as the fields' are, and move up a plane after it (slide).
// The same functions of the same values as the CPU rows' accessors (stencil.hpp's buoyancies,
// elastic_moduli and normal_shear), hence the same bits. CUDA only.
#pragma once
#include "codelets/march_tiles.hpp"
#include "codelets/material.hpp"
#include "codelets/stencil.hpp"

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda::march {

// The shared-memory tiles of each march, by material form (XPatch's slots follow them): velocity,
// the five stress tiles and the density's (none where the plane's factors or the node classes
// serve); stress, the three velocity tiles and 1/mu's two (planes k and k + 1; none for those).
ONDES_HD constexpr bool reads_arrays(int form) { return form == kCellForm; }
ONDES_HD constexpr int velocity_tiles(int form) { return reads_arrays(form) ? 6 : 5; }
ONDES_HD constexpr int stress_tiles(int form) { return reads_arrays(form) ? 5 : 3; }

// The factors of a march's cell by its parity (kParityForm): its column's, plane k's.
struct ColumnFactors {
  const float* f;  // plane 0's
  __device__ ColumnFactors(const float* mat, const BlockShape& sh, const Column& c)
      : f(parity_factors(mat, sh).at(c.i, c.j, 0)) {}
  __device__ CellFactors at(int k) const { return ParityFactors{f}.cell(0, 0, k); }
};

// The buoyancies of a velocity march's cell: the plane's factors (kPlaneForm) or those of the
// cell's parity (kParityForm); the cell's class's, those of the plane below loaded a plane ahead
// from the class loaded two planes ahead (kNodeForm); or the density's, x and y neighbours from
// tile 5 and z from registers (kCellForm: RhoAt).
template <int TY, int Form>
struct VelocityMedium {
  const float* rho;
  PlaneFactors factors;
  ColumnFactors parity;
  NodeClasses nodes;
  RhoAt<TY> m{tile_centre(), 0.0f, 0.0f};
  Buoyancies bn{}, next_bn{};
  uint32_t next_class = 0;
  float next_rho = 0.0f;
  __device__ VelocityMedium(const float* mat, const BlockShape& sh, const Column& c)
      : rho(mat + RHO * sh.cells()), factors(plane_factors(mat, sh)), parity(mat, sh, c), nodes(node_classes(mat, sh)) {}
  // The first plane's values, q: the cell in it.
  __device__ void start(int64_t q, int64_t sz) {
    if constexpr (Form == kCellForm) m.here = rho[q], m.up = rho[q + sz];
    if constexpr (Form == kNodeForm) bn = buoyancies(nodes.at(q)), next_class = nodes.cls[q + sz];
  }
  // The plane below's values, q this plane's cell.
  __device__ void fetch(int64_t q, int64_t sz) {
    if constexpr (Form == kCellForm) next_rho = rho[q + 2 * sz];
    if constexpr (Form == kNodeForm) next_bn = buoyancies(nodes.of(next_class)), next_class = nodes.cls[q + 2 * sz];
  }
  __device__ void increments(int k, const Diffs& d, float scale, float (&dv)[kVelocityComponents]) const {
    if constexpr (Form == kPlaneForm) velocity_increments(factors.buoyancies(k), d, scale, dv);
    else if constexpr (Form == kParityForm) velocity_increments(parity.at(k).b, d, scale, dv);
    else if constexpr (Form == kNodeForm) velocity_increments(bn, d, scale, dv);
    else velocity_increments(m, d, scale, dv);
  }
  // Down a plane (what was not fetched: zero, never read).
  __device__ void slide() {
    if constexpr (Form == kCellForm) m.here = m.up, m.up = next_rho, next_rho = 0.0f;
    if constexpr (Form == kNodeForm) bn = next_bn;
  }
};

// The moduli of a stress march's cell: the plane's (kPlaneForm, per cell: loaded a plane, their
// seven values stalled the kernel: docs/performance.md, Decisions: moduli per cell); those of the
// cell's parity (kParityForm); the cell's class's, loaded as VelocityMedium's buoyancies
// (kNodeForm); or lambda at the cell from registers and 1/mu from the tiles of planes k and k + 1
// (kCellForm: ImuAt; the tiles staged by the march).
template <int Form>
struct StressMedium {
  const float* mat;
  const float* lam;
  ColumnFactors parity;
  NodeClasses nodes;
  float l = 0.0f, next_l = 0.0f;
  Moduli un{}, next_un{};
  uint32_t next_class = 0;
  __device__ StressMedium(const float* mat, const BlockShape& sh, const Column& c)
      : mat(mat), lam(mat + LAM * sh.cells()), parity(mat, sh, c), nodes(node_classes(mat, sh)) {}
  __device__ void start(int64_t q, int64_t sz) {
    if constexpr (Form == kCellForm) l = lam[q];
    if constexpr (Form == kNodeForm) un = elastic_moduli(nodes.at(q)), next_class = nodes.cls[q + sz];
  }
  __device__ void fetch(int64_t q, int64_t sz) {
    if constexpr (Form == kCellForm) next_l = lam[q + sz];
    if constexpr (Form == kNodeForm) next_un = elastic_moduli(nodes.of(next_class)), next_class = nodes.cls[q + 2 * sz];
  }
  // cell: the 1/mu tiles' elements of this thread's cell (kCellForm).
  __device__ Moduli moduli(const BlockShape& sh, int k, const ImuAt& cell) const {
    if constexpr (Form == kPlaneForm) return elastic_moduli(plane_at(mat, sh, k));
    else if constexpr (Form == kParityForm) return parity.at(k).u;
    else if constexpr (Form == kNodeForm) return un;
    else return elastic_moduli(cell);
  }
  // The shear modulus at the normal stresses (normal_shear) of an attenuating medium.
  __device__ float normal_shear(const BlockShape& sh, int k, const ImuAt& cell, const Moduli& u) const {
    if constexpr (Form == kPlaneForm) return ondes::normal_shear(plane_at(mat, sh, k), u);
    else if constexpr (Form == kParityForm) return parity.at(k).mu;
    else if constexpr (Form == kNodeForm) return node_normal_shear(u);
    else return ondes::normal_shear(cell, u);
  }
  __device__ void slide() {
    l = next_l, next_l = 0.0f;
    if constexpr (Form == kNodeForm) un = next_un;
  }
};

}  // namespace ondes::cuda::march
#endif
