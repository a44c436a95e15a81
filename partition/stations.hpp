// Stations grouped by the blocks their interpolation corners fall in (at most 2 x 2 blocks, since
// blocks are at least 4 cells wide). One record task per group reads those blocks' velocity
// directly, so a station on a block corner needs no corner ghost and records the same bits
// whatever the layout.
//
// Over MPI a group is recorded by one rank, its home (the owner of its first block). When its
// blocks live on several ranks, each block's rank copies the corner values the stations need
// ([station][3][8] floats, "samples") and sends them home, where the record task interpolates the
// samples exactly as it would the blocks' arrays: the same floats in the same order, the same bits.
#pragma once
#include <starpu.h>

#include <array>
#include <vector>

#include "partition/decomposition.hpp"
#include "partition/handles.hpp"
#include "partition/mapping.hpp"
#include "core/case.hpp"

namespace ondes {

struct StationGroup {
  int id = 0;               // position in the list, the same on every rank (message tags)
  std::vector<int> blocks;  // block ids, in slot order
  std::vector<int> owners;  // rank of each slot's block
  std::vector<StationPoint> points;  // corner indices into the blocks' velocity arrays
  std::vector<int> station_ids;      // index into Case::stations
  int home = 0;                      // rank that records the traces
  bool sampled = false;              // corners travel as samples (StationSampling)
  bool involved = false;             // this rank records the group or owns one of its blocks
  // Per slot: sampled by its block's compute_stress task rather than a sample_stations task.
  std::array<bool, kMaxStationBlocks> in_stress{};
  PinnedFloats traces;               // [station][3][steps], on the home rank
  std::vector<StationPoint> sample_points;  // the same corners, as indices into the samples
  // Per slot, where this rank needs it, two buffers that windows of steps take in turn (so that a
  // window's samples are written while the record tasks of the window before still read theirs),
  // each of `depth` steps' samples (build_station_groups: a window of chained steps samples each of
  // its steps, tasks/chain.hpp).
  std::array<std::array<PinnedFloats, 2>, kMaxStationBlocks> samples;
  starpu_data_handle_t h_points = nullptr, h_traces = nullptr, h_sample_points = nullptr;
  std::array<std::array<starpu_data_handle_t, 2>, kMaxStationBlocks> h_samples{};
};

// Which groups are sampled: those whose blocks live on several ranks always (Ranks); also those of
// several blocks (AcrossBlocks: the blocks may live on different GPUs, and a record task reading
// their whole velocity would copy them across); or every group (All: the blocks' compute_stress
// tasks take the samples, so no record task reads a block's velocity between its stress update
// and its next velocity update, tasks/compute.hpp).
enum class StationSampling { Ranks, AcrossBlocks, All };
// depth: the steps each sample buffer holds (1 where it is less).
std::vector<StationGroup> build_station_groups(const Case& c, const Decomposition& d, int steps, const RankMap& map,
                                               int rank, StationSampling sampling = StationSampling::Ranks,
                                               int depth = 1);
void register_station_groups(std::vector<StationGroup>& groups);
void release_station_groups(std::vector<StationGroup>& groups);

}  // namespace ondes
