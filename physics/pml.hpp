// The C-PML absorbing layers: which cells they hold (PmlRegion, the one place that rule lives) and
// their profiles (Komatitsch & Martin 2007) with kappa = 1, so that the PML term is additive:
// each derivative d gets a memory variable psi <- b psi + a d, and the update adds psi.
// d(x) = d0 (x/L)^2, d0 = -3 vp ln(R) / (2 L); alpha(x) = pi f (1 - x/L).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/case.hpp"

namespace ondes {

// The `width` outermost cells of every absorbing face are PML: both faces in x and y, the bottom in
// z, and the top too without a free surface. What is left is the interior box [lo, hi) per axis.
struct PmlRegion {
  std::array<int, 3> n{};  // grid cells per axis
  int width = 0;
  bool free_surface = true;

  static PmlRegion of(const Case& c);
  bool low_absorbing(int axis) const { return axis < 2 || !free_surface; }
  int lo(int axis) const { return low_absorbing(axis) ? width : 0; }
  int hi(int axis) const { return n[axis] - width; }
  // Whether grid cell (i, j, k) is in the PML.
  bool contains(int i, int j, int k) const {
    const int p[3] = {i, j, k};
    for (int a = 0; a < 3; ++a)
      if (p[a] < lo(a) || p[a] >= hi(a)) return true;
    return false;
  }
  // Whether a position (metres) reaches into the PML: beyond the first or last interior grid point
  // of an axis, so that its interpolation stencil touches a PML cell.
  bool reaches(const std::array<double, 3>& p, double h) const;
  // PML cells of the box [x0, x0 + nx) x [y0, y0 + ny) x [0, nz).
  int64_t cells_in(int x0, int nx, int y0, int ny, int nz) const;
  // The work of each slice of the grid across `axis` (index i: the cells with that coordinate i),
  // in cell updates: a cell costs 1 plus kDampedAxisCost for each axis along which it is damped.
  // What the decomposition balances (run.balance = "pml").
  std::vector<double> slice_costs(int axis) const;
};

// One damped axis of a PML cell (three memory variables of the velocity and three of the stress,
// updated and added) against a whole cell's update, on one CPU core: a fit over PML layers of
// several thicknesses (docs/performance.md, Decisions: damped axis cost).
constexpr double kDampedAxisCost = 0.66;

struct PmlAxis {
  int n = 0;              // grid points along the axis
  int width = 0;          // PML cells on each absorbing side
  bool low = true;        // absorbing at index 0
  bool high = true;       // absorbing at index n-1
  double h = 0, dt = 0, vp = 0, reflection = 1e-3, frequency = 1;
  // How much nearer its face each inner edge of the layer lies than the standard one (width at the
  // low face, n - width - 1/2 at the high one), in cells, and whether a point with d < 1 / s is
  // left undamped (PmlProfile::Ondes3d).
  double low_inset = 0, high_inset = 0;
  bool cut_below_one = false;

  // Distance into the layer, in cells, of a point at index position x (integer or half);
  // zero for every point of a non-PML cell (the profile starts at the layer's inner edge).
  double depth(double x) const;
  // Coefficients of the memory-variable recursion at index position x.
  void coefficients(double x, float* a, float* b) const;
};

// Where the case's blocks are cut along x (axis 0) or y (1), as core/block_bounds.hpp gives them
// for run.blocks and run.edge_strip: weighted by the slices' costs with run.balance = "pml", even
// with "even". The one source of the decomposition and of the validation of its widths.
std::vector<int> block_cuts(const Case& c, int axis);

// The profiles of the three axes of a case (pml_frequency 0: the sources' dominant frequency).
std::array<PmlAxis, 3> pml_axes(const Case& c);

}  // namespace ondes
