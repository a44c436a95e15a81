// 3D models from HDF5: datasets /vp, /vs (m/s) and /rho (kg/m3) of one shape [nz][ny][nx] (x
// fastest), any float type, and root attributes `origin` and `spacing` (3 numbers each, metres,
// x y z) placing sample (0, 0, 0) and the steps between samples.
#pragma once
#include <memory>
#include <string>

#include "physics/model3d.hpp"

namespace ondes {

// Throws CaseError naming the file and dataset or attribute on any mismatch (missing dataset,
// shapes differ, spacing not positive, a value not finite or not positive, vs >= vp / sqrt(2)).
std::shared_ptr<const Model3D> read_model(const std::string& path);

// Writes a model in that layout (for tools and tests).
void write_model(const std::string& path, const Model3D& m);

}  // namespace ondes
