#include "plan/run_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/case_error.hpp"
#include "io/case_reader.hpp"
#include "partition/block_data.hpp"
#include "perfmodels/cost_model.hpp"
#include "physics/grid_setup.hpp"

namespace ondes {
namespace {

MemoryNeeds memory_of(const Case& c, const RunPlan& p) {
  std::vector<double> per_rank(p.ranks.ranks, 0.0);
  MemoryNeeds m;
  std::map<std::pair<int, int>, double> per_gpu;  // by rank and GPU
  for (const BlockInfo& b : p.decomposition.blocks) {
    const BlockPlan& bp = p.blocks[b.id];
    per_rank[p.ranks.owner(b.id)] += bp.bytes;
    m.largest_block = std::max(m.largest_block, bp.bytes);
    m.per_gpu = std::max(m.per_gpu, per_gpu[{bp.rank, std::max(bp.gpu, 0)}] += bp.bytes);
  }
  per_rank[0] += 4.0 * c.stations.size() * 3 * c.time.steps;  // rank 0 gathers the traces
  for (double r : per_rank) {
    m.per_rank = std::max(m.per_rank, r);
    m.total += r;
  }
  return m;
}

// A block whose neighbour has another owner (rank, or GPU of this process) computes at a higher
// priority: its halo leaves first.
void mark_frontiers(const Decomposition& d, const std::vector<int>& owner, std::vector<BlockPlan>& blocks) {
  for (const BlockInfo& b : d.blocks)
    for (int nb : b.neighbour)
      if (nb >= 0 && owner[nb] != owner[b.id]) blocks[b.id].priority = 1;
}

// run.cpu_compute = "auto" beside GPUs: CPU workers compute only the blocks they finish within the
// GPUs' time per iteration (perfmodels: cpu_may_compute); each rank decides for its own blocks.
void place_compute(const Case& c, RunPlan& p) {
  if (c.run.cpu_compute != "auto" || p.launch.cuda_workers == 0) return;
  for (int r = 0; r < p.ranks.ranks; ++r) {
    std::vector<int> mine;
    for (const BlockInfo& b : p.decomposition.blocks)
      if (p.ranks.owner(b.id) == r) mine.push_back(b.id);
    const std::vector<bool> may = cpu_may_compute(c, p.decomposition, mine, p.launch.cuda_workers);
    for (int id : mine)
      if (!may[id]) p.blocks[id].cpu_compute = false;
  }
}

}  // namespace

// The blocks of a run whose case and command line set none (every converted .prm case), for the
// workers of one process: a block per GPU (cut along y); on CPUs two blocks per worker, 2 x W (cut
// along y more than along x: x faces' ghost copies are strided). Ligurian, 150 steps, cell-updates/s
// (2026-11-26): on 2 cores 2x2 2.67e8, 2x4 2.60e8, 1x4 2.39e8, 1x2 2.25-2.36e8, 2x1 2.35e8, 1x1
// 1.23e8; on the H100 host's 16 cores (15 workers) 2x16 8.1-8.3e8 against 6.0-7.7e8 for 2x8, 1x16,
// 1x15, 3x5 and 4x4; absorbing.toml ran as fast at two blocks a worker as at one
// (docs/performance.md). Fewer when the grid is too small for them (blocks of at least 4 cells).
std::pair<int, int> default_blocks(const Case& c, const Launch& l) {
  const int gpus = l.gpus, cpus = l.cpu_workers;
  const int nbx = gpus > 0 || cpus <= 1 ? 1 : 2;
  int nby = gpus > 0 ? gpus : std::max(1, cpus);
  for (Case t = c;; --nby) {
    t.run.nbx = nbx, t.run.nby = nby;
    try {
      validate_case(t);
      return {nbx, nby};
    } catch (const CaseError&) {
      if (nby == 1) return {1, 1};
    }
  }
}

std::vector<int> tile_groups(const Grid& g, const Decomposition& d, int groups) {
  RankMap m;
  try {
    m = map_blocks(g, d, groups, Mapping::Tiles);
  } catch (const std::invalid_argument&) {
    m = map_blocks(g, d, groups, Mapping::Cyclic);
  }
  std::vector<int> group(d.blocks.size());
  for (const BlockInfo& b : d.blocks) group[b.id] = m.owner(b.id);
  return group;
}

RunPlan plan_run(const Case& c, const Launch& l) {
  RunPlan p;
  p.launch = l;
  p.policy = c.tuning;
  p.step = step_params(c);
  p.decomposition = decompose(c);
  try {
    p.ranks = map_blocks(c.grid, p.decomposition, l.ranks, parse_mapping(c.run.mapping));
  } catch (const std::invalid_argument& e) {
    throw CaseError(fmt::format("{}: run.blocks / run.mapping: {}", c.path, e.what()));
  }
  const Decomposition& d = p.decomposition;
  p.blocks.resize(d.blocks.size());
  std::vector<int> owner(d.blocks.size());
  for (const BlockInfo& b : d.blocks) {
    BlockPlan& bp = p.blocks[b.id];
    bp.rank = owner[b.id] = p.ranks.owner(b.id);
    bp.bytes = static_cast<double>(block_bytes(c, b));
  }
  mark_frontiers(d, owner, p.blocks);
  // One process driving several GPUs: each block's tasks on one GPU, the blocks tiled over the
  // GPUs as ranks tile them, so that a block's fields stay on its GPU and only the halos cross
  // (the policy's gpu_affinity; Simulation::pin_blocks).
  if (p.policy.gpu_affinity && l.gpus > 1 && l.ranks == 1 && int(d.blocks.size()) >= l.gpus) {
    const std::vector<int> gpu = tile_groups(c.grid, d, l.gpus);
    for (const BlockInfo& b : d.blocks) p.blocks[b.id].gpu = gpu[b.id];
    mark_frontiers(d, gpu, p.blocks);
  }
  place_compute(c, p);
  // Where the stations' corners are read in a run of several blocks: by each block's compute_stress
  // task, after its update (the default), or by sample_stations / record_seismograms tasks of their
  // own (the policy's stress_station_slots = 0). Why: a task reading a block's velocity after its
  // stress update holds back the block's next velocity update (the stress task writes the velocity's
  // ghosts, so the two cannot overlap): one more dependent task a step on the stations' blocks, and
  // the frontier strips of two GPUs hold a station in benchmark.toml. A one-block run records in
  // its step task.
  p.samples_in_stress = d.blocks.size() > 1 && p.policy.stress_station_slots > 0;
  p.sampling = p.samples_in_stress                                      ? StationSampling::All
               : p.policy.gpu_affinity && l.gpus > 1                  ? StationSampling::AcrossBlocks
                                                                       : StationSampling::Ranks;
  p.small_tasks_on_gpus = c.run.small_tasks == "auto" && l.cuda_workers > 0;
  p.memory = memory_of(c, p);
  return p;
}

}  // namespace ondes
