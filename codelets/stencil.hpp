// The velocity-stress stencils of one cell, shared by the CPU loops and the CUDA kernels
// (codelets/compute.hpp).
// Staggering (Graves 1996): normal stresses at (i, j, k), vx at (i+1/2, j, k), vy at (i, j+1/2, k),
// vz at (i, j, k+1/2), sxy at (i+1/2, j+1/2, k), sxz at (i+1/2, j, k+1/2), syz at (i, j+1/2, k+1/2).
// A field stored at index i of a half-position axis lives at i+1/2.
#pragma once
#include <math.h>

#include <type_traits>

#include "core/anelastic_layout.hpp"

namespace ondes {

constexpr float kC1 = 9.0f / 8.0f, kC2 = -1.0f / 24.0f;

// A cell's update reads its inputs through an accessor: F::at<C, DX, DY, DZ>() is component C of
// the field (or material property) at offset (DX, DY, DZ) from the cell. The CPU loops and the
// CUDA kernels read the block's arrays (ArrayAt); a kernel that stages values elsewhere (shared
// memory, registers) supplies its own accessor and keeps the arithmetic below - the one source of
// both - operation for operation (the z-marching kernels of codelets/march.hpp do, bitwise equal to
// the CPU). The offsets are template arguments, so each read is one load.
struct ArrayAt {
  const float* f;
  int64_t n, i, sy, sz;
  template <int C, int DX, int DY, int DZ>
  ONDES_CELL float at() const {
    return f[C * n + i + DX + DY * sy + DZ * sz];
  }
};

// The material of a block whose every plane is uniform (StepParams::uniform_planes: a homogeneous
// or horizontally layered medium), seen from the cells of plane k: a cell's neighbours in x and y
// carry its own values, those at z + 1 the plane's z partner (core/layout.hpp: the next plane's
// values, or with Ondes3D's layer sampling those that make the points half a cell below take the
// layer at their own depth). Loaded once a plane (from one address: a broadcast on the GPU) instead
// of at every cell: the same values into the same functions, hence the same bits.
struct PlaneAt {
  float here[kMaterialComponents], next[kMaterialComponents];
  // q: any cell of plane k (padded index), n the array stride, partner the plane's z partner.
  ONDES_CELL PlaneAt(const float* mat, int64_t n, int64_t q, const float* partner) {
    ONDES_UNROLL
    for (int c = 0; c < kMaterialComponents; ++c) here[c] = mat[c * n + q], next[c] = partner[c];
  }
  template <int C, int DX, int DY, int DZ>
  ONDES_CELL float at() const {
    static_assert(DX >= 0 && DX <= 1 && DY >= 0 && DY <= 1 && (DZ == 0 || DZ == 1),
                  "the material is read at a cell and its +1 neighbours");
    return DZ == 0 ? here[C] : next[C];
  }
};

// The uniform material of plane k of a block (its ghost corner's padded index: any cell would do).
ONDES_CELL PlaneAt plane_at(const float* mat, const BlockShape& sh, int k) {
  return PlaneAt(mat, sh.cells(), int64_t(k + kGhost) * sh.sz(),
                 mat + kMaterialComponents * sh.cells() + z_partner_offset(k));
}

// A block's array as seen from its cell q.
ONDES_CELL ArrayAt array_at(const float* f, const BlockShape& sh, int64_t q) {
  return ArrayAt{f, sh.cells(), q, sh.sy(), sh.sz()};
}

// 4th-order differences (times h) of component C along axis A: dp at +1/2 from integer points,
// dm at 0 from half points; dp2/dm2 are the 2nd-order ones used where the 4-point stencil would
// leave the medium.
template <int C, int A, class F>
ONDES_CELL float dp(const F& f) {
  constexpr int x = A == 0, y = A == 1, z = A == 2;
  return kC1 * (f.template at<C, x, y, z>() - f.template at<C, 0, 0, 0>()) +
         kC2 * (f.template at<C, 2 * x, 2 * y, 2 * z>() - f.template at<C, -x, -y, -z>());
}
template <int C, int A, class F>
ONDES_CELL float dm(const F& f) {
  constexpr int x = A == 0, y = A == 1, z = A == 2;
  return kC1 * (f.template at<C, 0, 0, 0>() - f.template at<C, -x, -y, -z>()) +
         kC2 * (f.template at<C, x, y, z>() - f.template at<C, -2 * x, -2 * y, -2 * z>());
}
template <int C, int A, class F>
ONDES_CELL float dp2(const F& f) {
  constexpr int x = A == 0, y = A == 1, z = A == 2;
  return f.template at<C, x, y, z>() - f.template at<C, 0, 0, 0>();
}
template <int C, int A, class F>
ONDES_CELL float dm2(const F& f) {
  constexpr int x = A == 0, y = A == 1, z = A == 2;
  return f.template at<C, 0, 0, 0>() - f.template at<C, -x, -y, -z>();
}

// How a z plane is treated: the free surface (k = 0) is the plane of the normal stresses, with
// szz = 0 there and sxz, syz imaged antisymmetrically above it. With Ondes3D's (kOndes3dSurface)
// the velocities above the surface (codelets/surface.hpp) keep the
// 4th-order z differences of sxz, syz at the surface (kSurfaceFourth) and of the plane below it.
enum ZPlane : int { kInterior = 0, kSurface = 1, kBelowSurface = 2, kSurfaceFourth = 3 };
ONDES_CELL int z_plane(int k, int free_surface) {
  if (free_surface == kOndes3dSurface) return k == 0 ? kSurfaceFourth : kInterior;
  return !free_surface ? kInterior : k == 0 ? kSurface : k == 1 ? kBelowSurface : kInterior;
}
// The plane where szz = 0 and dz vz follows from it (Hooke's law folded).
ONDES_CELL bool at_surface(int plane) { return plane == kSurface || plane == kSurfaceFourth; }

// Nine spatial differences feeding one cell's update (times h, or memory variables in PML units).
struct Diffs {
  float d[9];
};

// Velocity: the stress differences (accessor over the stress components).
template <class F>
ONDES_CELL Diffs velocity_diffs(const F& s) {
  return {{dp<SXX, 0>(s), dm<SXY, 1>(s), dm<SXZ, 2>(s),
           dm<SXY, 0>(s), dp<SYY, 1>(s), dm<SYZ, 2>(s),
           dm<SXZ, 0>(s), dm<SYZ, 1>(s), dp<SZZ, 2>(s)}};
}

// Stress: the velocity differences (accessor over the velocity components).
template <class F>
ONDES_CELL Diffs stress_diffs(const F& v, int plane) {
  // At the surface dz vz is not needed (szz = 0 gives it); dz vx, dz vy at k+1/2 = 1/2 would reach
  // above the surface, and dz vz at k = 1 would reach vz at -1/2: 2nd order there.
  // With Ondes3D's surface (kSurfaceFourth) the velocities above it are there: 4th order throughout.
  const float dzvz = at_surface(plane) ? 0.0f : plane == kBelowSurface ? dm2<VZ, 2>(v) : dm<VZ, 2>(v);
  const float dzvx = plane == kSurface ? dp2<VX, 2>(v) : dp<VX, 2>(v);
  const float dzvy = plane == kSurface ? dp2<VY, 2>(v) : dp<VY, 2>(v);
  return {{dm<VX, 0>(v), dm<VY, 1>(v), dzvz,
           dp<VX, 1>(v), dp<VY, 0>(v),
           dzvx, dp<VZ, 0>(v),
           dzvy, dp<VZ, 1>(v)}};
}

// The buoyancies at a cell's three velocity points; m is an accessor over the material. A value of
// its own so that a kernel whose material is uniform by plane computes it once a plane (march.hpp):
// three IEEE reciprocals a cell were a tenth of the velocity march's instructions.
struct Buoyancies {
  float b[kVelocityComponents];
};
template <class M>
ONDES_CELL Buoyancies buoyancies(const M& m) {
  const float rho = m.template at<RHO, 0, 0, 0>();
  return {{buoyancy(rho, m.template at<RHO, 1, 0, 0>()), buoyancy(rho, m.template at<RHO, 0, 1, 0>()),
           buoyancy(rho, m.template at<RHO, 0, 0, 1>())}};
}

// Ondes3D's geological nodes (StepParams::node_material; core/layout.hpp): the material of m read
// as the nodes', averaged at the staggered points as Ondes3D does (computeVeloAndSource.c
// computeVelocity, computeStress.c computeStress, model == GEOLOGICAL; its x is the project's y,
// its k the project's -z): buoyancy node_buoyancy's; kappa and mu at the normal stresses the
// harmonic means of the two nodes along y, mu at sxy of the two along x, at syz of the two along
// z, at sxz of the eight around it (CornerXYZ_GeolInverse), each in its order. Evaluated once a
// run, into the node classes the kernels read (NodeClassAt below).
template <class M>
struct NodeAt {
  M m;
  template <int C, int DX, int DY, int DZ>
  ONDES_CELL float at() const {
    return m.template at<C, DX, DY, DZ>();
  }
};
template <class M>
constexpr bool kIsNodeAt = false;
template <class M>
constexpr bool kIsNodeAt<NodeAt<M>> = true;
template <class M>
ONDES_CELL Buoyancies buoyancies(const NodeAt<M>& n) {
  const M& m = n.m;
  const float r = m.template at<RHO, 0, 0, 0>(), ry = m.template at<RHO, 0, 1, 0>();
  return {{node_mean_buoyancy(r, m.template at<RHO, 1, 0, 0>(), ry, m.template at<RHO, 1, 1, 0>()), 1.0f / ry,
           node_mean_buoyancy(m.template at<RHO, 0, 0, 1>(), r, m.template at<RHO, 0, 1, 1>(), ry)}};
}

// Ondes3D's geological nodes as the kernels read them: the cell's node class (core/layout.hpp
// kNodeClassFloats; codelets/material.hpp NodeClasses), the values NodeAt's buoyancies and
// elastic_moduli give at its neighbourhood of nodes, computed once for the run on the CPU by those
// functions (cpu::node_classes): the same bits.
struct NodeClassAt {
  const float* e;  // the class's kNodeClassFloats values, 32-byte aligned
};
template <class M>
constexpr bool kIsNodeClass = false;
template <>
constexpr bool kIsNodeClass<NodeClassAt> = true;
// Ondes3D's geological nodes, averaged (NodeAt) or read by class (NodeClassAt).
template <class M>
constexpr bool kOndes3dNodes = kIsNodeClass<M> || kIsNodeAt<M>;
ONDES_CELL Buoyancies buoyancies(const NodeClassAt& c) {
#ifdef __CUDA_ARCH__
  const float4 a = __ldg(reinterpret_cast<const float4*>(c.e));
  return {{a.x, a.y, a.z}};
#else
  return {{c.e[0], c.e[1], c.e[2]}};
#endif
}

// A cell's velocity increments, scale * b * (sum of the component's differences).
ONDES_CELL void velocity_increments(const Buoyancies& b, const Diffs& d, float scale, float (&dv)[kVelocityComponents]) {
  dv[VX] = scale * b.b[VX] * (d.d[0] + d.d[1] + d.d[2]);
  dv[VY] = scale * b.b[VY] * (d.d[3] + d.d[4] + d.d[5]);
  dv[VZ] = scale * b.b[VZ] * (d.d[6] + d.d[7] + d.d[8]);
}
template <class M>
ONDES_CELL void velocity_increments(const M& m, const Diffs& d, float scale, float (&dv)[kVelocityComponents]) {
  velocity_increments(buoyancies(m), d, scale, dv);
}
template <class M>
ONDES_CELL void add_velocity(float* v, int64_t n, int64_t i, const M& m, const Diffs& d, float scale) {
  float dv[kVelocityComponents];
  velocity_increments(m, d, scale, dv);
  ONDES_UNROLL
  for (int c = 0; c < kVelocityComponents; ++c) v[c * n + i] += dv[c];
}

// The moduli Hooke's law applies at a cell: lambda and lambda + 2 mu at its centre, mu at its three
// shear-stress points, and the free surface's fold (below).
struct Moduli {
  float lam, l2m, mxy, mxz, myz;
  float fold_lam, fold_l2m;  // at the surface dz vz = -fold_lam / fold_l2m (dx vx + dy vy)
};
// Moduli already computed (codelets/material.hpp: a plane's factors) are what they are.
ONDES_CELL Moduli elastic_moduli(const Moduli& u) { return u; }
template <class M>
ONDES_CELL Moduli elastic_moduli(const M& m) {
  const float imu = m.template at<IMU, 0, 0, 0>();
  const float lam = m.template at<LAM, 0, 0, 0>(), mu = shear_modulus(imu);
  const float l2m = lam + 2.0f * mu;
  const float imu_x = m.template at<IMU, 1, 0, 0>(), imu_y = m.template at<IMU, 0, 1, 0>();
  const float imu_z = m.template at<IMU, 0, 0, 1>();
  return {lam, l2m, shear_mean(imu, imu_x, imu_y, m.template at<IMU, 1, 1, 0>()),
          shear_mean(imu, imu_x, imu_z, m.template at<IMU, 1, 0, 1>()),
          shear_mean(imu, imu_y, imu_z, m.template at<IMU, 0, 1, 1>()), lam, l2m};
}

template <class M>
ONDES_CELL Moduli elastic_moduli(const NodeAt<M>& n) {
  const M& m = n.m;
  const float imu = m.template at<IMU, 0, 0, 0>(), imu_y = m.template at<IMU, 0, 1, 0>();
  const float kappa = harmonic2(m.template at<IKAP, 0, 0, 0>(), m.template at<IKAP, 0, 1, 0>());
  const float mu = harmonic2(imu, imu_y);
  // 2 mu / 3 and 4 mu / 3 from one division: a product by 2 or 4 is exact, so 2 (mu / 3) rounds as
  // (2 mu) / 3 does, the same bits
  const float mu3 = mu / 3.0f, lam = kappa - 2.0f * mu3, l2m = kappa + 4.0f * mu3;
  const float corner = ((((((m.template at<IMU, 0, 0, 1>() + imu) + m.template at<IMU, 1, 0, 1>()) +
                           m.template at<IMU, 1, 0, 0>()) + m.template at<IMU, 0, 1, 1>()) + imu_y) +
                        m.template at<IMU, 1, 1, 1>()) + m.template at<IMU, 1, 1, 0>();
  return {lam, l2m, harmonic2(imu_y, m.template at<IMU, 1, 1, 0>()), 8.0f * (1.0f / corner),
          harmonic2(m.template at<IMU, 0, 1, 1>(), imu_y), lam, l2m};
}

ONDES_CELL Moduli elastic_moduli(const NodeClassAt& c) {
#ifdef __CUDA_ARCH__
  const float4 a = __ldg(reinterpret_cast<const float4*>(c.e)), b = __ldg(reinterpret_cast<const float4*>(c.e) + 1);
  return {a.w, b.x, b.y, b.z, b.w, a.w, b.x};
#else
  return {c.e[3], c.e[4], c.e[5], c.e[6], c.e[7], c.e[3], c.e[4]};
#endif
}

// A cell's factors computed once for the run (codelets/material.hpp ParityFactors): what
// buoyancies, elastic_moduli and normal_shear give on the material at the cell, the same bits.
struct CellFactors {
  Buoyancies b;
  Moduli u;
  float mu;
};
ONDES_CELL Buoyancies buoyancies(const CellFactors& f) { return f.b; }
ONDES_CELL Moduli elastic_moduli(const CellFactors& f) { return f.u; }

// mu at a cell's normal stresses: its cell's, or with Ondes3D's nodes the mean elastic_moduli
// takes, from lambda + 2 mu and lambda (NodeClassAt holds no mu; the same bits from either form).
ONDES_CELL float node_normal_shear(const Moduli& u) { return 0.5f * (u.l2m - u.lam); }
template <class M>
ONDES_CELL float normal_shear(const M& m, const Moduli& u) {
  if constexpr (kOndes3dNodes<M>)
    return node_normal_shear(u);
  else if constexpr (std::is_same_v<M, CellFactors>)
    return m.mu;
  else
    return shear_modulus(m.template at<IMU, 0, 0, 0>());
}

// put(component, scale * (Hooke's law of moduli m applied to the differences)) for each stress
// component the cell updates. At the free surface szz stays zero (not put) and dz vz is folded into
// the moduli (Graves 1996).
template <class Put>
ONDES_CELL void hooke(const Moduli& m, const Diffs& d, float scale, int plane, Put&& put) {
  if (at_surface(plane)) {
    // Vacuum at the surface (lambda + 2 mu = 0) has no stress to fold.
    const float r = m.fold_l2m > 0.0f ? m.lam * m.fold_lam / m.fold_l2m : 0.0f;
    put(SXX, scale * ((m.l2m - r) * d.d[0] + (m.lam - r) * d.d[1]));
    put(SYY, scale * ((m.lam - r) * d.d[0] + (m.l2m - r) * d.d[1]));
  } else {
    put(SXX, scale * (m.l2m * d.d[0] + m.lam * (d.d[1] + d.d[2])));
    put(SYY, scale * (m.l2m * d.d[1] + m.lam * (d.d[0] + d.d[2])));
    put(SZZ, scale * (m.l2m * d.d[2] + m.lam * (d.d[0] + d.d[1])));
  }
  put(SXY, scale * m.mxy * (d.d[3] + d.d[4]));
  put(SXZ, scale * m.mxz * (d.d[5] + d.d[6]));
  put(SYZ, scale * m.myz * (d.d[7] + d.d[8]));
}

// Ondes3D's q0 (Q0Damping): a field times its layer's factor, f = the factors of the cell's plane:
// vx, vy, sxx, syy, szz and sxy at depth k, vz, sxz and syz at k + 1/2 (computeVeloAndSource.c
// computeVelocity and computeStress.c computeStress, ANOTHER: amp of the layer at k, amp2 of that
// at k + 1/2), after the update, before the sources.
ONDES_CELL void damp_velocity(const Q0Damping::Plane& f, float (&v)[kVelocityComponents]) {
  v[VX] *= f.xy;
  v[VY] *= f.xy;
  v[VZ] *= f.z;
}
ONDES_CELL void damp_stress(const Q0Damping::Plane& f, float (&s)[kStressComponents]) {
  s[SXX] *= f.xy;
  s[SYY] *= f.xy;
  s[SZZ] *= f.xy;
  s[SXY] *= f.xy;
  s[SXZ] *= f.z;
  s[SYZ] *= f.z;
}
// The same on cell i of a block's velocity or stress array (stride n).
template <int N>
ONDES_CELL void damp_field(const Q0Damping::Plane& f, float* x, int64_t n, int64_t i) {
  float u[N];
  for (int c = 0; c < N; ++c) u[c] = x[c * n + i];
  if constexpr (N == kVelocityComponents) damp_velocity(f, u);
  else damp_stress(f, u);
  for (int c = 0; c < N; ++c) x[c * n + i] = u[c];
}

// sigma += scale * (Hooke's law applied to the differences); m is an accessor over the material.
template <class M>
ONDES_CELL void add_stress(float* s, int64_t n, int64_t i, const M& m, const Diffs& d, float scale, int plane) {
  hooke(elastic_moduli(m), d, scale, plane, [&](int c, float x) { s[c * n + i] += x; });
}

}  // namespace ondes
