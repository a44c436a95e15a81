// Ondes3D's surface snapshot files (a .prm's <i0> <j0> <k0>), as original/src/main.c ("Surface
// snapshots", its stock OUTSTD build, one process) writes them every SURFACE_STEP steps:
// <dir>/surface{xy,xz,yz}{vel,disp}<step, %04d>00.vtk, legacy VTK STRUCTURED_POINTS, "SCALARS V
// float 3", big-endian float32, its (vx, vy, vz) (x east, y north, z up) at each component's own node:
//   xy: its k0 level (vx, vy at k0, vz at k0 - 1; on a layered model's free surface k = 1 and 0),
//       i fastest over [XMIN - DELTA + 1, XMAX + DELTA + 1], then j over the same in y;
//   xz: its j0, i fastest, then k over [ZMIN - DELTA + 1, 2];
//   yz: its i0 (the displacement's at i = j0, as its code has it), j fastest, then k.
// They are cut from the run's planes (SnapshotOptions::planes, which add_ondes3d_planes adds): its
// vx lies half a cell west of its vy and vz (our y plane one lower for the yz file), its vz half a
// cell below its vx. Its points outside the grid (its LIMIT cells) and above the free surface (the
// velocities it extrapolates there) are written 0.
#pragma once
#include <string>
#include <vector>

#include "core/case.hpp"

namespace ondes {

// Ondes3D's SURFACE_STEP (options.h of its stock builds): a .prm's snapshot frames.
constexpr int kOndes3dSurfaceStep = 1000;

// Adds the planes the files are cut from (velocity and / or displacement), those outside the grid
// left out with a warning naming the file.
void add_ondes3d_planes(Case& c, bool velocity, bool displacement);

// Their folder: the .prm's <dir> (snapshots.ondes3d.dir), else where Ondes3D's station files go
// (io/results/seismo_export.hpp ondes3d_text_dir: beside --output).
std::string ondes3d_surface_dir(const Case& c);

// Before a run: CaseError where that folder exists but cannot be written.
void check_ondes3d_surface_dir(const Case& c);

// Writes the files of the frame after `iteration` (its step iteration + 1) from the frame's planes
// ([plane][3][n2][n1], SnapshotOptions::planes' order).
void write_ondes3d_surfaces(const Case& c, int iteration, const std::vector<std::vector<float>>& planes);

}  // namespace ondes
