// record_seismograms: one time sample of every station of a group, interpolated from the velocity
// of the group's blocks (or, for a group spread over ranks, from the samples of each slot).
// Buffers: station points (R), traces (RW), then one velocity or samples buffer (R) per slot.
// sample_stations: the corners of a group's stations that lie in one block, for the record task
// on another rank. Buffers: the block's velocity (R), station points (R), samples (W).
// Models: history. (codelets/stations.hpp)
#pragma once
#include "codelets/stations.hpp"
#include "partition/block_data.hpp"
#include "partition/stations.hpp"
#include "tasks/codelet.hpp"
#include "tasks/messages.hpp"
#include "tasks/peer_halos.hpp"

namespace ondes {

struct RecordArgs {
  int step = 0;
  int nsteps = 0;
  int nblocks = 0;
  int64_t cells[kMaxStationBlocks] = {};  // per slot, per component (0: samples)
  int64_t sample_offset = 0;  // floats into each slot's samples: the step's in its window (sampled groups)
};

struct SampleArgs {
  int64_t cells = 0;
  int slot = 0;
};

namespace record_task {

template <class B>
void entry(void* buffers[], void* cl_arg) {
  const auto a = task_args<RecordArgs>(cl_arg);
  StationBlocks blocks{};
  for (int s = 0; s < a.nblocks; ++s) {
    blocks.v[s] = vector_data<float>(buffers[2 + s]) + (a.cells[s] ? 0 : a.sample_offset);
    blocks.cells[s] = a.cells[s];
  }
  ONDES_RUN(B, record, blocks, vector_data<StationPoint>(buffers[0]), vector_count(buffers[0]), a.step, a.nsteps,
            vector_data<float>(buffers[1]));
}

inline starpu_codelet& codelet() {
  static starpu_perfmodel model = history_model("ondes3d_record_seismograms");
  static starpu_codelet cl = make_codelet("record_seismograms", entry<OnCpu>, ONDES_CUDA_ENTRY(entry), &model, {});
  return cl;
}

}  // namespace record_task

namespace sample_task {

template <class B>
void entry(void* buffers[], void* cl_arg) {
  const auto a = task_args<SampleArgs>(cl_arg);
  ONDES_RUN(B, sample_stations, vector_data<float>(buffers[0]), a.cells, vector_data<StationPoint>(buffers[1]),
            vector_count(buffers[1]), a.slot, vector_data<float>(buffers[2]));
}

inline starpu_codelet& codelet() {
  static starpu_perfmodel model = history_model("ondes3d_sample_stations");
  static starpu_codelet cl = make_codelet("sample_stations", entry<OnCpu>, ONDES_CUDA_ENTRY(entry), &model,
                                          {STARPU_R, STARPU_R, STARPU_W});
  return cl;
}

}  // namespace sample_task

// A record task's step n of traces nsteps long, from sample buffers `parity`, at step `within` of
// their window.
struct RecordStep {
  int n, nsteps, parity, within;
};

// The record task of a group at step at.n, on its home rank, a sampled group's from its sample
// buffers; `in_place`: its traces and samples read and written in main memory where it runs, and
// `token` (if not null) written there too (a chained window's record task: tasks/chain.hpp).
// Returns the tasks submitted (1).
inline int submit_record(std::vector<BlockData>& blocks, StationGroup& g, RecordStep at, unsigned long long where,
                         bool in_place = false, starpu_data_handle_t token = nullptr) {
  const int parity = at.parity;
  starpu_data_descr d[3 + kMaxStationBlocks];
  d[0] = {g.sampled ? g.h_sample_points : g.h_points, STARPU_R};
  d[1] = {g.h_traces, STARPU_RW};
  RecordArgs a;
  a.step = at.n;
  a.nsteps = at.nsteps;
  a.nblocks = static_cast<int>(g.blocks.size());
  a.sample_offset = int64_t(at.within) * int64_t(g.points.size()) * kSampleFloats;
  for (int s = 0; s < a.nblocks; ++s) {
    const BlockData& b = blocks[g.blocks[s]];
    d[2 + s] = {g.sampled ? g.h_samples[s][parity] : b.h_velocity, STARPU_R};
    a.cells[s] = g.sampled ? 0 : b.info.shape.cells();
  }
  // Reading one block's velocity, the task runs on that block's GPU (a group across blocks on
  // several GPUs is sampled: partition/stations).
  const WorkerSet& workers = !g.sampled && a.nblocks == 1 ? blocks[g.blocks[0]].place.workers : any_workers();
  int count = 2 + a.nblocks;
  if (token) d[count++] = {token, STARPU_RW};
  std::vector<int> nodes(size_t(count), STARPU_SPECIFIC_NODE_CPU);
  nodes[0] = STARPU_SPECIFIC_NODE_LOCAL;
  starpu_codelet& cl = in_place ? codelet_on_nodes(record_task::codelet(), nodes) : record_task::codelet();
  check_starpu(starpu_task_insert(&cl, STARPU_DATA_MODE_ARRAY, d, count, STARPU_VALUE, &a,
                                  sizeof(a), STARPU_EXECUTE_WHERE, where, STARPU_TASK_WORKERIDS, workers.len(),
                                  workers.data(), 0),
               "submitting record_seismograms");
  return 1;
}

// This rank's part of a group's recording at step n: samples of its slots into their buffers
// `parity` (sent home unless it is home), the samples of other ranks received, and the record task
// on the home rank. Returns the tasks submitted.
inline int submit_station_group(std::vector<BlockData>& blocks, StationGroup& g, int rank, int n, int nsteps,
                                int parity, unsigned long long where) {
  if (!g.involved) return 0;
  int tasks = 0;
  if (g.sampled)
    for (size_t s = 0; s < g.blocks.size(); ++s) {
      const Transfer t{g.h_samples[s][parity], g.home == rank ? g.owners[s] : g.home, sample_tag(g.id, int(s)), 0};
      if (g.owners[s] == rank) {
        const BlockData& b = blocks[g.blocks[s]];
        if (!g.in_stress[s]) {  // else its compute_stress took the samples
          SampleArgs a{b.info.shape.cells(), static_cast<int>(s)};
          check_starpu(starpu_task_insert(&sample_task::codelet(), STARPU_R, b.h_velocity, STARPU_R, g.h_points,
                                          STARPU_W, g.h_samples[s][parity], STARPU_VALUE, &a, sizeof(a),
                                          STARPU_EXECUTE_WHERE, where, STARPU_TASK_WORKERIDS, b.place.workers.len(),
                                          b.place.workers.data(), 0),
                       "submitting sample_stations");
          ++tasks;
        }
        if (g.home != rank) send(t);
      } else if (g.home == rank) {
        receive(t);
      }
    }
  if (g.home == rank) tasks += submit_record(blocks, g, {n, nsteps, parity, 0}, where);
  return tasks;
}

}  // namespace ondes
