#include "physics/stability.hpp"

#include <algorithm>
#include <cmath>

#include "physics/medium.hpp"
#include "physics/source.hpp"

namespace ondes {

double cfl_limit(double h, double vp_max) {
  return h / (vp_max * std::sqrt(3.0) * (9.0 / 8.0 + 1.0 / 24.0));
}

double points_per_wavelength(const Case& c) {
  double fmax = 0;
  for (const Source& s : c.sources) fmax = std::max(fmax, stf_max_frequency(s.stf));
  if (fmax <= 0) return INFINITY;
  return vs_min(c.medium) / (fmax * c.grid.h);
}

}  // namespace ondes
