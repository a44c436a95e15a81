// Ondes3D's kinematic source files (issue 18): a position file (`fsrcMap` / SOURCES) and a
// moment-rate history file (`fsrcHist` / SOURCE_TIME_FUNCTION), read into moment sources with
// sampled time functions.
//
// Position file: the number of points, the hypocentre (x y z), then one line `n x y z` per point
// (n from 1, any order). History file: two free lines, the subfault size and the sampling step
// (`ds dt`, m and s), the number of samples, then per point `n strike dip rake` (degrees) and its
// samples of slip rate (m/s). Ondes3D's axes are x east, y north, z up (its radiation pattern,
// radxx..radyz, is Aki & Richards' with x and y exchanged and z reversed); a point at Ondes3D's
// (x, y, z) is placed at the project's (offset[0] + y, offset[1] + x, offset[2] - z). Its moment
// is mu A slip, mu that of the medium at the point, A = ds^2 and slip the time integral of the
// samples (trapezoids), and its moment rate follows the samples, linearly interpolated from t = 0
// (Ondes3D holds each sample for a step; README). Points whose slip is zero are left out.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "core/case.hpp"

namespace ondes {

struct Ondes3dSourceFiles {
  std::string map, history;      // paths
  std::array<double, 3> offset{};  // metres, see above
};

// Throws CaseError naming the file, line and what was expected. `text`, when given, receives both
// files' content (stored with the results, as a fault file's is).
std::vector<Source> read_ondes3d_sources(const Ondes3dSourceFiles& f, const Medium& medium, std::string* text = nullptr);

}  // namespace ondes
