// The factors of a plane's updates where a block's material is uniform by plane (homogeneous and
// layered media: StepParams::uniform_planes): the buoyancies at a cell's three velocity points and
// its elastic moduli, the same for every cell of the plane. Computed once for the run on the CPU
// (fill_plane_factors, into the end of the block's material buffer: core/layout.hpp kPlaneFactors)
// by stencil.hpp's buoyancies and elastic_moduli on the plane's values, and read by the CUDA
// kernels instead of computed at every cell: the same function of the same values, the same bits.
// Read by the velocity march and the PML kernels; the stress march computes its moduli per cell
// (seven loads a plane stalled it on the H100, march.hpp).
// Why: their IEEE reciprocals (three a velocity cell, four a stress cell) were about a tenth of
// the march kernels' instructions, and the H200 issues those kernels at 62-69% of its peak
// (6bb2ab2:bench/results/gpu_h200_fused_step_probe.txt). Computed once a plane by one thread of each
// thread block instead, they made the march 4% slower: the others waited for it at the barrier.
#pragma once
#include <cstring>

#include "codelets/kernel_support.hpp"
#include "codelets/stencil.hpp"

namespace ondes {

static_assert(sizeof(Buoyancies) + sizeof(Moduli) == kPlaneMaterialFactors * sizeof(float), "a plane's factors");

struct PlaneFactors {
  const float* f;  // plane k's at f + k * kPlaneFactors: Buoyancies, then Moduli
  ONDES_CELL Buoyancies buoyancies(int k) const {
    const float* p = f + k * kPlaneFactors;
    return {{p[0], p[1], p[2]}};
  }
  ONDES_CELL Moduli moduli(int k) const {
    const float* p = f + k * kPlaneFactors + kVelocityComponents;
    return {p[0], p[1], p[2], p[3], p[4], p[5], p[6]};
  }
};
ONDES_CELL PlaneFactors plane_factors(const float* mat, const BlockShape& sh) {
  return {mat + kMaterialComponents * sh.cells()};
}

}  // namespace ondes

namespace ondes::cpu {
// The planes' factors of a block whose material is uniform by plane, from its arrays.
void fill_plane_factors(const BlockShape& shape, float* mat);
}  // namespace ondes::cpu

#ifdef ONDES_DEFINE_CPU_KERNELS
namespace ondes::cpu {

// The material as a row's cells read it: the arrays at each cell (CellMaterial), or, where every
// plane of the block is uniform (StepParams::uniform_planes), the row's plane loaded once
// (PlaneMaterial, stencil.hpp's PlaneAt): the same values into the same arithmetic, hence the same
// bits, without the three material streams (12 of ~130 bytes a cell-update) and with the moduli
// loop-invariant.
struct CellMaterial {
  const float* mat;
  int64_t n, sy, sz;
  ONDES_ROW ArrayAt at(int64_t i) const { return ArrayAt{mat, n, i, sy, sz}; }
};
struct PlaneMaterial {
  PlaneAt plane;
  ONDES_ROW const PlaneAt& at(int64_t) const { return plane; }
};
// Ondes3D's geological nodes (StepParams::node_material), averaged as Ondes3D does (NodeAt).
struct NodeMaterial {
  CellMaterial cells;
  ONDES_ROW NodeAt<ArrayAt> at(int64_t i) const { return {cells.at(i)}; }
};
// f(material) for the cells of plane k: PlaneMaterial if uniform, NodeMaterial for Ondes3D's nodes
// (elastic only: Nodes false leaves it out), else CellMaterial.
template <bool Nodes = true, class F>
ONDES_ROW inline void with_material(const StepParams& p, bool uniform, const float* mat, int k, F&& f) {
  const BlockShape& sh = p.shape;
  const CellMaterial cells{mat, sh.cells(), sh.sy(), sh.sz()};
  if (uniform) {
    f(PlaneMaterial{plane_at(mat, sh, k)});
  } else if constexpr (Nodes) {
    if (p.node_material)
      f(NodeMaterial{cells});
    else
      f(cells);
  } else {
    f(cells);
  }
}

void fill_plane_factors(const BlockShape& sh, float* mat) {
  float* f = mat + kMaterialComponents * sh.cells();
  for (int k = 0; k < sh.nz; ++k, f += kPlaneFactors) {
    const PlaneAt m = plane_at(mat, sh, k);
    const Buoyancies b = buoyancies(m);
    const Moduli u = elastic_moduli(m);
    std::memcpy(f, &b, sizeof b);
    std::memcpy(f + kVelocityComponents, &u, sizeof u);
  }
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {

// How a CUDA kernel reads a block's material (StepParams): a plane's factors (kPlaneForm, where
// uniform_planes), Ondes3D's nodes (kNodeForm, node_material: NodeAt) or the arrays at each cell.
enum MaterialForm : int { kCellForm = 0, kPlaneForm = 1, kNodeForm = 2 };
inline int material_form(const StepParams& p) {
  return p.uniform_planes ? kPlaneForm : p.node_material ? kNodeForm : kCellForm;
}
// The material at padded cell q, in form kCellForm or kNodeForm.
template <int Form>
__device__ inline auto cell_material(const float* mat, const BlockShape& sh, int64_t q) {
  if constexpr (Form == kNodeForm) return NodeAt<ArrayAt>{array_at(mat, sh, q)};
  else return array_at(mat, sh, q);
}
// Form (MaterialForm): kPlaneForm where the block's material is uniform in every plane
// (StepParams::uniform_planes): the plane's factors (codelets/material.hpp: buoyancies, moduli)
// rather than the material at the cell and its neighbours, the anelastic update (N > 0) the plane's
// material (PlaneAt); kNodeForm for Ondes3D's geological nodes (StepParams::node_material: NodeAt);
// else the arrays at the cell.
template <int Form>
__device__ inline auto velocity_material(const float* mat, const BlockShape& sh, int64_t q, int k) {
  if constexpr (Form == kPlaneForm) return plane_factors(mat, sh).buoyancies(k);
  else return cell_material<Form>(mat, sh, q);
}
template <int Form, int N>
__device__ inline auto stress_material(const float* mat, const BlockShape& sh, int64_t q, int k) {
  if constexpr (Form == kPlaneForm && N == 0) return plane_factors(mat, sh).moduli(k);
  else if constexpr (Form == kPlaneForm) return plane_at(mat, sh, k);
  else return cell_material<Form>(mat, sh, q);
}

}  // namespace ondes::cuda
#endif
