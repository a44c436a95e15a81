// The velocity-stress stencils of one cell, shared by the CPU loops and the CUDA kernels
// (codelets/compute.hpp).
// Staggering (Graves 1996): normal stresses at (i, j, k), vx at (i+1/2, j, k), vy at (i, j+1/2, k),
// vz at (i, j, k+1/2), sxy at (i+1/2, j+1/2, k), sxz at (i+1/2, j, k+1/2), syz at (i, j+1/2, k+1/2).
// A field stored at index i of a half-position axis lives at i+1/2.
#pragma once
#include <math.h>

#include "core/layout.hpp"

namespace ondes {

constexpr float kC1 = 9.0f / 8.0f, kC2 = -1.0f / 24.0f;

// A cell's update reads its inputs through an accessor: F::at<C, DX, DY, DZ>() is component C of
// the field (or material property) at offset (DX, DY, DZ) from the cell. The CPU loops and the
// CUDA kernels read the block's arrays (ArrayAt); a kernel that stages values elsewhere (shared
// memory, registers) supplies its own accessor and keeps the arithmetic below - the one source of
// both - operation for operation (a z-marching form did so, bitwise equal to the CPU, before it was
// dropped as slower: codelets/compute.hpp). The offsets are template arguments, so each read is one
// load.
struct ArrayAt {
  const float* f;
  int64_t n, i, sy, sz;
  template <int C, int DX, int DY, int DZ>
  ONDES_CELL float at() const {
    return f[C * n + i + DX + DY * sy + DZ * sz];
  }
};

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
// szz = 0 there and sxz, syz imaged antisymmetrically above it.
enum ZPlane : int { kInterior = 0, kSurface = 1, kBelowSurface = 2 };
ONDES_CELL int z_plane(int k, int free_surface) {
  return !free_surface ? kInterior : k == 0 ? kSurface : k == 1 ? kBelowSurface : kInterior;
}

// Nine spatial differences feeding one cell's update (times h, or memory variables in PML units).
struct Diffs {
  float d[9];
};

// Where each difference lives, for the PML profiles: its axis (2 bits per difference) and whether
// it sits at a half position (1 bit), packed into integers so host and device code share them.
struct DiffPlaces {
  uint32_t axes, halves;
  ONDES_HD int axis(int q) const { return (axes >> (2 * q)) & 3; }
  ONDES_HD int half(int q) const { return (halves >> q) & 1; }
};
constexpr DiffPlaces places(const int (&axis)[9], const int (&half)[9]) {
  DiffPlaces p{0, 0};
  for (int q = 0; q < 9; ++q) {
    p.axes |= uint32_t(axis[q]) << (2 * q);
    p.halves |= uint32_t(half[q]) << q;
  }
  return p;
}
// Velocity: vx <- dx sxx, dy sxy, dz sxz; vy <- dx sxy, dy syy, dz syz; vz <- dx sxz, dy syz, dz szz.
constexpr DiffPlaces kVelocityPlaces = places({0, 1, 2, 0, 1, 2, 0, 1, 2}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
// Stress: dx vx, dy vy, dz vz (centre); dy vx, dx vy (sxy); dz vx, dx vz (sxz); dz vy, dy vz (syz).
constexpr DiffPlaces kStressPlaces = places({0, 1, 2, 1, 0, 2, 0, 2, 1}, {0, 0, 0, 1, 1, 1, 1, 1, 1});

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
  const float dzvz = plane == kSurface ? 0.0f : plane == kBelowSurface ? dm2<VZ, 2>(v) : dm<VZ, 2>(v);
  const float dzvx = plane == kSurface ? dp2<VX, 2>(v) : dp<VX, 2>(v);
  const float dzvy = plane == kSurface ? dp2<VY, 2>(v) : dp<VY, 2>(v);
  return {{dm<VX, 0>(v), dm<VY, 1>(v), dzvz,
           dp<VX, 1>(v), dp<VY, 0>(v),
           dzvx, dp<VZ, 0>(v),
           dzvy, dp<VZ, 1>(v)}};
}

// v += scale * b * (sum of the component's differences); m is an accessor over the material.
template <class M>
ONDES_CELL void add_velocity(float* v, int64_t n, int64_t i, const M& m, const Diffs& d, float scale) {
  const float rho = m.template at<RHO, 0, 0, 0>();
  v[VX * n + i] += scale * buoyancy(rho, m.template at<RHO, 1, 0, 0>()) * (d.d[0] + d.d[1] + d.d[2]);
  v[VY * n + i] += scale * buoyancy(rho, m.template at<RHO, 0, 1, 0>()) * (d.d[3] + d.d[4] + d.d[5]);
  v[VZ * n + i] += scale * buoyancy(rho, m.template at<RHO, 0, 0, 1>()) * (d.d[6] + d.d[7] + d.d[8]);
}

// sigma += scale * (Hooke's law applied to the differences). At the free surface szz stays zero and
// dz vz = -lambda/(lambda+2mu) (dx vx + dy vy) is folded into the moduli (Graves 1996).
template <class M>
ONDES_CELL void add_stress(float* s, int64_t n, int64_t i, const M& m, const Diffs& d, float scale, int plane) {
  const float imu = m.template at<IMU, 0, 0, 0>();
  const float lam = m.template at<LAM, 0, 0, 0>(), mu = shear_modulus(imu);
  const float l2m = lam + 2.0f * mu;
  if (plane == kSurface) {
    const float r = lam * lam / l2m;
    s[SXX * n + i] += scale * ((l2m - r) * d.d[0] + (lam - r) * d.d[1]);
    s[SYY * n + i] += scale * ((lam - r) * d.d[0] + (l2m - r) * d.d[1]);
  } else {
    s[SXX * n + i] += scale * (l2m * d.d[0] + lam * (d.d[1] + d.d[2]));
    s[SYY * n + i] += scale * (l2m * d.d[1] + lam * (d.d[0] + d.d[2]));
    s[SZZ * n + i] += scale * (l2m * d.d[2] + lam * (d.d[0] + d.d[1]));
  }
  const float imu_x = m.template at<IMU, 1, 0, 0>(), imu_y = m.template at<IMU, 0, 1, 0>();
  const float imu_z = m.template at<IMU, 0, 0, 1>();
  s[SXY * n + i] += scale * shear_mean(imu, imu_x, imu_y, m.template at<IMU, 1, 1, 0>()) * (d.d[3] + d.d[4]);
  s[SXZ * n + i] += scale * shear_mean(imu, imu_x, imu_z, m.template at<IMU, 1, 0, 1>()) * (d.d[5] + d.d[6]);
  s[SYZ * n + i] += scale * shear_mean(imu, imu_y, imu_z, m.template at<IMU, 0, 1, 1>()) * (d.d[7] + d.d[8]);
}

// Stress images above the free surface for column (i, j): szz(-k) = -szz(k), sxz and syz odd
// about z = 0 (their index k is at depth k + 1/2).
ONDES_CELL void image_free_surface_column(const BlockShape& sh, float* s, int i, int j) {
  const int64_t n = sh.cells();
  const int64_t k0 = sh.idx(i, j, 0), k1 = sh.idx(i, j, 1), k2 = sh.idx(i, j, 2);
  const int64_t m1 = sh.idx(i, j, -1), m2 = sh.idx(i, j, -2);
  for (int c = SXZ; c <= SYZ; ++c) {
    s[c * n + m1] = -s[c * n + k0];
    s[c * n + m2] = -s[c * n + k1];
  }
  s[SZZ * n + m1] = -s[SZZ * n + k1];
  s[SZZ * n + m2] = -s[SZZ * n + k2];
}

// ---- C-PML: one cell's memory-variable update, then the additive correction ----

// The parts of a block's PML buffer (PmlLayout): the cells' padded indices, sorted; the per-axis
// profiles; the memory variables, [18][count].
struct PmlView {
  const int64_t* cells;
  const float* prof;
  float* psi;
  int64_t count;
};
ONDES_CELL PmlView pml_view(const BlockShape& s, char* pml, int64_t count) {
  const PmlLayout l = PmlLayout::of(s, count);
  return {reinterpret_cast<const int64_t*>(pml), reinterpret_cast<const float*>(pml + l.profiles_offset),
          reinterpret_cast<float*>(pml + l.psi_offset), count};
}

// psi <- b psi + a d/h for the nine differences of PML cell p, at (i, j, k) of the block; d is
// replaced by the new psi. Where the differences live is a template argument (kVelocityPlaces or
// kStressPlaces), so each difference's profile is known at compile time: along a run of cells in x
// the x profiles are contiguous and the y and z ones constant, and the CPU loop vectorises.
// The axes along which a PML cell is damped (bit a): those whose coordinate lies outside the
// PmlBox. Along the others the profile's a is zero at the cell (integer and half positions alike,
// physics/pml.hpp), so their memory variables stay +0 for ever (b x +0 + (+-0) = +0) and so do
// the corrections: pml_memory writes +0 for them without reading or writing memory, the same bits
// as the recursion would give. DampedAxes<M> is the mask known at compile time (a CPU run of
// cells with the same mask), DampedMask the one a CUDA thread computes.
ONDES_CELL int damped_axes(const PmlBox& b, int i, int j, int k) {
  return int(i < b.lo[0] || i >= b.hi[0]) | int(j < b.lo[1] || j >= b.hi[1]) << 1 |
         int(k < b.lo[2] || k >= b.hi[2]) << 2;
}
template <int Mask>
struct DampedAxes {
  ONDES_HD constexpr bool operator()(int a) const { return (Mask >> a) & 1; }
};
struct DampedMask {
  int mask;
  ONDES_HD bool operator()(int a) const { return (mask >> a) & 1; }
};

template <uint32_t Axes, uint32_t Halves, class Damped>
ONDES_CELL void pml_memory(const BlockShape& s, const PmlView& v, int64_t p, int i, int j, int k, int psi_base,
                                const Damped& damped, Diffs& d, float inv_h) {
  constexpr DiffPlaces where{Axes, Halves};
  const int ijk[3] = {i, j, k};
  const int n_axis[3] = {s.nx, s.ny, s.nz};
  ONDES_UNROLL
  for (int q = 0; q < 9; ++q) {
    const int a = where.axis(q);
    if (!damped(a)) {
      d.d[q] = 0.0f;
      continue;
    }
    const float* t = v.prof + PmlLayout::axis_offset(s, a) + 2 * where.half(q) * n_axis[a];
    const float ca = t[ijk[a]], cb = t[n_axis[a] + ijk[a]];
    float& m = v.psi[(psi_base + q) * v.count + p];
    m = cb * m + ca * (d.d[q] * inv_h);
    d.d[q] = m;
  }
}

// The C-PML correction of PML cell p (padded index `cell`, at (i, j, k) of the block, damped along
// `damped`), after its interior update with differences d: their memory variables, then the
// additive term. One per-cell source for the CPU rows and the CUDA threads.
template <class M, class Damped>
ONDES_CELL void velocity_pml_cell(const StepParams& sp, float* v, const M& m, const PmlView& pv, int64_t p,
                                       int64_t cell, int i, int j, int k, const Damped& damped, Diffs d) {
  pml_memory<kVelocityPlaces.axes, kVelocityPlaces.halves>(sp.shape, pv, p, i, j, k, 0, damped, d, sp.inv_h);
  add_velocity(v, sp.shape.cells(), cell, m, d, sp.dt);
}
template <class M, class Damped>
ONDES_CELL void stress_pml_cell(const StepParams& sp, float* s, const M& m, const PmlView& pv, int64_t p,
                                     int64_t cell, int i, int j, int k, int plane, const Damped& damped, Diffs d) {
  pml_memory<kStressPlaces.axes, kStressPlaces.halves>(sp.shape, pv, p, i, j, k, 9, damped, d, sp.inv_h);
  add_stress(s, sp.shape.cells(), cell, m, d, sp.dt, plane);
}

}  // namespace ondes
