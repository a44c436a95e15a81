// Comparison of the seismograms of two runs (same stations and steps): how many samples are
// bitwise equal, and the relative L2 difference per station.
#pragma once
#include <string>
#include <vector>

#include "io/output_h5.hpp"

namespace ondes {

struct StationDifference {
  std::string name;
  double relative_l2 = 0;  // |a - b| / |a| over the station's three components (0 when both are 0)
  double max_abs = 0;      // m/s
};

struct Comparison {
  size_t samples = 0, identical = 0;  // identical: same bits
  double worst_relative_l2 = 0;
  std::vector<StationDifference> stations;
  bool bitwise() const { return identical == samples; }
};

// Throws std::runtime_error naming both files when the station names or the steps differ.
Comparison compare_seismograms(const std::string& a_path, const std::string& b_path);

}  // namespace ondes
