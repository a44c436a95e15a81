// Comparison of the seismograms of two runs (same stations and steps): how many samples are
// bitwise equal, and the relative L2 difference per station. A run is an output file, or a folder
// of Ondes3D's station files (obs<N>.dat, as the original Ondes3D writes them: its output
// <dir>), so that any run of the original compares with ours as test_ondes3d_reference does.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "io/results/output_h5.hpp"

namespace ondes {

struct StationDifference {
  std::string name;
  double relative_l2 = 0;  // |a - b| / |a| over the station's three components (0 when both are 0)
  double max_abs = 0;      // m/s
  std::array<double, 3> component_l2{};  // |a - b| / |a| of each component (x north, y east, z down)
  std::array<double, 3> peak_ratio{};    // max |b| / max |a| of each component
};

struct Comparison {
  size_t samples = 0, identical = 0;  // identical: same bits
  double worst_relative_l2 = 0;
  bool a_silent = true, b_silent = true;  // every sample zero
  std::vector<StationDifference> stations;
  bool bitwise() const { return identical == samples; }
};

// Throws std::runtime_error naming both files when the station names or the steps differ, CaseError
// when a file is not a run's.
Comparison compare_seismograms(const std::string& a_path, const std::string& b_path);

// A folder of Ondes3D's obs<N>.dat (x east, y north, z up; "step vx vy vz" a line, or the header
// "n x y z", "steps dt" then "vx vy vz [six stresses]" a line) as seismograms in this project's
// axes, stations named obs<N> in N's order; dt and t0 unknown (0). Throws CaseError naming the
// file and line of anything else.
Seismograms read_ondes3d_station_files(const std::string& dir);

}  // namespace ondes
