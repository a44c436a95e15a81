// The factors of a plane's updates where a block's material is uniform by plane (homogeneous and
// layered media: StepParams::uniform_planes): the buoyancies at a cell's three velocity points and
// its elastic moduli, the same for every cell of the plane. Computed once for the run on the CPU
// (fill_plane_factors, into the end of the block's material buffer: core/layout.hpp kPlaneFactors)
// by stencil.hpp's buoyancies and elastic_moduli on the plane's values, and read by the CUDA
// kernels instead of computed at every cell: the same function of the same values, the same bits.
// Read by the velocity march and the PML kernels; the stress march computes its moduli per cell
// (docs/performance.md, Decisions: moduli per cell).
// Why: their IEEE reciprocals (three a velocity cell, four a stress cell) were about a tenth of
// the march kernels' instructions, which issue near their peak. Computed once a plane by one
// thread of each thread block instead, they made the march slower: the others waited for it at
// the barrier (docs/performance.md, Decisions: stored reciprocals).
#pragma once
#include <array>
#include <cstring>
#include <unordered_map>
#include <vector>

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

// A block's Ondes3D node classes (StepParams::node_material; core/layout.hpp kNodeClassFloats):
// cell q's class, its values read through NodeClassAt.
struct NodeClasses {
  const uint32_t* cls;
  const float* table;
  ONDES_CELL NodeClassAt at(int64_t q) const { return of(cls[q]); }
  ONDES_CELL NodeClassAt of(uint32_t c) const { return {table + int64_t(kNodeClassFloats) * c}; }
};
ONDES_CELL NodeClasses node_classes(const float* mat, const BlockShape& sh) {
  return {reinterpret_cast<const uint32_t*>(mat + sh.node_class_offset()), mat + sh.node_table_offset()};
}

}  // namespace ondes

namespace ondes::cpu {
// The planes' factors of a block whose material is uniform by plane, from its arrays.
void fill_plane_factors(const BlockShape& shape, float* mat);
// The node classes of a block whose arrays hold Ondes3D's nodes (filled, ghosts included): each
// padded cell's class (index, cells() of them; 0 where a neighbour at +1 lies outside the block:
// no update reads those) and the classes' values (kNodeClassFloats each), distinct by their bits.
struct NodeClassTable {
  std::vector<uint32_t> index;
  std::vector<float> values;
};
NodeClassTable node_classes(const BlockShape& shape, const float* mat);
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
// Ondes3D's geological nodes (StepParams::node_material): the CPU rows and PML runs average the
// nodes (NodeAt), vectorised as the cell form's arithmetic is, where the CUDA kernels read the
// cells' classes (NodeClassAt): the same bits. Why: read by class, each cell gathered eight values,
// and the CPU loops ran far slower than the cell form's (docs/performance.md).
struct NodeMaterial {
  CellMaterial cells;
  ONDES_ROW NodeAt<ArrayAt> at(int64_t i) const { return {cells.at(i)}; }
};
// f(material) for the cells of plane k: PlaneMaterial if uniform, NodeMaterial for Ondes3D's nodes
// (Nodes false leaves it out: the every-cell attenuation has no node form), else CellMaterial.
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

// The key of a class: its values' bits.
struct NodeClassKey {
  std::array<uint32_t, kNodeClassFloats> bits;
  bool operator==(const NodeClassKey& o) const { return bits == o.bits; }
};
struct NodeClassHash {
  size_t operator()(const NodeClassKey& k) const {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t b : k.bits) h = (h ^ b) * 1099511628211ull;
    return size_t(h);
  }
};

NodeClassTable node_classes(const BlockShape& sh, const float* mat) {
  NodeClassTable t;
  t.index.assign(sh.cells(), 0);
  std::unordered_map<NodeClassKey, uint32_t, NodeClassHash> seen;
  const CellMaterial cells{mat, sh.cells(), sh.sy(), sh.sz()};
  NodeClassKey last{};
  uint32_t last_class = 0;
  auto add = [&](const NodeClassKey& key) {
    if (!t.values.empty() && key == last) return last_class;
    const auto [it, fresh] = seen.try_emplace(key, uint32_t(seen.size()));
    if (fresh) {
      const float* v = reinterpret_cast<const float*>(key.bits.data());
      t.values.insert(t.values.end(), v, v + kNodeClassFloats);
    }
    last = key, last_class = it->second;
    return last_class;
  };
  // Every cell whose +1 neighbours lie in the block: the updates' cells and more.
  for (int k = -kGhost; k < sh.nz + kGhost - 1; ++k)
    for (int j = -kGhost; j < sh.ny + kGhost - 1; ++j)
      for (int i = -kGhost; i < sh.nx + kGhost - 1; ++i) {
        const int64_t q = sh.idx(i, j, k);
        const NodeAt<ArrayAt> m{cells.at(q)};
        const Buoyancies b = buoyancies(m);
        const Moduli u = elastic_moduli(m);
        const float v[kNodeClassFloats] = {b.b[0], b.b[1], b.b[2], u.lam, u.l2m, u.mxy, u.mxz, u.myz};
        NodeClassKey key;
        std::memcpy(key.bits.data(), v, sizeof v);
        t.index[q] = add(key);
      }
  if (t.values.empty()) t.values.assign(kNodeClassFloats, 0.0f);
  return t;
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {

// How a CUDA kernel reads a block's material (StepParams): a plane's factors (kPlaneForm, where
// uniform_planes), Ondes3D's node classes (kNodeForm, node_material: NodeClassAt) or the arrays at each cell.
enum MaterialForm : int { kCellForm = 0, kPlaneForm = 1, kNodeForm = 2 };
inline int material_form(const StepParams& p) {
  return p.uniform_planes ? kPlaneForm : p.node_material ? kNodeForm : kCellForm;
}
// The material at padded cell q, in form kCellForm or kNodeForm.
template <int Form>
__device__ inline auto cell_material(const float* mat, const BlockShape& sh, int64_t q) {
  if constexpr (Form == kNodeForm) return node_classes(mat, sh).at(q);
  else return array_at(mat, sh, q);
}
// Form (MaterialForm): kPlaneForm where the block's material is uniform in every plane
// (StepParams::uniform_planes): the plane's factors (codelets/material.hpp: buoyancies, moduli)
// rather than the material at the cell and its neighbours, the anelastic update (N > 0) the plane's
// material (PlaneAt); kNodeForm for Ondes3D's geological nodes (StepParams::node_material: NodeClassAt);
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
