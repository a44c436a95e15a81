// A 3D elastic model on its own regular grid (read from HDF5 by io/model_reader), sampled at the
// simulation's points by trilinear interpolation.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "core/case.hpp"

namespace ondes {

struct Model3D {
  std::string path;                  // for messages
  int nx = 0, ny = 0, nz = 0;        // samples; x fastest in the arrays ([z][y][x])
  std::array<double, 3> origin{};    // metres, of sample (0, 0, 0)
  std::array<double, 3> spacing{};   // metres
  std::vector<float> vp, vs, rho;
  // Quality factors (/qp, /qs, optional, both or neither), kept as 1/Q: interpolated so, as losses add.
  std::vector<float> inv_qp, inv_qs;
  // Categorical models (Ondes3D's geological ones: a material per cell, vacuum and water among
  // them) take the nearest sample's properties instead of interpolating across materials.
  bool nearest = false;
  double vp_max = 0, vs_min = 0;     // over every sample
  double qp_min = 0, qs_min = 0;     // over every sample (0 without Q)
  bool attenuating() const { return !inv_qp.empty(); }

  int size(int axis) const { return axis == 0 ? nx : axis == 1 ? ny : nz; }
  double last(int axis) const { return origin[axis] + (size(axis) - 1) * spacing[axis]; }
  // Properties at (x, y, z) metres, trilinear between samples (or the nearest's), held at the edges'
  // values outside.
  Layer at(double x, double y, double z) const;
};

// The slower of `slowest` (0: none yet) and the slowest wave a material of velocities vp, vs
// propagates: S in a solid, P in a fluid (vs = 0), none in vacuum (vp = vs = 0).
inline double slower_wave(double slowest, double vp, double vs) {
  const double w = vs > 0 ? vs : vp;
  return w > 0 && (slowest == 0 || w < slowest) ? w : slowest;
}

// Sets vp_max and vs_min (slower_wave over the samples) from the samples, and with Q qp_min, qs_min.
void set_extremes(Model3D& m);

}  // namespace ondes
