// Trilinear weights of a point on a staggered grid, used to inject sources and read stations.
#pragma once
#include <array>
#include <cmath>

namespace ondes {

// Staggering offsets (in cells) of each field: velocity components, then stresses.
constexpr double kVelocityOffset[3][3] = {{0.5, 0, 0}, {0, 0.5, 0}, {0, 0, 0.5}};
constexpr double kStressOffset[6][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};

struct Stencil1D {
  int i0;       // lower grid index
  double frac;  // weight of i0 + 1
};

// Along one axis of n points: position x (metres), offset of the field (cells). Below the first
// point of the field (e.g. vz above z = h/2 at the free surface) it clamps to that point.
inline Stencil1D stencil_1d(double x, double h, double offset, int n) {
  const double g = x / h - offset;
  if (g <= 0) return {0, 0.0};
  int i0 = static_cast<int>(std::floor(g));
  if (i0 >= n - 1) return {n - 1, 0.0};
  return {i0, g - i0};
}

}  // namespace ondes
