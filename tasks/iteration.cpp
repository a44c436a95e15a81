#include "tasks/iteration.hpp"

#include <algorithm>

#include "tasks/chain.hpp"
#include "tasks/compute.hpp"
#include "tasks/edges.hpp"
#include "tasks/messages.hpp"
#include "tasks/prefetch.hpp"
#include "tasks/snapshot.hpp"
#include "tasks/stations.hpp"
#include "tasks/watch.hpp"

namespace ondes {
namespace {

// One half step of every local block: its compute task (sources and saves included), then the
// messages of the halo.
int submit_half_step(GraphData& g, const IterationPlan& plan, bool velocity, double t, int parity) {
  int tasks = 0;
  for (BlockData& b : g.blocks)
    if (b.local)
      tasks += submit_compute(g.blocks, b, plan, velocity, t, parity);
  for (BlockData& b : g.blocks) tasks += submit_ghost_prefetch(g.blocks, b, velocity);
  const int kind = velocity ? kVelocityKind : kStressKind;
  for (const Transfer& x : g.halo.send[kind]) send(x);
  for (const Transfer& x : g.halo.recv[kind]) receive(x);
  return tasks;
}

bool due(int every, int n) { return every > 0 && (n + 1) % every == 0; }

// The rank's one block, if the run has one block (no neighbours, no halo) and the policy runs its
// iterations in windows (tasks/chain.hpp; lone_block_step).
BlockData* lone_block(GraphData& g, const ExecutionPolicy& policy) {
  if (g.blocks.size() != 1 || !g.blocks[0].local || !policy.lone_block_step) return nullptr;
  return &g.blocks[0];
}

// Whether a task reads the lone block's velocity after every iteration: peak ground velocity maps,
// displacement snapshots, station groups beyond those its window records (kMaxWindowGroups).
bool read_every_step(const GraphData& g, const BlockData& b, int rank) {
  if (g.pgv && (*g.pgv)[b.info.id]) return true;
  if (g.planes)
    for (const PlanePart& p : *g.planes)
      if (p.owner == rank && p.args.accumulate != 0.0f) return true;
  int groups = 0;
  for (const StationGroup& group : g.stations) groups += recorded_by_window(group, b, rank);
  return groups > kMaxWindowGroups;
}

// The snapshot frame due after iteration n, if any (its parts; s.frame).
void submit_frame(GraphData& g, const IterationPlan& plan, int n, Submitted& s) {
  if (g.planes && !g.planes->empty() && due(plan.snapshot_every, n)) {
    for (const PlanePart& p : *g.planes) s.periodic += submit_plane(p, plan.rank, plan.small_where);
    s.frame = true;
  }
}

// The record tasks of chained window w's sampled station groups, their samples sent home first
// where a group spans ranks.
int submit_window_records(GraphData& g, const IterationPlan& plan, const Window& w) {
  int tasks = 0;
  for (StationGroup& group : g.stations) {
    if (!group.involved || !group.sampled) continue;
    for (size_t slot = 0; slot < group.blocks.size(); ++slot) {
      const bool mine = group.owners[slot] == plan.rank;
      if (mine == (group.home == plan.rank)) continue;
      const Transfer t{group.h_samples[slot][w.parity], mine ? group.home : group.owners[slot],
                       sample_tag(group.id, int(slot)), 0};
      mine ? send(t) : receive(t);
    }
    if (group.home == plan.rank)
      for (int k = 0; k < w.steps; ++k)
        tasks += submit_record(g.blocks, group, {w.first + k, plan.nsteps, w.parity, k}, plan.small_where, true,
                               g.record_tokens[w.parity]);
  }
  return tasks;
}

// What reads the velocity after iteration n: the record tasks of the station groups a window did
// not record (`recorded`, a flag a group), the peak ground velocity maps, the displacement
// snapshots' sums (the task graph's iterations, and the lone block's one-step windows).
int submit_velocity_readers(GraphData& g, const IterationPlan& plan, int n, int parity, const std::vector<bool>& recorded) {
  int tasks = 0;
  for (size_t i = 0; i < g.stations.size(); ++i)
    if (!recorded[i])
      tasks += submit_station_group(g.blocks, g.stations[i], plan.rank, n, plan.nsteps, parity, plan.small_where);
  if (g.pgv)
    for (BlockData& b : g.blocks)
      if (starpu_data_handle_t h = (*g.pgv)[b.info.id]) tasks += submit_pgv(b.h_velocity, h, b.info.shape, plan.small_where, b.place.workers);
  if (g.planes)
    for (const PlanePart& p : *g.planes) tasks += submit_accumulate(p, plan.rank, plan.small_where);
  return tasks;
}

// A window from n of every chained block, or of the lone block (it records its station groups
// itself; one step long where something reads its velocity every step): up to `most` iterations
// and chain_steps, ending at the first where the watchdog or a snapshot frame is due.
Submitted submit_window(GraphData& g, const IterationPlan& plan, int n, int most, bool prime, BlockData* lone) {
  Submitted s;
  const bool one = lone && read_every_step(g, *lone, plan.rank);
  const int longest = one ? 1 : std::min(most, std::max(1, plan.policy.chain_steps));
  Window w;
  w.first = n;
  w.steps = window_steps(n, longest, plan.watchdog_every, plan.snapshot_every);
  w.parity = g.windows++ % 2;
  w.prime = prime && !lone;
  w.watch = due(plan.watchdog_every, n + w.steps - 1);
  w.token = lone ? nullptr : g.record_tokens[w.parity];
  s.steps = w.steps;
  s.watched = w.watch;
  std::vector<bool> recorded(g.stations.size(), false);
  for (BlockData& b : g.blocks)
    if (b.local) s.tasks += submit_chain(b, g.stations, plan, w, &recorded);
  if (!lone) s.tasks += submit_window_records(g, plan, w);
  if (one) s.tasks += submit_velocity_readers(g, plan, n, w.parity, recorded);
  submit_frame(g, plan, n + w.steps - 1, s);
  s.tasks += s.periodic;
  return s;
}

Submitted submit_iteration(GraphData& g, const IterationPlan& plan, int n) {
  Submitted s;
  const double t = n * plan.dt;
  const int parity = g.windows++ % 2;
  s.tasks += submit_half_step(g, plan, true, t, parity);
  s.tasks += submit_half_step(g, plan, false, t + 0.5 * plan.dt, parity);
  // Velocity is at t_{n+1/2} until the next iteration's compute_velocity.
  s.tasks += submit_velocity_readers(g, plan, n, parity, std::vector<bool>(g.stations.size(), false));
  if (due(plan.watchdog_every, n)) {
    for (BlockData& b : g.blocks)
      if (b.local) s.periodic += submit_watch(b, plan.small_where);
    s.watched = true;
  }
  submit_frame(g, plan, n, s);
  s.tasks += s.periodic;
  return s;
}

}  // namespace

int window_steps(int n, int longest, int watchdog_every, int snapshot_every) {
  int steps = 1;
  while (steps < longest && !due(watchdog_every, n + steps - 1) && !due(snapshot_every, n + steps - 1)) ++steps;
  return steps;
}

Submitted submit_steps(GraphData& g, const IterationPlan& plan, int n, int most, bool prime) {
  const bool chained = std::any_of(g.blocks.begin(), g.blocks.end(), [](const BlockData& b) { return b.routes.chained; });
  BlockData* lone = chained ? nullptr : lone_block(g, plan.policy);
  return chained || lone ? submit_window(g, plan, n, most, prime, lone) : submit_iteration(g, plan, n);
}

int submit_all_saves(std::vector<BlockData>& blocks, const Halo& halo, unsigned long long where) {
  int tasks = 0;
  for (BlockData& b : blocks)
    if (b.local) tasks += submit_edges(blocks, b, true, where) + submit_edges(blocks, b, false, where);
  for (int kind : {kVelocityKind, kStressKind}) {
    for (const Transfer& x : halo.send[kind]) send(x);
    for (const Transfer& x : halo.recv[kind]) receive(x);
  }
  return tasks;
}

}  // namespace ondes
