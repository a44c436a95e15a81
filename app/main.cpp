// ondes3d: elastic wave propagation (Ondes3D scheme) on the StarPU task runtime.
//   ondes3d run CASE.toml [--blocks NXxNY] [--sched NAME] [--mapping tiles|cyclic] [--steps N] [--output FILE.h5]
//   mpirun -np R ondes3d run ...   (blocks spread over R ranks through StarPU-MPI)
//   ondes3d check CASE.toml [--blocks NXxNY]
//   ondes3d compare A.h5 B.h5 [--tolerance REL]
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
#include "io/compare.hpp"
#include "io/output_h5.hpp"
#include "partition/block_data.hpp"
#include "partition/mapping.hpp"
#include "physics/medium.hpp"
#include "physics/stability.hpp"

using namespace ondes;

namespace {

struct Overrides {
  std::string blocks, scheduler, output, mapping;
  int steps = 0;
  int ranks = 0;  // check: ranks to plan for (0: as launched)
};

RankMap plan_ranks(const Case& c, int ranks) {
  try {
    return map_blocks(c.grid, decompose(c.grid, c.run.nbx, c.run.nby), ranks, parse_mapping(c.run.mapping));
  } catch (const std::invalid_argument& e) {
    throw CaseError(fmt::format("{}: run.blocks / run.mapping: {}", c.path, e.what()));
  }
}

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
  if (!o.mapping.empty()) c.run.mapping = o.mapping;
  if (!o.output.empty()) c.output = o.output;
  if (o.steps > 0) c.time.steps = o.steps;
  for (const std::string& w : validate_case(c)) spdlog::warn("{}: {}", c.path, w);
  // Every rank reads and checks the same case before MPI starts, so a bad one stops them all alike.
  plan_ranks(c, launch_size());
  return c;
}

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return fmt::format("{:.1f} {}", b, unit[u]);
}

int check(const Case& c, int ranks) {
  const Decomposition d = decompose(c.grid, c.run.nbx, c.run.nby);
  const RankMap m = plan_ranks(c, ranks);
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
  if (ranks > 1) {
    const auto sent = bytes_sent_per_iteration(d, m);
    fmt::print("{} ranks ({} mapping, {} x {}): {} cells of block face between ranks; bytes sent per iteration by "
               "rank: {}\n",
               ranks, c.run.mapping, m.px, m.py, cut_face_cells(d, m), fmt::join(sent, " "));
  }
  return 0;
}

int run_on(const Case& c, const Runtime& rt);

int run(const Case& c) {
  const auto out_dir = std::filesystem::absolute(c.output).parent_path();
  if (launch_rank() == 0 && !std::filesystem::is_directory(out_dir))
    throw CaseError(fmt::format("{}: output.file = {}: directory {} does not exist", c.path, c.output, out_dir.string()));
  Runtime rt(c.run.scheduler, -1, -1, launched_by_mpi());
  try {
    return run_on(c, rt);
  } catch (const std::exception& e) {
    // Shutting StarPU-MPI down would wait for the other ranks, which wait for this one's messages.
    if (Runtime::ranks() > 1) {
      spdlog::error("{}", e.what());
      abort_all_ranks(1);
    }
    throw;
  }
}

int run_on(const Case& c, const Runtime& rt) {
  const bool root = Runtime::rank() == 0;
  spdlog::info("{}: {} x {} x {} cells, {} steps, blocks {} x {}, scheduler {}, {} CPU + {} CUDA workers{}", c.path,
               c.grid.nx, c.grid.ny, c.grid.nz, c.time.steps, c.run.nbx, c.run.nby, rt.scheduler(), rt.cpu_workers(),
               rt.cuda_workers(),
               Runtime::distributed() ? fmt::format(" per rank, {} ranks ({} mapping)", Runtime::ranks(), c.run.mapping)
                                      : "");
  Simulation sim(c, c.time.steps);
  if (Runtime::distributed())
    spdlog::info("rank 0: {} blocks, sends {} per iteration to other ranks; {} station group(s) span ranks",
                 sim.local_blocks(), human_bytes(static_cast<double>(sim.stats().bytes_sent_per_iteration)),
                 sim.stats().station_groups_across_ranks);
  // A first window of 10 iterations carries the start-up (first transfers to GPUs, calibration);
  // the throughput reported is the steady one after it.
  const int warm = c.time.steps >= 40 ? 10 : 0;
  if (warm) sim.advance(warm, root);
  sim.advance(c.time.steps - warm, root);
  const std::vector<float> seismograms = sim.seismograms();  // every rank takes part
  if (!root) return 0;
  RunMetadata m;
  m.program_version = ONDES_VERSION;
  m.starpu_version = starpu_version();
  m.scheduler = rt.scheduler();
  m.nbx = c.run.nbx;
  m.nby = c.run.nby;
  m.cpu_workers = rt.cpu_workers();
  m.cuda_workers = rt.cuda_workers();
  m.steps = c.time.steps;
  m.ranks = Runtime::ranks();
  m.mapping = c.run.mapping;
  m.wall_seconds = sim.stats().wall_seconds;
  m.cell_updates_per_second = sim.stats().window_cell_updates_per_second;
  write_output(c.output, c, seismograms, m);
  spdlog::info("done in {:.2f} s: {:.4g} cell-updates/s, {} tasks per iteration; seismograms in {}", m.wall_seconds,
               m.cell_updates_per_second, sim.stats().tasks_per_iteration, c.output);
  if (warm) spdlog::info("(throughput after the first {} iterations; {:.4g} cell-updates/s over all)", warm,
                         sim.stats().cell_updates_per_second);
  return 0;
}

// Exit 0 when the runs agree: bitwise, or within the relative L2 tolerance if one is given.
int compare(const std::string& a, const std::string& b, double tolerance) {
  const Comparison c = compare_seismograms(a, b);
  fmt::print("{:<16} {:>14} {:>14}\n", "station", "relative L2", "max |a-b| m/s");
  for (const StationDifference& d : c.stations) fmt::print("{:<16} {:>14.3e} {:>14.3e}\n", d.name, d.relative_l2, d.max_abs);
  fmt::print("{} of {} samples bitwise identical; worst relative L2 {:.3e}\n", c.identical, c.samples,
             c.worst_relative_l2);
  return c.bitwise() || (tolerance > 0 && c.worst_relative_l2 <= tolerance) ? 0 : 1;
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
  run_cmd->add_option("--mapping", o.mapping, "blocks to MPI ranks: tiles or cyclic (overrides run.mapping)")
      ->check(CLI::IsMember({"tiles", "cyclic"}));

  CLI::App* check_cmd = app.add_subcommand("check", "validate a case and print its size, memory and stability");
  check_cmd->add_option("case", case_path, "case file (TOML)")->required();
  check_cmd->add_option("--blocks", o.blocks, "block layout NXxNY (overrides run.blocks)");
  check_cmd->add_option("--steps", o.steps, "number of time steps")->check(CLI::PositiveNumber);
  check_cmd->add_option("--mapping", o.mapping, "blocks to MPI ranks: tiles or cyclic")
      ->check(CLI::IsMember({"tiles", "cyclic"}));
  check_cmd->add_option("--ranks", o.ranks, "plan the communication of a run on this many MPI ranks")
      ->check(CLI::PositiveNumber);

  std::string compare_a, compare_b;
  double tolerance = 0;
  CLI::App* compare_cmd =
      app.add_subcommand("compare", "compare the seismograms of two runs; exit 0 when bitwise equal or within --tolerance");
  compare_cmd->add_option("a", compare_a, "first run's HDF5 file")->required()->check(CLI::ExistingFile);
  compare_cmd->add_option("b", compare_b, "second run's HDF5 file")->required()->check(CLI::ExistingFile);
  compare_cmd->add_option("--tolerance", tolerance, "largest relative L2 difference per station accepted")
      ->check(CLI::NonNegativeNumber);

  app.add_subcommand("info", "StarPU version, workers, scheduling policies and hwloc topology");

  CLI11_PARSE(app, argc, argv);
  // Under MPI, rank 0 tells the story; the others speak up only for warnings and errors.
  if (launch_size() > 1) {
    spdlog::set_pattern(fmt::format("[%H:%M:%S] rank {}: %^%l%$: %v", launch_rank()));
    if (launch_rank() != 0) spdlog::set_level(spdlog::level::warn);
  } else {
    spdlog::set_pattern("[%H:%M:%S] %^%l%$: %v");
  }
  try {
    if (app.got_subcommand("info")) {
      fmt::print("ondes3d {}\n{}", ONDES_VERSION, system_info());
      return 0;
    }
    if (app.got_subcommand("compare")) return compare(compare_a, compare_b, tolerance);
    const Case c = load(case_path, o);
    return app.got_subcommand("check") ? check(c, o.ranks ? o.ranks : launch_size()) : run(c);
  } catch (const CaseError& e) {
    spdlog::error("{}", e.what());
    return 2;  // raised before MPI starts, on every rank alike
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}
