// The grid an Ondes3D parameter file describes (either dialect), in the project's axes, and its
// geological model (<fgeo>), for io/ondes3d/ondes3d_prm.cpp.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/case.hpp"
#include "io/ondes3d/ondes3d_sources.hpp"
#include "io/ondes3d/ondes3d_values.hpp"
#include "physics/model3d.hpp"

namespace ondes {

// Ondes3D's C-PML: DELTA cells outside the [MIN, MAX] index ranges (its compile-time default).
constexpr int kDelta = 10;

// The grid both dialects describe, in the project's axes (see the header).
//
// Where Ondes3D's fields sit (original/src/computeVeloAndSource.c, computeStress.c; IO.c
// ComputeSeismograms): index i along x is at (i - 1) ds, and its vx there; the normal stresses of
// index i at (i - 1/2) ds along x; vy at +1/2 along both x and y; vz at +1/2 along x and z. The
// project puts its normal stresses on the grid's points (core/case.hpp), vx (north) half a cell
// along its x and vy (east) half a cell along its y: the same staggering once Ondes3D's x (the
// project's y) is moved by half a cell. So the grid point of Ondes3D's normal-stress index i lies
// at x = (i - 1/2) ds, and a position keeps its place among the fields; the offsets below say so.
struct Geometry {
  int nx = 0, ny = 0, nz = 0;
  std::array<double, 3> offset{};  // Ondes3D (x, y, z) -> (offset[0] + y, offset[1] + x, offset[2] - z)
  bool free_surface = true;
  // Where Ondes3D computes a source (IO.c ReadSrc: WhereAmI says REGULAR or FREESURFACE) and keeps a
  // station (IO.c ReadStation), in the file's coordinates.
  FileBox sources, stations;
  // A geological model's cells (<xMax> <yMax> <zMax>) and origin (<x0> <y0> <z0>, m); zero otherwise.
  std::array<int, 3> cells{};
  std::array<double, 3> origin{};
  // Ondes3D's indices (jmp, imp, k) of the grid's cell (0, 0, 0) (its normal stresses' node), its
  // first y index <yMin>, and its arrays' z levels (ZMAX0 - ZMIN + DELTA + 1) from z_low (ZMIN -
  // DELTA): where its Day and Bradley cells lie (core/case.hpp DayBradley) and its snapshot planes
  // (io/ondes3d/ondes3d_surface_files.hpp).
  std::array<int, 3> indices{};
  int y_min = 0, levels = 0, z_low = 0;
  // Its <xMin> <xMax> <yMin> <yMax> <zMin> (a geological model's: 1, <xMax>, 1, <yMax>, 1).
  std::array<int, 5> ranges{};
};

// The geological model file: `nx N`, `ny N`, `nz N`, `x0 v`, `y0 v`, `z0 v`, `dx v`, `dy v`, `dz v`,
// one more label-value pair, then a material name per cell, x fastest, from k = 1 up. Cells above nz
// up to <zMax> are vacuum (layer 1); vacuum below z = 0 is sea (layer 2), as IO.c's ReadGeoFile
// makes them. The materials are <layerN>'s <name>s.
struct Geology {
  int nx = 0, ny = 0, nz = 0;  // the grid's cells (nz = <zMax>)
  std::vector<int16_t> material;  // [k - 1][j - 1][i - 1], a layer index
  size_t index(int i, int j, int k) const { return (size_t(k - 1) * ny + (j - 1)) * nx + (i - 1); }
  int at(int i, int j, int k) const { return material[index(i, j, k)]; }
};

// The grid of the tagged dialect (its <xMin> .. <zMin>, or a geological model's) and of the KEY =
// value one (XMIN .. ZMIN), with where each value came from.
Geometry tagged_geometry(const PrmValues& v, double ds, std::vector<Provenance>& where);
Geometry key_value_geometry(const PrmValues& v, double ds, std::vector<Provenance>& where);
// A geological model (<fgeo>): Ondes3D's cells 1..MAX along each axis hold a material each, the C-PML
// around them on the sides and below and nothing above <zMax>. The grid it gives.
Geometry geological_geometry(const PrmValues& v, double ds, std::vector<Provenance>& where);
// The model file's materials, as indices of `names` (<layerN>'s <name>s).
Geology read_geology(const std::string& file, const Geometry& g, double ds, const std::vector<std::string>& names);
// The model in the project's axes, a sample per grid cell, sampled at the nearest.
std::shared_ptr<const Model3D> geology_model(const Geology& geo, const std::vector<Layer>& layers, const Grid& g,
                                            const std::string& file);

}  // namespace ondes
