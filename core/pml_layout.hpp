// The byte layout of a block's C-PML buffer (PmlLayout), shared by the set-up that fills it
// (physics/grid_setup.cpp), the kernels that read it (codelets/pml_cells.hpp) and the checkpoints.
#pragma once
#include <cstdint>

#include "core/host_device.hpp"
#include "core/layout.hpp"

namespace ondes {

// The PML memory of a block is one byte buffer: the cells' indices, the z profiles (a and b at
// integer and half positions), each z level's vp class (2k: plane k, 2k + 1: k + 1/2), the x and y
// profiles of each vp class, then 18 memory variables per PML cell. The count travels with the task
// arguments (a GPU codelet could not read it from device memory). Classes: Ondes3D's C-PML takes
// each cell's own vp (PmlProfile::Ondes3d on layers, physics/grid_setup.cpp fill_pml); elsewhere
// every level is class 0, the case's largest vp. A plane's two classes are looked up once
// (PmlView::at_plane), so a cell reads its profiles as it would with one class.
// With Ondes3D's geological nodes (StepParams::node_material) the vp of each of a PML cell's seven
// field points (PmlPoint) is its own, from the nodes around it (Ondes3D's computeVelocity,
// computeIntermediates): after the memory variables, each cell's seven points' classes
// (PmlPointWords: [count] of the velocity points, then [count] of the stress points), then each
// class's profiles along x, y and z (point_floats: a class's vp at every position, as the per-axis
// tables hold them). A block holds tens of distinct vps where a cell's 18 coefficients of its own
// would cost 144 bytes of memory traffic a step.
// A PML cell's classes of one update's points (vx, vy, vz; or the normal stresses, sxy, sxz, syz),
// 16 bits each, in one aligned 8-byte word a GPU thread loads at once.
struct alignas(8) PmlPointWords {
  uint32_t w[2];
  ONDES_HD int of(int slot) const { return int((w[slot >> 1] >> (16 * (slot & 1))) & 0xffffu); }
};
struct PmlLayout {
  int64_t z_offset = 0, classes_offset = 0, xy_offset = 0, psi_offset = 0, point_offset = 0, point_tables_offset = 0,
          bytes = 0;  // indices at 0
  static constexpr int kVpClasses = 8;
  // point_classes: the number of point classes (Ondes3D's geological nodes), 0 without them; the
  // offsets do not depend on it.
  ONDES_HD static PmlLayout of(const BlockShape& s, int64_t count, int64_t point_classes = 0) {
    PmlLayout l;
    l.z_offset = 8 * count;
    l.classes_offset = l.z_offset + 4 * 4 * int64_t(s.nz);
    l.xy_offset = l.classes_offset + 4 * 2 * int64_t(s.nz);
    l.psi_offset = l.xy_offset + 4 * kVpClasses * xy_floats(s);
    l.point_offset = (l.psi_offset + 4 * kPsi * count + 7) / 8 * 8;  // PmlPointWords' alignment
    l.point_tables_offset = l.point_offset + 2 * int64_t(sizeof(PmlPointWords)) * count;
    l.bytes = point_classes > 0 ? l.point_tables_offset + 4 * point_classes * point_floats(s) : l.point_offset;
    return l;
  }
  // What a checkpoint carries: the cells' indices to the memory variables' end.
  ONDES_HD int64_t state_bytes() const { return point_offset; }
  // A class's x and y tables, [a_int, b_int, a_half, b_half] each n_axis long: x, then y.
  ONDES_HD static int64_t xy_floats(const BlockShape& s) { return 4 * (int64_t(s.nx) + s.ny); }
  ONDES_HD static int64_t axis_offset(const BlockShape& s, int axis) {
    return axis == 0 ? 0 : axis == 1 ? 4 * int64_t(s.nx) : 4 * (int64_t(s.nx) + s.ny);
  }
  // A point class's tables: x and y as a class's xy tables, then z.
  ONDES_HD static int64_t point_floats(const BlockShape& s) { return 4 * (int64_t(s.nx) + s.ny + s.nz); }
  static constexpr int kPsi = 18, kPoints = 7;
  static constexpr int64_t kMaxPointClasses = 65536;
};

}  // namespace ondes
