// ondes3d: elastic wave propagation (Ondes3D scheme) on the StarPU task runtime.
//   ondes3d run CASE.toml [--blocks NXxNY] [--sched NAME] [--steps N] [--output FILE.h5]
//   ondes3d check CASE.toml [--blocks NXxNY]
//   ondes3d info
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <regex>

#include "app/info.hpp"
#include "app/simulation.hpp"
#include "io/case_reader.hpp"
#include "io/output_h5.hpp"
#include "partition/block_data.hpp"
#include "physics/medium.hpp"
#include "physics/stability.hpp"

using namespace ondes;

namespace {

struct Overrides {
  std::string blocks, scheduler, output;
  int steps = 0;
};

// Reads the case, applies command-line overrides, validates; warnings go to the log.
Case load(const std::string& path, const Overrides& o) {
  Case c = read_case(path);
  if (!o.blocks.empty()) {
    std::smatch m;
    if (!std::regex_match(o.blocks, m, std::regex(R"((\d{1,6})x(\d{1,6}))")))
      throw CaseError(fmt::format("--blocks {}: expected NXxNY, e.g. 2x3", o.blocks));
    c.run.nbx = std::stoi(m[1]);
    c.run.nby = std::stoi(m[2]);
  }
  if (!o.scheduler.empty()) c.run.scheduler = o.scheduler;
  if (!o.output.empty()) c.output = o.output;
  if (o.steps > 0) c.time.steps = o.steps;
  for (const std::string& w : validate_case(c)) spdlog::warn("{}: {}", c.path, w);
  return c;
}

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return fmt::format("{:.1f} {}", b, unit[u]);
}

int check(const Case& c) {
  const Decomposition d = decompose(c.grid, c.run.nbx, c.run.nby);
  const double limit = cfl_limit(c.grid.h, vp_max(c.medium));
  fmt::print("case {}\n", c.path);
  fmt::print("grid {} x {} x {} cells, h = {} m ({:.1f} x {:.1f} x {:.1f} km)\n", c.grid.nx, c.grid.ny, c.grid.nz,
             c.grid.h, c.grid.extent(0) / 1e3, c.grid.extent(1) / 1e3, c.grid.extent(2) / 1e3);
  fmt::print("time step {} s: {:.1f}% of the CFL limit {:.6g} s; {} steps = {:.3f} s simulated\n", c.time.dt,
             100 * c.time.dt / limit, limit, c.time.steps, c.time.steps * c.time.dt);
  fmt::print("points per shortest S wavelength: {:.2f} (vs_min {} m/s)\n", points_per_wavelength(c),
             vs_min(c.medium));
  fmt::print("boundaries: {}, PML {} cells\n", c.boundaries.free_surface ? "free surface on top" : "absorbing all round",
             c.boundaries.pml_width);
  fmt::print("{} source(s), {} station(s)\n", c.sources.size(), c.stations.size());
  double total = 0, largest = 0;
  for (const BlockInfo& b : d.blocks) {
    const double bytes = static_cast<double>(block_bytes(c, b));
    total += bytes;
    largest = std::max(largest, bytes);
  }
  total += 4.0 * c.stations.size() * 3 * c.time.steps;
  fmt::print("blocks {} x {}: largest block {}, total {} (seismograms included)\n", c.run.nbx, c.run.nby,
             human_bytes(largest), human_bytes(total));
  return 0;
}

int run(const Case& c) {
  const auto out_dir = std::filesystem::absolute(c.output).parent_path();
  if (!std::filesystem::is_directory(out_dir))
    throw CaseError(fmt::format("{}: output.file = {}: directory {} does not exist", c.path, c.output, out_dir.string()));
  Runtime rt(c.run.scheduler);
  spdlog::info("{}: {} x {} x {} cells, {} steps, blocks {} x {}, scheduler {}, {} CPU + {} CUDA workers", c.path,
               c.grid.nx, c.grid.ny, c.grid.nz, c.time.steps, c.run.nbx, c.run.nby, rt.scheduler(), rt.cpu_workers(),
               rt.cuda_workers());
  Simulation sim(c, c.time.steps);
  // A first window of 10 iterations carries the start-up (first transfers to GPUs, calibration);
  // the throughput reported is the steady one after it.
  const int warm = c.time.steps >= 40 ? 10 : 0;
  if (warm) sim.advance(warm, true);
  sim.advance(c.time.steps - warm, true);
  RunMetadata m;
  m.program_version = ONDES_VERSION;
  m.starpu_version = starpu_version();
  m.scheduler = rt.scheduler();
  m.nbx = c.run.nbx;
  m.nby = c.run.nby;
  m.cpu_workers = rt.cpu_workers();
  m.cuda_workers = rt.cuda_workers();
  m.steps = c.time.steps;
  m.wall_seconds = sim.stats().wall_seconds;
  m.cell_updates_per_second = sim.stats().window_cell_updates_per_second;
  write_output(c.output, c, sim.seismograms(), m);
  spdlog::info("done in {:.2f} s: {:.4g} cell-updates/s, {} tasks per iteration; seismograms in {}", m.wall_seconds,
               m.cell_updates_per_second, sim.stats().tasks_per_iteration, c.output);
  if (warm) spdlog::info("(throughput after the first {} iterations; {:.4g} cell-updates/s over all)", warm,
                         sim.stats().cell_updates_per_second);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ondes3d: 3D elastic wave propagation (4th-order staggered grid, C-PML) on StarPU"};
  app.require_subcommand(1);
  std::string case_path;
  Overrides o;

  CLI::App* run_cmd = app.add_subcommand("run", "run a case and write its seismograms to HDF5");
  run_cmd->add_option("case", case_path, "case file (TOML)")->required();
  run_cmd->add_option("--blocks", o.blocks, "block layout NXxNY (overrides run.blocks)");
  run_cmd->add_option("--sched", o.scheduler, "StarPU scheduling policy (overrides run.scheduler)");
  run_cmd->add_option("--steps", o.steps, "number of time steps (overrides time.steps)")->check(CLI::PositiveNumber);
  run_cmd->add_option("--output", o.output, "HDF5 output file (overrides output.file)");

  CLI::App* check_cmd = app.add_subcommand("check", "validate a case and print its size, memory and stability");
  check_cmd->add_option("case", case_path, "case file (TOML)")->required();
  check_cmd->add_option("--blocks", o.blocks, "block layout NXxNY (overrides run.blocks)");
  check_cmd->add_option("--steps", o.steps, "number of time steps")->check(CLI::PositiveNumber);

  app.add_subcommand("info", "StarPU version, workers, scheduling policies and hwloc topology");

  CLI11_PARSE(app, argc, argv);
  spdlog::set_pattern("[%H:%M:%S] %^%l%$: %v");
  try {
    if (app.got_subcommand("info")) {
      fmt::print("ondes3d {}\n{}", ONDES_VERSION, system_info());
      return 0;
    }
    const Case c = load(case_path, o);
    return app.got_subcommand("check") ? check(c) : run(c);
  } catch (const CaseError& e) {
    spdlog::error("{}", e.what());
    return 2;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}
