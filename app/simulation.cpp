#include "app/simulation.hpp"

#include <fmt/format.h>
#include <starpu.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "app/progress.hpp"
#include "codelets/cpu_kernels.hpp"
#include "tasks/submit.hpp"

namespace ondes {

std::vector<std::string> scheduler_names() {
  std::vector<std::string> names;
  for (starpu_sched_policy** p = starpu_sched_get_predefined_policies(); *p; ++p) names.push_back((*p)->policy_name);
  return names;
}

Runtime::Runtime(const std::string& scheduler, int ncpu, int ncuda) {
  starpu_conf conf;
  starpu_conf_init(&conf);
  if (ncpu >= 0) conf.ncpus = ncpu;
  if (ncuda >= 0) conf.ncuda = ncuda;
  if (!scheduler.empty()) {
    const auto names = scheduler_names();
    if (std::find(names.begin(), names.end(), scheduler) == names.end())
      throw std::runtime_error(fmt::format("unknown scheduler '{}'; StarPU offers: {}", scheduler,
                                           fmt::join(names, ", ")));
    conf.sched_policy_name = scheduler.c_str();
  }
  const int ret = starpu_init(&conf);
  if (ret != 0) throw std::runtime_error(fmt::format("StarPU could not start (error {})", ret));
}

Runtime::~Runtime() { starpu_shutdown(); }

std::string Runtime::scheduler() const {
  const starpu_sched_policy* p = starpu_sched_ctx_get_sched_policy(0);
  return p && p->policy_name ? p->policy_name : "";
}
int Runtime::cpu_workers() const { return starpu_worker_get_count_by_type(STARPU_CPU_WORKER); }
int Runtime::cuda_workers() const { return starpu_worker_get_count_by_type(STARPU_CUDA_WORKER); }

namespace {
// Idle StarPU workers poll for tasks; while the main thread fills gigabytes of arrays they would
// take its cores (60% of a large case's set-up time on 2 cores). Paused workers sleep instead.
struct PausedWorkers {
  PausedWorkers() { starpu_pause(); }
  ~PausedWorkers() { starpu_resume(); }
};
}  // namespace

Simulation::Simulation(const Case& c, int steps) : case_(c), steps_(steps) {
  PausedWorkers paused;
  const Decomposition d = decompose(c.grid, c.run.nbx, c.run.nby);
  blocks_ = build_blocks(c, d);
  stations_ = build_station_groups(c, d, steps);
  register_handles(blocks_);
  register_station_groups(stations_);
  stats_.tasks_per_iteration = tasks_per_iteration(blocks_, stations_);
}

Simulation::~Simulation() {
  starpu_task_wait_for_all();
  release_station_groups(stations_);
  release_blocks(blocks_);
}

void Simulation::advance(int n, bool show_progress) {
  n = std::min(n, steps_ - iteration_);
  if (n <= 0) return;
  const double cells = double(case_.grid.nx) * case_.grid.ny * case_.grid.nz;
  const auto start = std::chrono::steady_clock::now();
  {
    Progress progress(blocks(), iteration_, iteration_ + n, case_.time.dt, cells, show_progress);
    IterationPlan plan;
    plan.base.dt = static_cast<float>(case_.time.dt);
    plan.base.dt_h = static_cast<float>(case_.time.dt / case_.grid.h);
    plan.base.inv_h = static_cast<float>(1.0 / case_.grid.h);
    plan.base.free_surface = case_.boundaries.free_surface;
    plan.nsteps = steps_;
    plan.dt = case_.time.dt;
    plan.on_stress_done = &Progress::on_block_done;
    plan.callback_arg = &progress;
    // Bound the tasks in flight (memory) without synchronising: StarPU only blocks submission
    // while more than a window of iterations is pending.
    const unsigned window = static_cast<unsigned>(stats_.tasks_per_iteration) * 16;
    for (int k = 0; k < n; ++k) {
      submit_iteration(blocks_, stations_, plan, iteration_ + k);
      starpu_task_wait_for_n_submitted(window);
    }
    starpu_task_wait_for_all();
  }
  iteration_ += n;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats_.steps += n;
  stats_.wall_seconds += wall;
  stats_.cell_updates_per_second = cells * stats_.steps / stats_.wall_seconds;
  stats_.window_cell_updates_per_second = cells * n / wall;
}

std::vector<float> Simulation::seismograms() {
  std::vector<float> out(case_.stations.size() * 3 * steps_, 0.0f);
  for (StationGroup& g : stations_) {
    starpu_data_acquire(g.h_traces, STARPU_R);
    for (size_t q = 0; q < g.station_ids.size(); ++q)
      std::copy_n(g.traces.begin() + q * 3 * steps_, 3 * steps_, out.begin() + g.station_ids[q] * 3 * steps_);
    starpu_data_release(g.h_traces);
  }
  return out;
}

double Simulation::energy() {
  const Grid& g = case_.grid;
  const int w = case_.boundaries.pml_width;
  const int k0 = case_.boundaries.free_surface ? 0 : w, k1 = g.nz - w;
  double e = 0;
  for (BlockData& b : blocks_) {
    const BlockInfo& in = b.info;
    const int i0 = std::max(w - in.x0, 0), i1 = std::min(g.nx - w - in.x0, in.shape.nx);
    const int j0 = std::max(w - in.y0, 0), j1 = std::min(g.ny - w - in.y0, in.shape.ny);
    if (i0 >= i1 || j0 >= j1) continue;
    starpu_data_acquire(b.h_velocity, STARPU_R);
    starpu_data_acquire(b.h_stress, STARPU_R);
    starpu_data_acquire(b.h_material, STARPU_R);
    e += cpu::energy(in.shape, b.velocity, b.stress, b.material, i0, i1, j0, j1, k0, k1, g.h);
    starpu_data_release(b.h_material);
    starpu_data_release(b.h_stress);
    starpu_data_release(b.h_velocity);
  }
  return e;
}

}  // namespace ondes
