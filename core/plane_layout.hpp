// The layout of a snapshot plane's buffer, shared by the plane codelets, their tasks and the files.
#pragma once
#include "core/layout.hpp"

namespace ondes {

// A snapshot plane: plane `index` (block-local) normal to `axis` (0 x, 1 y, 2 z). Its buffer holds [3][n2][n1]:
// components, then the slow in-plane axis, then the fast one (x for y- and z-planes, y for x-planes).
// With `accumulate` (the plane's displacement), the task adds accumulate (dt) times the velocity
// to what the buffer holds instead of copying it: the running integral Ondes3D's ODISPL snapshots
// keep (original/src/main.c, "Calculation of the snapshots": U += DT v after every step).
struct PlaneArgs {
  BlockShape shape;
  int axis = 2;
  int index = 0;
  float accumulate = 0.0f;
};

ONDES_HD inline int plane_n1(const BlockShape& s, int axis) { return axis == 0 ? s.ny : s.nx; }
ONDES_HD inline int plane_n2(const BlockShape& s, int axis) { return axis == 2 ? s.ny : s.nz; }
ONDES_HD inline int64_t plane_points(const BlockShape& s, int axis) {
  return static_cast<int64_t>(plane_n1(s, axis)) * plane_n2(s, axis);
}

}  // namespace ondes
