// Windows of iterations, one task each: a run's lone block's (below: kMaxWindowGroups), and chained
// steps: where every block of a run has a GPU of its own (in one process, blocks pinned, halos
// written straight into the neighbour's GPU: tasks/peer_halos.hpp; or ranks of one node, below), a block runs a window of up to
// ExecutionPolicy::chain_steps iterations as ONE task, and the GPUs order the halos themselves:
// after writing a halo into the neighbour's GPU, a block's stream writes the count of half steps
// done into a counter beside it (cuStreamWriteValue32, which fences the halo's writes first); before
// an update, its stream waits until each neighbour's counter says the halo it reads has arrived
// (cuStreamWaitValue32). The CPU launches a window's kernels at once; no task of StarPU's ends or
// starts between two half steps.
// Why: each half step waited for StarPU to notice the neighbour's task done, release the next one
// and launch its kernels (docs/lab.md; docs/performance.md, Decisions: chained steps).
// Nothing is overwritten early: a block writes a neighbour's halo of one field only after it read
// the neighbour's halo of the other field written after the neighbour's update that read the
// previous one (the same argument as tasks/ipc_halos.hpp, now kept by the counters).
// A window's station samples go to a buffer of a step each (build_station_groups' depth), in one of two
// buffers windows take in turn, in pinned main memory that the kernels write in place; the record
// tasks after the window read them there. Windows end where the watchdog measures (the window task
// does, at its end) or a snapshot frame is due.
// With ExecutionPolicy::chain_on_cpus the same windows run on CPU workers, a worker a block, the
// channels and their counters in main memory (HostSignals, tasks/chain.cpp): the protocol the GPUs
// run, played where there is no GPU (CI), with the same half-step numbering and the same rule.
// Ranks of one node chain too: each rank allocates the channels its blocks read on its GPU, hands
// their CUDA IPC handles to the neighbours' ranks, which map them as their blocks' chain_out; the
// ranks agree at start-up that all chain or none (no halo message goes while windows run). A
// station group across ranks sends each slot's window of samples home once a window.
// A block's PML cells run on a second stream of its GPU beside the march over its other cells, its
// station samples beside its stress update (ExecutionPolicy::chain_side_stream): one stream left
// the GPU draining at each of a step's kernel ends (docs/lab.md "Four GPUs").
// State (issue 45): on by default (ExecutionPolicy::chain_steps = 8; docs/performance.md, Decisions:
// chained steps).
// Windows of three with stations once stalled (a block sampling no station did not wait for the
// record tasks two windows back, which could then queue on its stream behind a window waiting for
// a neighbour): the record tokens of ChainMemory order them. The rule: no task a block's next
// window waits for may be queued on another block's GPU behind a window that waits for that block
// (snapshot planes are extracted on their block's GPU for it: tasks/snapshot.hpp).
// Buffers of the window task: velocity (RW), stress (RW), material (R), PML memory (RW) if any, the
// anelastic buffer (RW) if any, the force points and samples (R), the moment ones (R), then per
// station slot its points (R) and samples (W), then per group it records (a lone block's) its points
// (R) and traces (RW), then the block's peak (W) if the watchdog measures, then the record token (R)
// of sampled stations.
// Model: regression over the block's cells times the window's steps.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "core/execution_policy.hpp"
#include "core/layout.hpp"
#include "partition/block_data.hpp"
#include "partition/mapping.hpp"
#include "partition/stations.hpp"
#include "tasks/iteration_plan.hpp"

namespace ondes {

// The GPU memory of the halo channels, and the two tokens that order each window after the
// record tasks of the window two before (record_tokens[parity]: the window that writes the samples
// `parity` reads it, those record tasks write it); freed by release().
// Why the tokens: a window that samples no station would otherwise not wait for those record
// tasks, and one of them could then be queued on that window's stream, behind its wait for a
// neighbour whose window waits for that very record task.
struct ChainMemory {
  std::vector<void*> allocated;
  std::vector<void*> host;    // channels in main memory (chain_on_cpus)
  std::vector<void*> opened;  // other ranks' channels, mapped by CUDA IPC
  std::vector<HaloRoutes::ChainSide> sides;  // the blocks' side streams (ExecutionPolicy::chain_side_stream)
  std::array<int32_t, 2> token_values{};
  std::array<starpu_data_handle_t, 2> record_tokens{};
  void release();
};

// Chains the steps of every local block (HaloRoutes::chained, chain_in, chain_out) if the run
// allows it: chain_steps > 0, peer halos, every block on a GPU of its own with CUDA workers only
// (or, with chain_on_cpus, one process with a CPU worker a block, each block's tasks then held to
// its worker),
// every neighbour's halo of this process routed to it by peer writes (route_peer_halos before) and
// every neighbour of another rank on this node (`host`), its GPU reachable by CUDA IPC, every
// station group sampled by the compute tasks, and no reader of the velocity between steps
// (`per_step_readers`: peak ground velocity maps, displacement snapshots). Over MPI collective:
// every rank calls it, and all ranks chain or none. Returns the local blocks chained (0 or all of
// them); `refusal`, if not null, says why not (over MPI: the first rank's reason).
struct ChainRefusal {
  std::string why;
  // The run has no GPU a block to give (CPU workers, one block, several blocks on a process's one
  // GPU): nothing a user asked for is missed, so the log keeps it to its debug level.
  bool quiet = false;
};
// Where this process runs: the blocks' ranks, its own, and its node's name.
struct ChainSite {
  const RankMap& map;
  int rank;
  const std::string& host;
};
int route_chained_steps(std::vector<BlockData>& blocks, const std::vector<StationGroup>& groups,
                        const ExecutionPolicy& policy, const ChainSite& site, bool per_step_readers,
                        ChainMemory& memory, ChainRefusal* refusal = nullptr);

// A run's lone block (one block, no neighbours: nothing to wait for) runs the same windows: the
// K = 1 of the task graph's iterations and the K = chain_steps of the chained blocks are one task
// shape. Such a window records the station groups lying in the block alone into their traces
// itself (the first kMaxWindowGroups of them: recorded_by_window), a step at a time; no record task
// reads the block's velocity between two windows unless the window is one step long.
constexpr int kMaxWindowGroups = 4;

// A station group the window of block b records itself: on this rank, read from b's velocity alone
// (the lone block's groups; a chained block's groups are sampled).
inline bool recorded_by_window(const StationGroup& g, const BlockData& b, int rank) {
  return g.involved && g.home == rank && !g.sampled && g.blocks.size() == 1 && g.blocks[0] == b.info.id;
}

// A window: iterations first .. first + steps - 1, its stations' samples into their buffers
// `parity`, the watchdog's measure at its end if `watch`; `prime`: first saves the stress edges into
// the neighbours' channels (the first window after the fields were set outside the graph);
// `token`: record_tokens[parity] (null without sampled stations).
struct Window {
  int first = 0, steps = 1, parity = 0;
  bool prime = false, watch = false;
  starpu_data_handle_t token = nullptr;
};

// Submits window w of block b (times n dt and n dt + dt / 2 of its sources), chained or the lone
// block, recording the groups of `groups` recorded_by_window (up to kMaxWindowGroups; marked true
// in *recorded, one flag a group, if not null). The plan's on_steps_done(callback_arg, steps), if
// set, is called when it ends. Returns the tasks submitted (1).
int submit_chain(BlockData& b, std::vector<StationGroup>& groups, const IterationPlan& plan, const Window& w,
                 std::vector<bool>* recorded);

}  // namespace ondes
