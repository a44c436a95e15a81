// C-PML profiles (Komatitsch & Martin 2007) with kappa = 1, so that the PML term is additive:
// each derivative d gets a memory variable psi <- b psi + a d, and the update adds psi.
// d(x) = d0 (x/L)^2, d0 = -3 vp ln(R) / (2 L); alpha(x) = pi f (1 - x/L).
#pragma once

namespace ondes {

struct PmlAxis {
  int n = 0;              // grid points along the axis
  int width = 0;          // PML cells on each absorbing side
  bool low = true;        // absorbing at index 0
  bool high = true;       // absorbing at index n-1
  double h = 0, dt = 0, vp = 0, reflection = 1e-3, frequency = 1;

  // Whether cell i (0..n-1) is in the PML along this axis.
  bool in_pml(int i) const { return (low && i < width) || (high && i >= n - width); }
  // Distance into the layer, in cells, of a point at index position x (integer or half);
  // zero for every point of a non-PML cell (the profile starts at the layer's inner edge).
  double depth(double x) const;
  // Coefficients of the memory-variable recursion at index position x.
  void coefficients(double x, float* a, float* b) const;
};

}  // namespace ondes
