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

namespace {

// The record side of a sampled group reads corner (c, q) of station p at p * 24 + c * 8 + q of the
// slot's sample buffer (a "velocity array" whose components are 0 cells apart).
std::vector<StationPoint> sample_points(const std::vector<StationPoint>& points) {
  std::vector<StationPoint> out = points;
  for (size_t p = 0; p < out.size(); ++p)
    for (int c = 0; c < 3; ++c)
      for (int q = 0; q < 8; ++q) out[p].idx[c][q] = static_cast<int64_t>(p) * kSampleFloats + c * 8 + q;
  return out;
}

void place(StationGroup& g, const RankMap& map, int rank, int steps, StationSampling sampling, int depth) {
  for (int b : g.blocks) g.owners.push_back(map.owner(b));
  g.home = g.owners[0];
  g.sampled = sampling == StationSampling::All || (sampling == StationSampling::AcrossBlocks && g.blocks.size() > 1);
  bool owns_block = false;
  for (int r : g.owners) {
    g.sampled |= r != g.home;
    owns_block |= r == rank;
  }
  g.involved = g.home == rank || owns_block;
  if (g.home == rank) g.traces.assign(g.points.size() * 3 * steps, 0.0f);
  if (!g.sampled || !g.involved) return;
  if (g.home == rank) g.sample_points = sample_points(g.points);
  for (size_t s = 0; s < g.blocks.size(); ++s)
    if (g.home == rank || g.owners[s] == rank)
      for (auto& buffer : g.samples[s]) buffer.assign(g.points.size() * kSampleFloats * size_t(depth), 0.0f);
}

}  // namespace

std::vector<StationGroup> build_station_groups(const Case& c, const Decomposition& d, int steps, const RankMap& map,
                                               int rank, StationSampling sampling, int depth) {
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
    if (added) {
      groups.emplace_back();
      groups.back().id = static_cast<int>(groups.size() - 1);
      groups.back().blocks = blocks;
    }
    StationGroup& g = groups[it->second];
    g.points.push_back(st);
    g.station_ids.push_back(static_cast<int>(id));
  }
  for (StationGroup& g : groups) place(g, map, rank, steps, sampling, std::max(1, depth));
  return groups;
}

void register_station_groups(std::vector<StationGroup>& groups) {
  for (StationGroup& g : groups) {
    if (!g.involved) continue;
    register_if_any(&g.h_points, g.points);
    register_if_any(&g.h_traces, g.traces);
    register_if_any(&g.h_sample_points, g.sample_points);
    for (size_t s = 0; s < g.samples.size(); ++s)
      for (int i = 0; i < 2; ++i) register_if_any(&g.h_samples[s][i], g.samples[s][i]);
  }
}

void release_station_groups(std::vector<StationGroup>& groups) {
  for (StationGroup& g : groups) {
    std::vector<starpu_data_handle_t*> hs{&g.h_points, &g.h_traces, &g.h_sample_points};
    for (auto& pair : g.h_samples)
      for (auto& h : pair) hs.push_back(&h);
    for (starpu_data_handle_t* h : hs) unregister(*h);
  }
}

}  // namespace ondes
