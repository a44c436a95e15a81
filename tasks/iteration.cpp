#include "tasks/iteration.hpp"

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
int submit_half_step(GraphData& g, const IterationPlan& plan, bool velocity, double t) {
  int tasks = 0;
  for (BlockData& b : g.blocks)
    if (b.local)
      tasks += velocity ? submit_compute(g.blocks, b, plan.base, plan.policy, true, t)
                        : submit_compute(g.blocks, b, plan.base, plan.policy, false, t, plan.on_stress_done,
                                         plan.callback_arg);
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

}  // namespace

Submitted submit_iteration(GraphData& g, const IterationPlan& plan, int n) {
  Submitted s;
  const double t = n * plan.dt;
  std::vector<bool> recorded(g.stations.size(), false);  // by the step task
  BlockData* lone = lone_block(g, plan.policy);
  if (lone) {
    s.tasks += submit_step(*lone, g.stations, plan.base, plan.policy, n, plan.nsteps, plan.dt, plan.rank,
                           due(plan.watchdog_every, n), &recorded, plan.on_stress_done, plan.callback_arg);
  } else {
    s.tasks += submit_half_step(g, plan, true, t);
    s.tasks += submit_half_step(g, plan, false, t + 0.5 * plan.dt);
  }
  // Velocity is at t_{n+1/2} until the next iteration's compute_velocity.
  for (size_t i = 0; i < g.stations.size(); ++i)
    if (!recorded[i]) s.tasks += submit_station_group(g.blocks, g.stations[i], plan.rank, n, plan.nsteps, plan.small_where);
  if (g.pgv)
    for (BlockData& b : g.blocks)
      if (starpu_data_handle_t h = (*g.pgv)[b.info.id]) s.tasks += submit_pgv(b.h_velocity, h, b.info.shape, plan.small_where, b.workers);
  if (due(plan.watchdog_every, n)) {
    if (!lone)  // else measured by the step task
      for (BlockData& b : g.blocks)
        if (b.local) s.periodic += submit_watch(b, plan.small_where);
    s.watched = true;
  }
  if (g.planes && !g.planes->empty() && due(plan.snapshot_every, n)) {
    for (const PlanePart& p : *g.planes) s.periodic += submit_plane(p, plan.rank, plan.small_where);
    s.frame = true;
  }
  s.tasks += s.periodic;
  return s;
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
