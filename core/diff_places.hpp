// Where the differences of a cell's update live, shared by the C-PML kernels (codelets/pml_cells.hpp)
// and the set-up of their coefficients (physics/grid_setup.cpp).
#pragma once
#include <cstdint>

#include "core/host_device.hpp"

namespace ondes {

// The nine spatial differences of a cell's velocity or stress update (codelets/stencil.hpp):
// where each lives, for the PML profiles: its axis (2 bits per difference) and whether
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
// The field point of C-PML memory variable psi (velocity 0-8, stress 9-17 in the order above), for
// Ondes3D's geological nodes (PmlLayout's point classes): vx, vy, vz, the normal stresses, sxy, sxz, syz.
enum PmlPoint : int { kPointVx, kPointVy, kPointVz, kPointNormal, kPointSxy, kPointSxz, kPointSyz };
ONDES_HD constexpr int pml_point(int psi) {
  return psi < 9 ? psi / 3 : psi < 12 ? kPointNormal : psi < 14 ? kPointSxy : psi < 16 ? kPointSxz : kPointSyz;
}
// Its place among its update's points (velocity: vx, vy, vz; stress: normal, sxy, sxz, syz).
ONDES_HD constexpr int pml_point_slot(int point) { return point < kPointNormal ? point : point - kPointNormal; }
// The differences of the fields half a cell down (bit q): vz's (velocity), sxz's and syz's (stress).
constexpr uint32_t kVelocityZHalves = 0x1c0, kStressZHalves = 0x1e0;

}  // namespace ondes
