#include "perfmodels/cost_model.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <numeric>

#include "core/case_error.hpp"
#include "partition/mapping.hpp"
#include "physics/grid_setup.hpp"
#include "physics/pml.hpp"

namespace ondes {
namespace {

constexpr double kBytesPerCell = 4 * (kVelocityFloatsPerCell + kStressFloatsPerCell), kBytesPerPmlCell = 160;
constexpr double kBoundaryFloats = 2 * kHaloComponents;  // velocity and stress halos

int64_t pml_cells(const Case& c, const BlockInfo& b) {
  return PmlRegion::of(c).cells_in(b.x0, b.shape.nx, b.y0, b.shape.ny, b.shape.nz);
}

struct Worker {
  bool cuda = false;
  double compute = 0, overhead = 0, transfer = 0;
  double busy() const { return compute + overhead + transfer; }
};

double compute_seconds(bool cuda, const BlockCost& b, const MachineModel& m) {
  return b.bytes / ((cuda ? m.cuda_gbs : m.cpu_gbs) * 1e9);
}
double overhead_seconds(bool cuda, const BlockCost& b, const MachineModel& m) {
  return b.tasks * (cuda ? m.cuda_task_s : m.cpu_task_s);
}

// Largest block first, each on the worker that would finish it first; returns each block's worker.
std::vector<int> place(const std::vector<int>& blocks, const std::vector<BlockCost>& cost, std::vector<Worker>& workers,
                       const MachineModel& m) {
  std::vector<int> order = blocks, where(cost.size(), -1);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost[a].bytes > cost[b].bytes; });
  for (int b : order) {
    int best = 0;
    double best_end = 1e300;
    for (size_t w = 0; w < workers.size(); ++w) {
      const bool cuda = workers[w].cuda;
      const double end = workers[w].busy() + compute_seconds(cuda, cost[b], m) + overhead_seconds(cuda, cost[b], m);
      if (end < best_end) best_end = end, best = static_cast<int>(w);
    }
    workers[best].compute += compute_seconds(workers[best].cuda, cost[b], m);
    workers[best].overhead += overhead_seconds(workers[best].cuda, cost[b], m);
    where[b] = best;
  }
  return where;
}

double link_seconds(double bytes, double latency, double gbs) { return latency + bytes / (gbs * 1e9); }

template <class T>
T get(const toml::table& t, const std::string& path, const char* key, T fallback, bool required) {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) throw CaseError(fmt::format("{}: missing key {}", path, key));
    return fallback;
  }
  if constexpr (std::is_same_v<T, std::string>) {
    if (auto v = n->value<std::string>()) return *v;
  } else {
    if (auto v = n->value<double>()) {
      if (*v < 0) throw CaseError(fmt::format("{}: {} = {} must be >= 0", path, key, *v));
      return static_cast<T>(*v);
    }
  }
  throw CaseError(fmt::format("{}: {} has the wrong type", path, key));
}

}  // namespace

std::vector<BlockCost> block_costs(const Case& c, const Decomposition& d) {
  std::vector<BlockCost> out;
  // An attenuating stress update reads and writes 6 memory variables per mechanism and cell.
  const double per_cell = kBytesPerCell + 2 * 4.0 * kStressComponents * anelastic_shape(c).mechanisms;
  for (const BlockInfo& b : d.blocks) {
    BlockCost k;
    const int64_t cells = int64_t(b.shape.nx) * b.shape.ny * b.shape.nz;
    k.bytes = per_cell * cells + kBytesPerPmlCell * pml_cells(c, b);
    // compute_velocity, compute_stress (each saving its edges); a lone block's window does both (counted
    // as one task a step: the fewer hops of its windows of several steps are not modelled)
    k.tasks = d.blocks.size() == 1 ? 1 : 2;
    for (int dir = 0; dir < kDirections; ++dir) {
      if (b.neighbour[dir] < 0) continue;
      const Box e = edge_box(b.shape, dir);
      k.boundary_bytes[dir] = 4.0 * kBoundaryFloats * e.ni * e.nj * b.shape.nz;
      k.bytes += 2 * 2 * k.boundary_bytes[dir];  // saved (read + write), loaded by the neighbour (read + write)
    }
    out.push_back(k);
  }
  return out;
}

std::vector<bool> cpu_may_compute(const Case& c, const Decomposition& d, const std::vector<int>& mine, int gpus,
                                  double cpu_gbs, double gpu_gbs) {
  std::vector<bool> may(d.blocks.size(), false);
  const std::vector<BlockCost> cost = block_costs(c, d);
  double bytes = 0;
  for (int b : mine) bytes += cost[b].bytes;
  const double gpu_iteration_s = gpus > 0 ? bytes / (gpus * gpu_gbs * 1e9) : 0;
  for (int b : mine) may[b] = gpus == 0 || cost[b].bytes / (cpu_gbs * 1e9) <= 0.5 * gpu_iteration_s;
  return may;
}

Prediction predict(const Case& c, const WorkerConfig& cfg, const MachineModel& m) {
  const Decomposition d = decompose(c);
  return predict(c, d, map_blocks(c.grid, d, cfg.ranks, c.run.mapping), cfg, m);
}

Prediction predict(const Case& c, const Decomposition& d, const RankMap& map, const WorkerConfig& cfg,
                   const MachineModel& m) {
  const std::vector<BlockCost> cost = block_costs(c, d);
  const std::vector<long long> mpi_bytes = bytes_sent_per_iteration(d, map);
  Prediction p;
  double cpu_bytes = 0, all_bytes = 0;
  for (int r = 0; r < cfg.ranks; ++r) {
    std::vector<Worker> workers;
    for (int g = 0; g < cfg.ncuda; ++g) workers.push_back({true});
    for (int i = 0; i < cfg.ncpu; ++i) workers.push_back({false});
    if (workers.empty()) throw std::invalid_argument("no workers to predict for");
    std::vector<int> mine;
    for (const BlockInfo& b : d.blocks)
      if (map.owner(b.id) == r) mine.push_back(b.id);
    const std::vector<int> where = place(mine, cost, workers, m);
    // Memory node of a block: its GPU, or the host (-1) for every CPU worker.
    auto node = [&](int b) { return workers[where[b]].cuda ? where[b] : -1; };
    int messages = 0;
    for (int b : mine) {
      for (int dir = 0; dir < kDirections; ++dir) {
        const int nb = d.blocks[b].neighbour[dir];
        if (nb < 0) continue;
        if (map.owner(nb) != r) {
          ++messages;
          continue;
        }
        if (node(nb) == node(b)) continue;
        // b reads the buffer nb saved towards it: it crosses the link(s) between their nodes.
        const double bytes = cost[nb].boundary_bytes[opposite(dir)];
        const int hops = node(b) >= 0 && node(nb) >= 0 ? 2 : 1;
        const int gpu = node(b) >= 0 ? node(b) : node(nb);
        workers[gpu].transfer += hops * link_seconds(bytes, m.link_latency_s, m.link_gbs);
      }
      all_bytes += cost[b].bytes;
      if (!workers[where[b]].cuda) cpu_bytes += cost[b].bytes;
      p.tasks_per_iteration += cost[b].tasks;
    }
    const auto busiest = std::max_element(workers.begin(), workers.end(),
                                          [](const Worker& a, const Worker& b) { return a.busy() < b.busy(); });
    const double mpi = cfg.ranks > 1 ? messages * m.mpi_latency_s + mpi_bytes[r] / (m.mpi_gbs * 1e9) : 0;
    const double t = busiest->busy() + mpi;
    if (t > p.seconds_per_iteration) {
      p.seconds_per_iteration = t;
      p.compute_s = busiest->compute;
      p.overhead_s = busiest->overhead;
      p.transfer_s = busiest->transfer + mpi;
    }
  }
  p.cpu_cell_share = all_bytes > 0 ? cpu_bytes / all_bytes : 0;
  return p;
}

Load busiest_worker(const Case& c, int workers) {
  const Decomposition d = decompose(c);
  const std::vector<BlockCost> cost = block_costs(c, d);
  // Placement by bytes alone: any positive bandwidth and zero overhead give the same order.
  MachineModel unit;
  unit.cpu_gbs = 1;
  std::vector<Worker> w(static_cast<size_t>(workers));
  std::vector<int> all(cost.size());
  std::iota(all.begin(), all.end(), 0);
  const std::vector<int> where = place(all, cost, w, unit);
  std::vector<Load> loads(w.size());
  for (size_t b = 0; b < cost.size(); ++b) loads[where[b]].bytes += cost[b].bytes, loads[where[b]].tasks += cost[b].tasks;
  return *std::max_element(loads.begin(), loads.end(), [](const Load& a, const Load& b) { return a.bytes < b.bytes; });
}

void solve_kind(const Load& a, double ta, const Load& b, double tb, double& gbs, double& task_s) {
  // ta = a.bytes x + a.tasks y, tb = b.bytes x + b.tasks y, x = 1 / bandwidth (s per byte).
  const double det = a.bytes * b.tasks - b.bytes * a.tasks;
  double x = det != 0 ? (ta * b.tasks - tb * a.tasks) / det : 0;
  double y = det != 0 ? (a.bytes * tb - b.bytes * ta) / det : 0;
  if (y < 0 || x <= 0) {  // noise: all of it bandwidth, measured on the coarser layout
    y = 0;
    x = ta / a.bytes;
  }
  gbs = 1e-9 / x;
  task_s = y;
}

MachineModel read_machine(const std::string& path) {
  toml::table t;
  try {
    t = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw CaseError(fmt::format("{}: {}", path, e.description()));
  }
  MachineModel m;
  m.name = get<std::string>(t, path, "name", "", false);
  m.cpu_gbs = get<double>(t, path, "cpu_gbs", 0, true);
  m.cpu_task_s = get<double>(t, path, "cpu_task_s", 0, true);
  m.cpu_workers = get<int>(t, path, "cpu_workers", 0, false);
  m.cuda_gbs = get<double>(t, path, "cuda_gbs", 0, false);
  m.cuda_task_s = get<double>(t, path, "cuda_task_s", 0, false);
  m.cuda_memory_bytes = get<double>(t, path, "cuda_memory_bytes", 0, false);
  m.link_latency_s = get<double>(t, path, "link_latency_s", m.link_latency_s, false);
  m.link_gbs = get<double>(t, path, "link_gbs", m.link_gbs, false);
  m.mpi_latency_s = get<double>(t, path, "mpi_latency_s", m.mpi_latency_s, false);
  m.mpi_gbs = get<double>(t, path, "mpi_gbs", m.mpi_gbs, false);
  if (m.cpu_gbs <= 0) throw CaseError(fmt::format("{}: cpu_gbs must be > 0", path));
  return m;
}

void write_machine(const std::string& path, const MachineModel& m) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write the machine model", path));
  out << "# Machine model for the analytic cost model (perfmodels/cost_model.hpp), from `ondes3d calibrate`.\n"
      << "# Bandwidths are effective ones on the stencils, from two block layouts' times per iteration.\n";
  out << fmt::format("name = \"{}\"\n", m.name);
  out << fmt::format("cpu_workers = {}\ncpu_gbs = {:.6g}\ncpu_task_s = {:.6g}\n", m.cpu_workers, m.cpu_gbs, m.cpu_task_s);
  out << fmt::format("cuda_gbs = {:.6g}\ncuda_task_s = {:.6g}\ncuda_memory_bytes = {:.6g}\n", m.cuda_gbs, m.cuda_task_s,
                     m.cuda_memory_bytes);
  out << fmt::format("# host <-> GPU, from StarPU's bus calibration\nlink_latency_s = {:.6g}\nlink_gbs = {:.6g}\n",
                     m.link_latency_s, m.link_gbs);
  out << fmt::format("# between MPI ranks: not measured by calibrate; set from a ping-pong of your network\n"
                     "mpi_latency_s = {:.6g}\nmpi_gbs = {:.6g}\n",
                     m.mpi_latency_s, m.mpi_gbs);
  if (!out) throw std::runtime_error(fmt::format("{}: writing the machine model failed", path));
}

}  // namespace ondes
