// The GPU Ondes3D's 3D velocity model (KEY = value dialect, MODEL_TYPE = 3D): MODEL_FILE holds
// IMAX x JMAX x KMAX lines `x y z vp vs rho` (km, km/s, g/cm3; x fastest, then y, then z), on axes
// of their own: x and y rotated by THETA (degrees) about (X0, Y0) (km) from the grid's, z a depth
// (km, down). Read as victor/codes/standard-ondes3d/GPU/ONDES3D_GPGPU_MPI_1D&3D_MODELS/src/
// ondes3D_main.c ("DEFINITION OF THE MATERIAL PROPERTIES", dim_model == 3) reads it: each node
// (i, j, k) of its domain [XMIN, XMAX] x [YMIN, YMAX] x [ZMIN, 1] at ((i-1) ds, (j-1) ds, (k-1) ds)
// is rotated, z = -that, and interpolated trilinearly between the file's samples (held at the first
// or last sample outside them); its C-PML takes the values of the domain's face next to it
// ("EXTENSION IN THE CPML LAYERS").
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/case.hpp"
#include "physics/model3d.hpp"

namespace ondes {

struct VelocityModelFile {
  std::string path;
  int imax = 0, jmax = 0, kmax = 0;  // samples along its x, y, z
  double theta = 0;                  // degrees
  double x0 = 0, y0 = 0;             // km, in the grid's axes
};

// The GPU Ondes3D's domain in its indices and where the project's grid cell (0, 0, 0) lies in them.
struct GpuDomain {
  int xmin = 0, xmax = 0, ymin = 0, ymax = 0, zmin = 0;  // XMIN.. ZMIN; the top is k = 1
  double ds = 0;                                         // m
  int i_of_y0 = 0, j_of_x0 = 0;  // its i of our y = 0, its j of our x = 0 (our z = 0 is its k = 1)
};

// A sample per cell of grid g (nearest: the cell's own values), as the GPU code computes its nodes.
std::shared_ptr<const Model3D> read_velocity_model(const VelocityModelFile& f, const GpuDomain& d, const Grid& g);

class PrmValues;
class PrmFiles;
struct Provenance;
// A KEY = value .prm's MODEL_TYPE = 3D with MODEL_FILE, IMAX, JMAX, KMAX, THETA, X0, Y0: c.medium.model
// (c.grid set); false (nothing read) for MODEL_TYPE = 1D or without MODEL_FILE.
bool read_key_value_model(const PrmValues& v, PrmFiles& files, Case& c, std::vector<Provenance>& where);

}  // namespace ondes
