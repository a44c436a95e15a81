#pragma once
#include "core/case.hpp"

namespace ondes {

// Largest stable time step of the 4th-order staggered scheme: h / (vp_max sqrt(3) (9/8 + 1/24)).
double cfl_limit(double h, double vp_max);

// Grid points per shortest S wavelength for the sources' band: vs_min / (f_max h).
double points_per_wavelength(const Case& c);

}  // namespace ondes
