#include "plan/run_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/case_error.hpp"
#include "io/case/case_reader.hpp"
#include "io/case/tuning.hpp"
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
  if (c.run.cpu_compute != Placement::Auto || p.launch.cuda_workers == 0) return;
  for (int r = 0; r < p.ranks.ranks; ++r) {
    std::vector<int> mine;
    for (const BlockInfo& b : p.decomposition.blocks)
      if (p.ranks.owner(b.id) == r) mine.push_back(b.id);
    const std::vector<bool> may = cpu_may_compute(c, p.decomposition, mine, p.launch.cuda_workers);
    for (int id : mine)
      if (!may[id]) p.blocks[id].cpu_compute = false;
  }
}

// The blocks of a run whose case and command line set none, on one process: a block per GPU (cut
// along y); on CPUs two blocks per worker, 2 x W (cut along y more than along x: x faces' ghost
// copies are strided); fewer where the grid is too small for them (blocks of at least 4 cells).
// (docs/performance.md, Decisions: Blocks chosen for the workers).
std::pair<int, int> default_blocks(const Case& c, const Launch& l) {
  const int gpus = l.gpus, cpus = l.cpu_workers;
  // Ondes3D's surface takes blocks cut along one axis (io/case/case_validation.cpp): 1 x 2W for CPUs.
  const bool one_axis = c.boundaries.surface == SurfaceScheme::Ondes3d;
  const int nbx = gpus > 0 || cpus <= 1 || one_axis ? 1 : 2;
  int nby = gpus > 0 ? gpus : std::max(1, one_axis && cpus > 1 ? 2 * cpus : cpus);
  for (Case t = c;; --nby) {
    t.run.set_blocks(nbx, nby);
    try {
      validate_blocks(t);
      return {nbx, nby};
    } catch (const CaseError&) {
      if (nby == 1) return {1, 1};
    }
  }
}

}  // namespace

std::pair<int, int> plan_blocks(const Case& c, const Launch& l) {
  if (!c.run.choose_blocks) return {c.run.nbx, c.run.nby};
  if (l.ranks > 1) return {1, l.ranks};  // cut along y
  return default_blocks(c, l);
}

namespace {

// The blocks of d tiled over `groups` groups (GPUs) as ranks tile them, cyclic where tiles do not
// fit: each block's group.
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

// Ranks driving several GPUs each (nodes of GPUs, a rank a node): each rank's blocks tiled over its
// GPUs as tile_groups tiles one process's, or dealt out in turn where they do not form a rectangle
// of blocks (cyclic mapping) or are fewer than the GPUs. GPU numbers are the rank's own.
std::vector<int> gpus_within_ranks(const Decomposition& d, const RankMap& ranks, int gpus) {
  std::vector<int> gpu(d.blocks.size(), -1);
  for (int r = 0; r < ranks.ranks; ++r) {
    std::vector<const BlockInfo*> mine;
    for (const BlockInfo& b : d.blocks)
      if (ranks.owner(b.id) == r) mine.push_back(&b);
    if (mine.empty()) continue;
    int bx0 = mine[0]->bx, by0 = mine[0]->by, bx1 = bx0, by1 = by0;
    for (const BlockInfo* b : mine) {
      bx0 = std::min(bx0, b->bx), bx1 = std::max(bx1, b->bx);
      by0 = std::min(by0, b->by), by1 = std::max(by1, b->by);
    }
    Decomposition sub;  // the rank's rectangle of blocks, numbered row by row as d numbers them
    sub.nbx = bx1 - bx0 + 1, sub.nby = by1 - by0 + 1;
    const bool rectangle = size_t(sub.nbx) * sub.nby == mine.size() && int(mine.size()) >= gpus;
    Grid g;  // the rectangle's extent (what the tiling weighs its cuts by)
    g.nx = g.ny = 0;
    for (const BlockInfo* b : mine) {
      BlockInfo s = *b;
      s.id = static_cast<int>(sub.blocks.size()), s.bx -= bx0, s.by -= by0;
      if (s.by == 0) g.nx += s.shape.nx;
      if (s.bx == 0) g.ny += s.shape.ny;
      sub.blocks.push_back(s);
    }
    const std::vector<int> tiled = rectangle ? tile_groups(g, sub, gpus) : std::vector<int>{};
    for (size_t i = 0; i < mine.size(); ++i) gpu[mine[i]->id] = rectangle ? tiled[i] : int(i) % gpus;
  }
  return gpu;
}

}  // namespace

RunPlan plan_run(const Case& given, const Launch& l) {
  RunPlan p;
  p.launch = l;
  p.blocks_chosen = given.run.choose_blocks;
  Case c = given;  // the plan's own copy, laid out in its blocks; the run's Case stays as read
  const auto [nbx, nby] = plan_blocks(given, l);
  c.run.set_blocks(nbx, nby);
  if (p.blocks_chosen) validate_blocks(c);
  p.policy = c.tuning;
  // A simulated run: no watchdog (the fields stay zero), no parked workers (their sleep would
  // block the simulation's actors).
  if (l.simulated) p.policy.park_cpus = false;
  p.watchdog_every = l.simulated ? 0 : c.run.watchdog_every;
  p.step = step_params(c);
  p.decomposition = decompose(c);
  try {
    p.ranks = map_blocks(c.grid, p.decomposition, l.ranks, c.run.mapping);
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
  // A process driving several GPUs: each block's tasks on one GPU, the blocks tiled over the
  // GPUs as ranks tile them, so that a block's fields stay on its GPU and only the halos cross
  // (the policy's gpu_affinity; Simulation::pin_blocks); with several ranks, each rank's blocks
  // over its own GPUs.
  if (p.policy.gpu_affinity && l.gpus > 1 && int(d.blocks.size()) >= l.gpus * l.ranks) {
    const std::vector<int> gpu = l.ranks == 1 ? tile_groups(c.grid, d, l.gpus) : gpus_within_ranks(d, p.ranks, l.gpus);
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
  // its windows (tasks/chain.hpp).
  p.samples_in_stress = d.blocks.size() > 1 && p.policy.stress_station_slots > 0;
  p.sampling = p.samples_in_stress                                      ? StationSampling::All
               : p.policy.gpu_affinity && l.gpus > 1                  ? StationSampling::AcrossBlocks
                                                                       : StationSampling::Ranks;
  p.small_tasks_on_gpus = c.run.small_tasks == Placement::Auto && l.cuda_workers > 0;
  p.memory = memory_of(c, p);
  return p;
}

std::vector<std::string> describe_plan(const Case& c, const RunPlan& p) {
  const Decomposition& d = p.decomposition;
  const Launch& l = p.launch;
  std::vector<std::string> lines;
  const std::string why = !p.blocks_chosen ? "as the case or --blocks sets"
                          : l.ranks > 1   ? "a block per rank"
                          : l.gpus > 0    ? fmt::format("chosen for {} GPU(s); --blocks to choose", l.gpus)
                                          : fmt::format("chosen for {} CPU worker(s); --blocks to choose", l.cpu_workers);
  lines.push_back(fmt::format("blocks {} x {} ({}){}", d.nbx, d.nby, why,
                              c.run.edge_strip ? fmt::format(", edge strips of {} cells", c.run.edge_strip) : ""));
  if (d.blocks.size() > 1) {
    std::vector<int> wx, wy;
    for (const BlockInfo& b : d.blocks) {
      if (b.by == 0) wx.push_back(b.shape.nx);
      if (b.bx == 0) wy.push_back(b.shape.ny);
    }
    lines.push_back(fmt::format("block widths ({} cuts): x {}, y {}", c.run.balance == Balance::Pml ? "PML-balanced" : "even",
                                fmt::join(wx, " "), fmt::join(wy, " ")));
  }
  std::vector<int> gpu, cpu_kept, owner;
  for (size_t id = 0; id < p.blocks.size(); ++id) {
    gpu.push_back(p.blocks[id].gpu), owner.push_back(p.blocks[id].rank);
    if (!p.blocks[id].cpu_compute) cpu_kept.push_back(int(id));
  }
  if (l.ranks > 1)
    lines.push_back(fmt::format("{} ranks ({} mapping, {} x {}); owner of each block: {}", l.ranks, name_of(c.run.mapping),
                                p.ranks.px, p.ranks.py, fmt::join(owner, " ")));
  if (l.gpus > 0)
    lines.push_back(fmt::format("{} GPU(s) a process, {} CUDA worker(s); {}", l.gpus, l.cuda_workers,
                                l.gpus > 1 && p.blocks.front().gpu >= 0
                                    ? fmt::format("GPU of each block: {}", fmt::join(gpu, " "))
                                    : "blocks on any GPU"));
  if (!cpu_kept.empty())
    lines.push_back(fmt::format("blocks kept off the CPU workers (run.cpu_compute = \"auto\"): {}",
                                fmt::join(cpu_kept, " ")));
  if (l.cuda_workers > 0)
    lines.push_back(fmt::format("small tasks {}", p.small_tasks_on_gpus ? "on the GPUs (run.small_tasks = \"auto\")"
                                                                         : "anywhere (run.small_tasks = \"any\")"));
  lines.push_back(fmt::format("watchdog {}", p.watchdog_every > 0 ? fmt::format("every {} iterations", p.watchdog_every)
                                                                   : std::string("off")));
  // The plan's policy (a simulated run's included) beside its defaults; it never changes the results.
  std::istringstream policy(describe_tuning(p.policy));
  for (std::string line; std::getline(policy, line);) lines.push_back("execution policy: " + line);
  return lines;
}

}  // namespace ondes
