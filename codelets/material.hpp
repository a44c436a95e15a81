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
#include <type_traits>
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

// The factors of a block whose planes repeat with period 2 along x and y (StepParams::parity_planes:
// the coarse-grained attenuation's cubes of unrelaxed moduli; core/layout.hpp kParityFloats): cell
// (i, j, k)'s, those of its plane's cells of its parity. Computed once for the run on the CPU
// (fill_parity_factors) by buoyancies, elastic_moduli and normal_shear on the arrays at a cell of
// each parity, hence the bits those give at every cell of it. Why: the cells' arrays (12 bytes a
// cell-update) and their seven reciprocals were what the coarse-grained run read and computed
// beyond the elastic one's plane factors (docs/performance.md, Decisions: parity factors).
struct ParityFactors {
  const float* f;
  ONDES_CELL const float* at(int i, int j, int k) const {
    return f + (int64_t(k) * kParities + (i & 1) + 2 * (j & 1)) * kParityFloats;
  }
  ONDES_CELL CellFactors cell(int i, int j, int k) const {
    const float* e = at(i, j, k);
#ifdef __CUDA_ARCH__
    const float4 a = __ldg(reinterpret_cast<const float4*>(e)), b = __ldg(reinterpret_cast<const float4*>(e) + 1),
                 c = __ldg(reinterpret_cast<const float4*>(e) + 2);
    return {{{a.x, a.y, a.z}}, {a.w, b.x, b.y, b.z, b.w, c.x, c.y}, c.z};
#else
    return {{{e[0], e[1], e[2]}}, {e[3], e[4], e[5], e[6], e[7], e[8], e[9]}, e[10]};
#endif
  }
};
ONDES_CELL ParityFactors parity_factors(const float* mat, const BlockShape& sh) { return {mat + sh.parity_offset()}; }

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
// The parity factors of a block whose planes repeat with period 2 along x and y, from its arrays.
void fill_parity_factors(const BlockShape& shape, float* mat);
// The node classes of a block whose arrays hold Ondes3D's nodes (filled, ghosts included): each
// padded cell's class (index, cells() of them; 0 where a neighbour at +1 lies outside the block:
// no update reads those) and the classes' values (kNodeClassFloats each), distinct by their bits.
struct NodeClassTable {
  std::vector<uint32_t> index;
  std::vector<int32_t> planes;  // each plane's class where all its updated cells share one, else -1
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
// Each is read along row j of its plane through row(j).
struct CellMaterial {
  const float* mat;
  int64_t n, sy, sz;
  ONDES_ROW ArrayAt at(int64_t i) const { return ArrayAt{mat, n, i, sy, sz}; }
  ONDES_ROW CellMaterial row(int) const { return *this; }
};
struct PlaneMaterial {
  PlaneAt plane;
  ONDES_ROW const PlaneAt& at(int64_t) const { return plane; }
  ONDES_ROW PlaneMaterial row(int) const { return *this; }
};
// Planes of period 2 along x and y (StepParams::parity_planes): a row's cells alternate between the
// factors of its even and odd x, selected per cell (the vector loops blend the two).
struct ParityRow {
  CellFactors even, odd;
  int64_t first;  // the padded index of the row's x = 0
  ONDES_ROW CellFactors at(int64_t i) const {
    const bool o = (i - first) & 1;
    return {{{o ? odd.b.b[0] : even.b.b[0], o ? odd.b.b[1] : even.b.b[1], o ? odd.b.b[2] : even.b.b[2]}},
            {o ? odd.u.lam : even.u.lam, o ? odd.u.l2m : even.u.l2m, o ? odd.u.mxy : even.u.mxy,
             o ? odd.u.mxz : even.u.mxz, o ? odd.u.myz : even.u.myz, o ? odd.u.fold_lam : even.u.fold_lam,
             o ? odd.u.fold_l2m : even.u.fold_l2m},
            o ? odd.mu : even.mu};
  }
};
struct ParityMaterial {
  ParityFactors f;
  BlockShape sh;
  int k;
  ONDES_ROW ParityRow row(int j) const { return {f.cell(0, j, k), f.cell(1, j, k), sh.idx(0, j, k)}; }
};
// Ondes3D's geological nodes (StepParams::node_material): the CPU rows and PML runs average the
// nodes (NodeAt), vectorised as the cell form's arithmetic is, where the CUDA kernels read the
// cells' classes (NodeClassAt): the same bits. Why: read by class, each cell gathered eight values,
// and the CPU loops ran far slower than the cell form's (docs/performance.md).
struct NodeMaterial {
  CellMaterial cells;
  ONDES_ROW NodeAt<ArrayAt> at(int64_t i) const { return {cells.at(i)}; }
  ONDES_ROW NodeMaterial row(int) const { return *this; }
};
// A plane of Ondes3D's nodes whose cells are all of one class (the buffer's plane classes,
// core/layout.hpp): that class's values at every cell, held by value so that the rows load them
// once, as PlaneMaterial's; the same bits as the node averages (cpu::node_classes computes the
// classes by them). Why: layered geology leaves most of a block's planes one class, and the
// averages' reciprocals and extra streams made those rows slower than a uniform medium's
// (docs/performance.md, Decisions: node planes).
struct NodeClassPlane {
  alignas(32) float e[kNodeClassFloats];
  ONDES_ROW NodeClassAt at(int64_t) const { return {e}; }
  ONDES_ROW NodeClassPlane row(int) const { return *this; }
};
// Rows of Ondes3D's nodes (their cells read as nodes, averaged or by class: kOndes3dNodes): their PML
// runs take the points' classes.
template <class M>
constexpr bool kNodeRows = kOndes3dNodes<std::decay_t<decltype(std::declval<const M&>().at(int64_t{}))>>;
// f(NodeClassPlane) where plane k's cells are all of one class, else f(NodeMaterial).
template <class F>
ONDES_ROW inline void node_plane_or_cells(const float* mat, const BlockShape& sh, int k, const CellMaterial& cells,
                                          F&& f) {
  const int32_t c = reinterpret_cast<const int32_t*>(mat + sh.node_plane_offset())[k];
  if (c < 0) return f(NodeMaterial{cells});
  NodeClassPlane one;
  std::memcpy(one.e, ondes::node_classes(mat, sh).of(uint32_t(c)).e, sizeof one.e);
  f(one);
}
// How the rows of a block read its material: PlaneMaterial where every plane is uniform (and the
// caller allows it), NodeMaterial for Ondes3D's nodes, ParityMaterial where the planes repeat with
// period 2 (the caller allowing it), else CellMaterial.
struct MaterialRead {
  bool plane, parity;
};
// f(material) for the cells of plane k as r says. Compact false leaves the node and parity forms
// out (the every-cell attenuation has neither: physics/attenuation.hpp, codelets/march.hpp).
template <bool Compact = true, class F>
ONDES_ROW inline void with_material(const StepParams& p, MaterialRead r, const float* mat, int k, F&& f) {
  const BlockShape& sh = p.shape;
  const CellMaterial cells{mat, sh.cells(), sh.sy(), sh.sz()};
  if (r.plane) {
    f(PlaneMaterial{plane_at(mat, sh, k)});
  } else if constexpr (Compact) {
    if (p.node_material)
      node_plane_or_cells(mat, sh, k, cells, f);
    else if (r.parity)
      f(ParityMaterial{parity_factors(mat, sh), sh, k});
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

void fill_parity_factors(const BlockShape& sh, float* mat) {
  static_assert(sizeof(CellFactors) < kParityFloats * sizeof(float), "a parity's factors, then padding");
  float* f = mat + sh.parity_offset();
  for (int k = 0; k < sh.nz; ++k)
    for (int p = 0; p < kParities; ++p, f += kParityFloats) {
      const ArrayAt m{mat, sh.cells(), sh.idx(p & 1, p >> 1, k), sh.sy(), sh.sz()};
      const Moduli u = elastic_moduli(m);
      const CellFactors c{buoyancies(m), u, normal_shear(m, u)};
      std::memcpy(f, &c, sizeof c);
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
  t.planes.assign(sh.nz, -1);
  for (int k = 0; k < sh.nz; ++k) {
    const uint32_t first = t.index[sh.idx(0, 0, k)];
    bool one = true;
    for (int j = 0; j < sh.ny && one; ++j)
      for (int i = 0; i < sh.nx && one; ++i) one = t.index[sh.idx(i, j, k)] == first;
    if (one) t.planes[k] = int32_t(first);
  }
  return t;
}

}  // namespace ondes::cpu
#endif

#ifdef ONDES_DEFINE_CUDA_KERNELS
namespace ondes::cuda {

// How a CUDA kernel reads a block's material (StepParams): a plane's factors (kPlaneForm, where
// uniform_planes), Ondes3D's node classes (kNodeForm, node_material: NodeClassAt) or the arrays at each cell.
enum MaterialForm : int { kCellForm = 0, kPlaneForm = 1, kNodeForm = 2, kParityForm = 3 };
constexpr int kMaterialForms = 4;
inline int material_form(const StepParams& p) {
  return p.uniform_planes ? kPlaneForm : p.node_material ? kNodeForm : p.parity_planes ? kParityForm : kCellForm;
}
// The form a stress update of N memory sets reads: the node and parity forms arise with one at most
// (Ondes3D's Day and Bradley on its geological nodes, the coarse-grained cubes); with more, the
// arrays (every mechanism in every cell has neither).
constexpr int stress_form(int form, int n) {
  return n > 1 && (form == kNodeForm || form == kParityForm) ? kCellForm : form;
}
// pick(std::integral_constant<int, f>{}) for material form f: a kernel's instantiation of it.
template <class Pick>
auto of_form(int f, Pick&& pick) {
  using C = std::integral_constant<int, kCellForm>;
  using P = std::integral_constant<int, kPlaneForm>;
  using N = std::integral_constant<int, kNodeForm>;
  using A = std::integral_constant<int, kParityForm>;
  return f == kPlaneForm ? pick(P{}) : f == kNodeForm ? pick(N{}) : f == kParityForm ? pick(A{}) : pick(C{});
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
// kParityForm where its planes repeat with period 2 (StepParams::parity_planes: CellFactors).
// Cell (i, j, k), padded index q.
template <int Form>
__device__ inline auto velocity_material(const float* mat, const BlockShape& sh, int64_t q, int i, int j, int k) {
  if constexpr (Form == kPlaneForm) return plane_factors(mat, sh).buoyancies(k);
  else if constexpr (Form == kParityForm) return parity_factors(mat, sh).cell(i, j, k).b;
  else return cell_material<Form>(mat, sh, q);
}
template <int Form, int N>
__device__ inline auto stress_material(const float* mat, const BlockShape& sh, int64_t q, int i, int j, int k) {
  if constexpr (Form == kPlaneForm && N == 0) return plane_factors(mat, sh).moduli(k);
  else if constexpr (Form == kPlaneForm) return plane_at(mat, sh, k);
  else if constexpr (Form == kParityForm) return parity_factors(mat, sh).cell(i, j, k);
  else return cell_material<Form>(mat, sh, q);
}

}  // namespace ondes::cuda
#endif
