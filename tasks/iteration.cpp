#include "tasks/iteration.hpp"

#include <algorithm>

#include "tasks/chain.hpp"
#include "tasks/compute.hpp"
#include "tasks/edges.hpp"
#include "tasks/messages.hpp"
#include "tasks/prefetch.hpp"
#include "tasks/snapshot.hpp"
#include "tasks/stations.hpp"
#include "tasks/step.hpp"
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

// The rank's one block, if the run has one block (no neighbours, no halo) and the policy fuses its
// iterations into step tasks (tasks/step.hpp; lone_block_step).
BlockData* lone_block(GraphData& g, const ExecutionPolicy& policy) {
  if (g.blocks.size() != 1 || !g.blocks[0].local || !policy.lone_block_step) return nullptr;
  return &g.blocks[0];
}

// The snapshot frame due after iteration n, if any (its parts; s.frame).
void submit_frame(GraphData& g, const IterationPlan& plan, int n, Submitted& s) {
  if (g.planes && !g.planes->empty() && due(plan.snapshot_every, n)) {
    for (const PlanePart& p : *g.planes) s.periodic += submit_plane(p, plan.rank, plan.small_where);
    s.frame = true;
  }
}

// A window of chained steps from n: up to `most` iterations and chain_steps, ending at the first
// where the watchdog or a snapshot frame is due.
Submitted submit_window(GraphData& g, const IterationPlan& plan, int n, int most, bool prime) {
  Submitted s;
  const int steps = window_steps(n, std::min(most, plan.policy.chain_steps), plan.watchdog_every, plan.snapshot_every);
  const int last = n + steps - 1;
  const int parity = g.windows++ % 2;
  s.steps = steps;
  s.watched = due(plan.watchdog_every, last);
  for (BlockData& b : g.blocks)
    if (b.local)
      s.tasks += submit_chain(b, plan, n, steps, parity, prime, s.watched, g.record_tokens[parity]);
  for (StationGroup& group : g.stations) {
    if (!group.involved) continue;
    // A group across ranks: the window's samples of each slot of another rank go home at once.
    for (size_t slot = 0; slot < group.blocks.size(); ++slot) {
      const bool mine = group.owners[slot] == plan.rank;
      if (mine == (group.home == plan.rank)) continue;
      const Transfer t{group.h_samples[slot][parity], mine ? group.home : group.owners[slot],
                       sample_tag(group.id, int(slot)), 0};
      mine ? send(t) : receive(t);
    }
    if (group.home == plan.rank)
      for (int k = 0; k < steps; ++k)
        s.tasks += submit_record(g.blocks, group, {n + k, plan.nsteps, parity, k}, plan.small_where, true,
                                 g.record_tokens[parity]);
  }
  submit_frame(g, plan, last, s);
  s.tasks += s.periodic;
  return s;
}

Submitted submit_iteration(GraphData& g, const IterationPlan& plan, int n) {
  Submitted s;
  const double t = n * plan.dt;
  const int parity = g.windows++ % 2;
  std::vector<bool> recorded(g.stations.size(), false);  // by the step task
  BlockData* lone = lone_block(g, plan.policy);
  if (lone) {
    s.tasks += submit_step(*lone, g.stations, plan, n, due(plan.watchdog_every, n), &recorded);
  } else {
    s.tasks += submit_half_step(g, plan, true, t, parity);
    s.tasks += submit_half_step(g, plan, false, t + 0.5 * plan.dt, parity);
  }
  // Velocity is at t_{n+1/2} until the next iteration's compute_velocity.
  for (size_t i = 0; i < g.stations.size(); ++i)
    if (!recorded[i])
      s.tasks += submit_station_group(g.blocks, g.stations[i], plan.rank, n, plan.nsteps, parity, plan.small_where);
  if (g.pgv)
    for (BlockData& b : g.blocks)
      if (starpu_data_handle_t h = (*g.pgv)[b.info.id]) s.tasks += submit_pgv(b.h_velocity, h, b.info.shape, plan.small_where, b.workers);
  if (g.planes)
    for (const PlanePart& p : *g.planes) s.tasks += submit_accumulate(p, plan.rank, plan.small_where);
  if (due(plan.watchdog_every, n)) {
    if (!lone)  // else measured by the step task
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
  const bool chained = std::any_of(g.blocks.begin(), g.blocks.end(), [](const BlockData& b) { return b.chained; });
  return chained ? submit_window(g, plan, n, most, prime) : submit_iteration(g, plan, n);
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
