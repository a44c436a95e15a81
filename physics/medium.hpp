#pragma once
#include "physics/case.hpp"

namespace ondes {

// Elastic properties at depth z (metres): the deepest layer whose top is at or above z.
const Layer& layer_at(const Medium& m, double z);

// Elastic properties at (x, y, z) metres: the 3D model's, else the layer's at depth z.
Layer properties_at(const Medium& m, double x, double y, double z);

double vp_max(const Medium& m);
double vs_min(const Medium& m);

}  // namespace ondes
