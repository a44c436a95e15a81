#include "partition/stations.hpp"

#include <algorithm>
#include <map>

#include "physics/interp.hpp"

namespace ondes {
namespace {

int owner(const Decomposition& d, int gi, int gj) {
  for (const BlockInfo& b : d.blocks)
    if (b.contains(gi, gj)) return b.id;
  return -1;
}

struct Corner {
  int block;  // -1 outside the grid
  int64_t idx;
};

// The 8 interpolation corners of each velocity component at position x.
std::array<std::array<Corner, 8>, 3> corners(const Grid& g, const Decomposition& d, const std::array<double, 3>& x,
                                             StationPoint& st) {
  std::array<std::array<Corner, 8>, 3> out{};
  for (int c = 0; c < 3; ++c) {
    const Stencil1D sx = stencil_1d(x[0], g.h, kVelocityOffset[c][0], g.nx);
    const Stencil1D sy = stencil_1d(x[1], g.h, kVelocityOffset[c][1], g.ny);
    const Stencil1D sz = stencil_1d(x[2], g.h, kVelocityOffset[c][2], g.nz);
    st.fx[c] = static_cast<float>(sx.frac);
    st.fy[c] = static_cast<float>(sy.frac);
    st.fz[c] = static_cast<float>(sz.frac);
    for (int q = 0; q < 8; ++q) {
      const int gi = sx.i0 + (q & 1), gj = sy.i0 + ((q >> 1) & 1), k = sz.i0 + ((q >> 2) & 1);
      const int b = k < g.nz ? owner(d, gi, gj) : -1;
      out[c][q] = {b, b < 0 ? 0 : d.blocks[b].shape.idx(gi - d.blocks[b].x0, gj - d.blocks[b].y0, k)};
    }
  }
  return out;
}

}  // namespace

std::vector<StationGroup> build_station_groups(const Case& c, const Decomposition& d, int steps) {
  std::vector<StationGroup> groups;
  std::map<std::vector<int>, size_t> by_blocks;
  for (size_t id = 0; id < c.stations.size(); ++id) {
    StationPoint st{};
    const auto cs = corners(c.grid, d, c.stations[id].position, st);
    std::vector<int> blocks;
    for (const auto& comp : cs)
      for (const Corner& k : comp)
        if (k.block >= 0) blocks.push_back(k.block);
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
    for (int comp = 0; comp < 3; ++comp)
      for (int q = 0; q < 8; ++q) {
        const Corner& k = cs[comp][q];
        st.idx[comp][q] = k.idx;
        st.slot[comp][q] =
            k.block < 0 ? -1 : static_cast<int32_t>(std::find(blocks.begin(), blocks.end(), k.block) - blocks.begin());
      }
    auto [it, added] = by_blocks.emplace(blocks, groups.size());
    if (added) groups.push_back(StationGroup{blocks, {}, {}, {}, nullptr, nullptr});
    StationGroup& g = groups[it->second];
    g.points.push_back(st);
    g.station_ids.push_back(static_cast<int>(id));
  }
  for (StationGroup& g : groups) g.traces.assign(g.points.size() * 3 * steps, 0.0f);
  return groups;
}

void register_station_groups(std::vector<StationGroup>& groups) {
  for (StationGroup& g : groups) {
    starpu_vector_data_register(&g.h_points, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(g.points.data()),
                                g.points.size(), sizeof(StationPoint));
    starpu_vector_data_register(&g.h_traces, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(g.traces.data()),
                                g.traces.size(), sizeof(float));
  }
}

void release_station_groups(std::vector<StationGroup>& groups) {
  for (StationGroup& g : groups)
    for (starpu_data_handle_t* h : {&g.h_points, &g.h_traces}) {
      if (*h) starpu_data_unregister(*h);
      *h = nullptr;
    }
}

}  // namespace ondes
