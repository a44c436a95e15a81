#include "app/calibrate.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <starpu.h>

#include <chrono>
#include <cstdlib>
#include <optional>

#include "engine/runtime.hpp"
#include "engine/simulation.hpp"

namespace ondes {
namespace {

// The smallest near-square layout with at least `workers` blocks, and a fine one.
std::pair<int, int> coarse_layout(int workers) {
  int n = 1;
  while (n * n < workers) ++n;
  return n * (n - 1) >= workers ? std::pair{n, n - 1} : std::pair{n, n};
}

double seconds_per_iteration(Case c, int steps) {
  c.run.watchdog_every = 0;
  Simulation sim(c, steps + 10);
  sim.advance(10);
  const double start = clock_seconds();
  sim.advance(steps);
  return (clock_seconds() - start) / steps;
}

// Measures one kind of worker alone; false when there is none.
bool measure(const Case& c, int steps, bool cuda, int ncpu, MachineModel& m) {
  ScopedEnv other(cuda ? "STARPU_NCPU" : "STARPU_NCUDA", "0");
  std::optional<ScopedEnv> count;
  if (!cuda && ncpu >= 0) count.emplace("STARPU_NCPU", std::to_string(ncpu));
  std::optional<Runtime> runtime;
  try {
    runtime.emplace("eager", -1, -1, false);
  } catch (const std::runtime_error&) {
    if (cuda) return false;  // StarPU refuses to start with no worker at all
    throw;
  }
  const Runtime& rt = *runtime;
  const int workers = cuda ? rt.cuda_workers() : rt.cpu_workers();
  if (workers == 0) return false;
  const auto [cx, cy] = coarse_layout(workers);
  const int fine = std::max(8, 2 * std::max(cx, cy));
  Case a = c, b = c;
  a.run.set_blocks(cx, cy);
  b.run.set_blocks(fine, fine);
  const double ta = seconds_per_iteration(a, steps), tb = seconds_per_iteration(b, steps);
  double gbs = 0, task_s = 0;
  solve_kind(busiest_worker(a, workers), ta, busiest_worker(b, workers), tb, gbs, task_s);
  spdlog::info("{} {} worker(s): {:.4g} s per iteration with {}x{} blocks, {:.4g} s with {}x{}: {:.4g} GB/s per worker, "
               "{:.3g} us per task",
               workers, cuda ? "CUDA" : "CPU", ta, cx, cy, tb, fine, fine, gbs, task_s * 1e6);
  if (cuda) {
    m.cuda_gbs = gbs, m.cuda_task_s = task_s;
    for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
      if (starpu_worker_get_type(int(w)) != STARPU_CUDA_WORKER) continue;
      const unsigned node = starpu_worker_get_memory_node(w);
      m.cuda_memory_bytes = double(starpu_memory_get_total(node));
      m.link_gbs = starpu_transfer_bandwidth(STARPU_MAIN_RAM, node) * 1e6 / 1e9;  // MB/s
      m.link_latency_s = starpu_transfer_latency(STARPU_MAIN_RAM, node) * 1e-6;
      break;
    }
  } else {
    m.cpu_gbs = gbs, m.cpu_task_s = task_s, m.cpu_workers = workers;
  }
  return true;
}

}  // namespace

MachineModel calibrate_machine(const Case& c, int steps, int ncpu) {
  MachineModel m;
  m.name = host_name();
  measure(c, steps, false, ncpu, m);
  if (!measure(c, steps, true, ncpu, m)) spdlog::info("no CUDA worker: the GPU figures stay 0");
  return m;
}

}  // namespace ondes
