// The task graph of one iteration (docs/design.md "The task graph"), all of it: per block compute_velocity, the force
// sources, the velocity saves and their messages to other ranks, compute_stress, the moment
// sources, the stress saves and messages, then the stations, and the periodic watchdog and
// snapshot tasks. Nothing here waits: StarPU infers the dependencies from the data each task reads
// and writes.
#pragma once
#include <array>
#include <vector>

#include "core/plane_layout.hpp"
#include "partition/block_data.hpp"
#include "partition/halo.hpp"
#include "partition/stations.hpp"
#include "tasks/iteration_plan.hpp"

namespace ondes {

// One block's part of a snapshot plane, as every rank lists it (engine/snapshots): the owner extracts
// it (extract_plane); rank 0 receives it (tag) unless it is the owner.
struct PlanePart {
  PlaneArgs args;
  int owner = 0;
  int64_t tag = 0;
  starpu_data_handle_t velocity = nullptr;  // the block's, where it is local
  const WorkerSet* workers = nullptr;       // the block's (its GPU's where pinned), where it is local
  starpu_data_handle_t buffer = nullptr;
};

// What the graph reads and writes besides the blocks: stations, the halo between ranks, and the
// snapshot planes' parts and each block's peak-ground-velocity handle (null: none), if any.
struct GraphData {
  std::vector<BlockData>& blocks;
  std::vector<StationGroup>& stations;
  const Halo& halo;
  std::vector<PlanePart>* planes = nullptr;
  const std::vector<starpu_data_handle_t>* pgv = nullptr;  // by block id
  int windows = 0;  // submitted: the station samples' buffer of the next is windows % 2
  std::array<starpu_data_handle_t, 2> record_tokens{};  // of chained windows (tasks/chain.hpp ChainMemory)
};

struct Submitted {
  int steps = 1;     // iterations submitted
  int tasks = 0;     // in all
  int periodic = 0;  // of them, the watchdog's and the snapshot frame's
  bool watched = false;  // the watchdog's measures were submitted (their peaks can be read back)
  bool frame = false;    // a snapshot frame's parts were submitted
};

// Submits this rank's part of the iterations from n on, at most `most` of them: a window of each
// block (tasks/chain.hpp) where the blocks chain their steps (HaloRoutes::chained) or the run has one
// block, up to chain_steps iterations ending where the watchdog or a snapshot frame is due; else
// iteration n, a compute task per block and half step; `prime`: the window is the first since the
// fields were set. In iteration n the velocity goes from t_{n-1/2} to t_{n+1/2}, the stress from t_n to
// t_{n+1}; forces act at t_n right after the velocity update and moments at t_{n+1/2} after the
// stress update, before the boundaries are saved, so that neighbours see the source too.
// Boundary buffers bound for other ranks are sent as soon as saved; those from other ranks are
// received into their copies before the compute task that reads them.
Submitted submit_steps(GraphData& g, const IterationPlan& plan, int n, int most, bool prime);

// The iterations of a chained window from n: up to `longest` (at least 1), ending at the first
// after which the watchdog (every `watchdog_every`) or a snapshot frame (every `snapshot_every`;
// 0: never) is due, since their tasks read the velocity of that iteration.
int window_steps(int n, int longest, int watchdog_every, int snapshot_every);

// The saves of every local block's velocity and stress edges, and their messages to the ranks that
// read them: after fields were written outside the graph (a restart), every boundary buffer, and
// every copy of one on another rank, holds its edges again. Returns the tasks submitted.
int submit_all_saves(std::vector<BlockData>& blocks, const Halo& halo, unsigned long long where);

}  // namespace ondes
