#include "physics/pml.hpp"

#include <algorithm>
#include <cmath>

namespace ondes {

double PmlAxis::depth(double x) const {
  double d = 0;
  if (low) d = std::max(d, width - x);
  if (high) d = std::max(d, x - (n - width - 0.5));
  return std::min(d, static_cast<double>(width));
}

void PmlAxis::coefficients(double x, float* a, float* b) const {
  const double L = width * h;
  const double r = depth(x) / width;  // 0 at the inner edge, 1 at the outer wall
  const double d0 = -3.0 * vp * std::log(reflection) / (2.0 * L);
  const double d = d0 * r * r;
  const double alpha = M_PI * frequency * (1.0 - r);
  const double bb = std::exp(-(d + alpha) * dt);
  *b = static_cast<float>(bb);
  *a = (d + alpha) > 0 ? static_cast<float>(d / (d + alpha) * (bb - 1.0)) : 0.0f;
}

}  // namespace ondes
