// Stations grouped by the blocks their interpolation corners fall in (at most 2 x 2 blocks, since
// blocks are at least 4 cells wide). One record task per group reads those blocks' velocity
// directly, so a station on a block corner needs no corner ghost and records the same bits
// whatever the layout.
#pragma once
#include <starpu.h>

#include <vector>

#include "partition/decomposition.hpp"
#include "physics/case.hpp"

namespace ondes {

struct StationGroup {
  std::vector<int> blocks;  // block ids, in slot order
  std::vector<StationPoint> points;
  std::vector<int> station_ids;  // index into Case::stations
  std::vector<float> traces;     // [station][3][steps]
  starpu_data_handle_t h_points = nullptr, h_traces = nullptr;
};

std::vector<StationGroup> build_station_groups(const Case& c, const Decomposition& d, int steps);
void register_station_groups(std::vector<StationGroup>& groups);
void release_station_groups(std::vector<StationGroup>& groups);

}  // namespace ondes
