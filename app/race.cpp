#include "app/race.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>

#include "app/driver.hpp"
#include "core/case_error.hpp"
#include "engine/runtime.hpp"
#include "engine/simulation.hpp"
#include "plan/run_plan.hpp"

namespace ondes {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[(v.size() - 1) / 2];
}

// The cases' arrays together against the host's memory (as a run checks its own: check_host_memory).
void check_memory_together(const std::vector<Case>& cases, const std::vector<RunPlan>& plans) {
  MemoryNeeds sum;
  for (const RunPlan& plan : plans) sum.per_rank += plan.memory.per_rank;
  Case all = cases.front();
  all.path = fmt::format("race of {} cases", cases.size());
  check_host_memory(all, sum, 1);
}

}  // namespace

std::vector<RaceLane> race(std::vector<Case> cases, int steps, int rounds) {
  std::vector<RunPlan> plans;
  for (Case& c : cases) {
    c.time.steps = steps * (rounds + 1), c.snapshots.every = 0;
    plans.push_back(plan_run(c, Simulation::current_launch()));
  }
  check_memory_together(cases, plans);
  std::vector<std::unique_ptr<Simulation>> sims;
  std::vector<RaceLane> lanes;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    sims.push_back(std::make_unique<Simulation>(c, plans[i], c.time.steps));
    const Decomposition& d = plans[i].decomposition;
    spdlog::info("{}: {} x {} x {} cells, blocks {} x {}", c.path, c.grid.nx, c.grid.ny, c.grid.nz, d.nbx, d.nby);
    lanes.push_back({c.path, {}});
  }
  for (int r = 0; r <= rounds; ++r)
    for (size_t i = 0; i < sims.size(); ++i) {
      const Case& c = cases[i];
      const double start = clock_seconds();
      if (sims[i]->advance(steps) < steps)
        throw std::runtime_error(fmt::format("{}: stopped after iteration {} (watchdog or signal)", c.path,
                                             sims[i]->iteration()));
      const double cells = double(c.grid.nx) * c.grid.ny * c.grid.nz;
      if (r > 0) lanes[i].rates.push_back(cells * steps / (clock_seconds() - start));
    }
  return lanes;
}

int race_command(const std::vector<Case>& cases, int steps, int rounds) {
  if (launch_size() > 1) throw CaseError("race: one process only (no mpirun)");
  Runtime rt(cases.front().run.scheduler, -1, -1, false);
  for (const Case& c : cases)
    if (c.run.scheduler != cases.front().run.scheduler)
      spdlog::warn("{}: run.scheduler {} ignored: a race runs every case under the first case's ({})", c.path,
                   c.run.scheduler.empty() ? "(default)" : c.run.scheduler, rt.scheduler());
  spdlog::info("race: {} cases, {} rounds of {} steps each after one of warm-up; {} CPU + {} CUDA workers, scheduler {}",
               cases.size(), rounds, steps, rt.cpu_workers(), rt.cuda_workers(), rt.scheduler());
  const std::vector<RaceLane> lanes = race(cases, steps, rounds);
  const double first = median(lanes.front().rates);
  fmt::print("| case | cell-updates/s, median of {} rounds of {} steps (range) | time vs the first |\n| --- | --- | --- |\n",
             rounds, steps);
  for (const RaceLane& l : lanes) {
    const auto [lo, hi] = std::minmax_element(l.rates.begin(), l.rates.end());
    const double m = median(l.rates);
    fmt::print("| {} | {:.4g} ({:.4g}-{:.4g}) | {:.2f} |\n", l.path, m, *lo, *hi, first / m);
  }
  return 0;
}

}  // namespace ondes
