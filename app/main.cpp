// ondes3d: elastic wave propagation (Ondes3D scheme) on the StarPU task runtime.
//   ondes3d run CASE.toml [--blocks NXxNY] [--sched NAME] [--mapping tiles|cyclic] [--steps N] [--output FILE.h5]
//               [--checkpoint-every N] [--checkpoint FILE] [--restart FILE] [--watchdog-every N]
//               [--trace TASKS.csv] [--summary RUN.csv] [--window N]
//   mpirun -np R ondes3d run ...   (blocks spread over R ranks through StarPU-MPI)
//   ondes3d check CASE.toml [--blocks NXxNY]
//   ondes3d compare A B [--tolerance REL]       (A, B: output files or folders of Ondes3D obs<N>.dat)
//   ondes3d calibrate CASE.toml --output MACHINE.toml [--steps N] [--ncpu N]
//   ondes3d predict CASE.toml --machine MACHINE.toml [--blocks NXxNY] [--ncpu N] [--ncuda N] [--ranks R] [--csv]
//   ondes3d convert CASE.prm --output CASE.toml   (an Ondes3D parameter file as a TOML case)
//   ondes3d info
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <optional>
#include <regex>

#include "app/calibrate.hpp"
#include "app/cli_checks.hpp"
#include "app/commands.hpp"
#include "app/driver.hpp"
#include "app/info.hpp"
#include "app/race.hpp"
#include "core/nearest_name.hpp"
#include "engine/runtime.hpp"
#include "engine/simulation.hpp"
#include "io/case/case_reader.hpp"
#include "io/case/snapshot_plan.hpp"
#include "io/case/tuning.hpp"
#include "io/ondes3d/ondes3d_prm.hpp"
#include "io/results/compare.hpp"
#include "io/results/output_h5.hpp"
#include "io/results/partial_file.hpp"
#include "partition/mapping.hpp"
#include "perfmodels/cost_model.hpp"
#include "physics/attenuation.hpp"
#include "physics/medium.hpp"
#include "physics/model3d.hpp"
#include "physics/source.hpp"
#include "physics/stability.hpp"

using namespace ondes;

namespace {

struct Overrides {
  std::string blocks, scheduler, output, mapping;
  int steps = 0;
  int watchdog_every = -1;
  int snapshot_every = 0;
  std::string snapshot_quantity;
  int window = 0;
  std::string small_tasks;
  std::string cpu_compute;
  int ranks = 0;  // check: ranks to plan for (0: as launched)
  int gpus = 0;   // check: GPUs of each process to plan for
  int edge_strip = -1;
  std::string balance;
  std::vector<std::string> tune;  // --tune KEY=VALUE, over the case's [tuning]
};

// Reads the case, applies command-line overrides, validates; warnings go to the log.
Case load(const std::string& path, const Overrides& o) {
  Case c = read_case(path);
  if (!o.blocks.empty()) {
    std::smatch m;
    if (!std::regex_match(o.blocks, m, std::regex(R"((\d{1,6})x(\d{1,6}))")))
      throw CaseError(fmt::format("--blocks {}: expected NXxNY, e.g. 2x3", o.blocks));
    c.run.set_blocks(std::stoi(m[1]), std::stoi(m[2]));
    if (c.run.nbx < 1 || c.run.nby < 1)
      throw CaseError(fmt::format("--blocks {}: both counts must be at least 1", o.blocks));
  }
  if (o.edge_strip >= 0) c.run.edge_strip = o.edge_strip;
  if (!o.balance.empty()) parse_choice(o.balance, c.run.balance);  // CLI checks the name
  if (!o.scheduler.empty()) c.run.scheduler = o.scheduler;
  if (!o.mapping.empty()) parse_choice(o.mapping, c.run.mapping);  // CLI checks the name
  if (!o.output.empty())  // Ondes3D's files beside it
    c.output = o.output, c.exports.ondes3d_dir.clear(), c.snapshots.ondes3d.dir.clear();
  if (o.steps > 0) c.time.steps = o.steps;
  if (o.watchdog_every >= 0) c.run.watchdog_every = o.watchdog_every;
  if (o.snapshot_every > 0 || !o.snapshot_quantity.empty()) {
    if (o.snapshot_every > 0) c.snapshots.every = o.snapshot_every;
    if (c.snapshots.every <= 0) throw CaseError("--snapshot-quantity: the case has no [snapshots]; give --snapshot-every");
    if (c.snapshots.requested.empty() && !c.snapshots.ondes3d.on) c.snapshots.requested.push_back({2, 0, "z=0"});
    if (!o.snapshot_quantity.empty()) set_snapshot_quantity(c.snapshots, o.snapshot_quantity, [](const std::string&) {});
    resolve_snapshot_planes(c);
  }
  if (o.window > 0) c.run.window = o.window;
  if (!o.small_tasks.empty()) parse_choice(o.small_tasks, c.run.small_tasks);  // CLI checks the name
  if (!o.cpu_compute.empty()) parse_choice(o.cpu_compute, c.run.cpu_compute);  // CLI checks the name
  for (const std::string& t : o.tune) apply_tuning(c.tuning, t, "--tune");
  if (!c.run.scheduler.empty()) {
    const auto names = scheduler_names();
    if (std::find(names.begin(), names.end(), c.run.scheduler) == names.end())
      throw CaseError(fmt::format("{}: run.scheduler (or --sched): unknown scheduler '{}'; StarPU offers: {}", c.path,
                                  c.run.scheduler, fmt::join(names, ", ")));
  }
  for (const std::string& w : validate_case(c)) spdlog::warn("{}: {}", c.path, w);
  // Every rank reads and checks the same case before MPI starts, so a bad one stops them all alike.
  // A simulated run holds no arrays (partition/block_data.cpp: folded memory).
  if (!simulated_runtime()) check_host_memory(c, plan_run(c, Launch{launch_size()}).memory, launch_local_size());
  return c;
}

constexpr long kMaxSteps = 100000000;  // as time.steps in a case

// Everything the command line can set.
struct Options {
  std::string case_path;
  Overrides o;
  RunControl rc;
  std::string compare_a, compare_b;
  double tolerance = 0;
  std::string machine;
  std::string convert_output;
  int calib_steps = 20;
  std::vector<std::string> race_cases;
  int race_steps = 20, race_rounds = 5;
  WorkerConfig workers{-1, 0, 1};
  bool csv = false;
};

// --edge-strip and --balance, for the commands that cut the grid into blocks.
void add_edge_strip(CLI::App& cmd, Overrides& o) {
  cmd.add_option("--edge-strip", o.edge_strip,
                 "cells of the block each side of every cut between blocks, computed and sent first (overrides "
                 "run.edge_strip)")
      ->check(CLI::Range(0, 1000000));
  cmd.add_option("--balance", o.balance,
                 "pml: cuts between blocks placed so that every block has about the same work, PML cells counted "
                 "at their cost (the default); even: blocks of equal size (overrides run.balance)")
      ->check(CLI::IsMember({"pml", "even"}));
}

// The options that shape a run's plan (plan/run_plan.hpp), for `run` and for `check`, which
// prints the plan `run` would execute with the same options.
void add_plan_options(CLI::App& cmd, Overrides& o) {
  cmd.add_option("--blocks", o.blocks, "block layout NXxNY (overrides run.blocks)");
  add_edge_strip(cmd, o);
  cmd.add_option("--sched", o.scheduler, "StarPU scheduling policy (overrides run.scheduler)");
  cmd.add_option("--mapping", o.mapping, "blocks to MPI ranks: tiles or cyclic (overrides run.mapping)")
      ->check(CLI::IsMember({"tiles", "cyclic"}));
  cmd.add_option("--watchdog-every", o.watchdog_every,
                 "check the velocity for NaN or runaway every N iterations (0: never; overrides run.watchdog_every)")
      ->check(integer_in(0, 1000000));
  cmd.add_option("--small-tasks", o.small_tasks,
                 "auto: boundary saves, sources and recording stay on the GPUs when there are any; any: the "
                 "scheduler chooses (overrides run.small_tasks)")
      ->check(CLI::IsMember({"auto", "any"}));
  cmd.add_option("--cpu-compute", o.cpu_compute,
                 "auto: beside GPUs, CPU workers compute only blocks they finish within the GPUs' time per "
                 "iteration; any: the scheduler chooses (overrides run.cpu_compute)")
      ->check(CLI::IsMember({"auto", "any"}));
  cmd.add_option("--tune", o.tune,
                 "KEY=VALUE of the execution policy (overrides [tuning]; repeatable): march, edge_saving, "
                 "gpu_affinity, park_cpus, lone_block_step, stress_station_slots, chain_steps, chain_side_stream (docs/design.md)");
}

void add_run(CLI::App& app, Options& opt) {
  Overrides& o = opt.o;
  RunControl& rc = opt.rc;
  CLI::App* run_cmd = app.add_subcommand("run", "run a case and write its seismograms to HDF5");
  run_cmd->add_option("case", opt.case_path, "case file: a TOML case, or an Ondes3D parameter file (.prm, either dialect)")->required();
  add_plan_options(*run_cmd, o);
  run_cmd->add_option("--steps", o.steps, "number of time steps (overrides time.steps)")->check(integer_in(1, kMaxSteps));
  run_cmd->add_option("--output", o.output, "HDF5 output file (overrides output.file)");
  run_cmd->add_option("--checkpoint-every", rc.checkpoint_every, "write a checkpoint every N iterations (the last too, where N divides it)")
      ->check(integer_in(0, kMaxSteps));
  run_cmd->add_option("--checkpoint", rc.checkpoint, "checkpoint file (default: the output's name with .checkpoint.h5 for its extension)");
  run_cmd->add_option("--restart", rc.restart, "continue from this checkpoint (any block layout, scheduler or rank count; to any step from the checkpoint's on: --steps beyond the first run's end goes on further)");
  run_cmd->add_option("--snapshot-every", o.snapshot_every,
                      "a snapshot frame every N steps (overrides snapshots.every; a .prm's: Ondes3D's SURFACE_STEP, 1000)")
      ->check(integer_in(1, kMaxSteps));
  run_cmd->add_option("--snapshot-quantity", o.snapshot_quantity, "the snapshots' velocity, displacement or both "
                      "(overrides snapshots.quantity)")->check(CLI::IsMember({"velocity", "displacement", "both"}));
  run_cmd->add_option("--window", o.window,
                      "iterations of tasks submitted ahead (default 16; overrides run.window): what a "
                      "scheduler sees at once")
      ->check(integer_in(1, 1000));
  run_cmd->add_option("--sim-task-gap", rc.sim_task_gap_us,
                      "simulated runs (SimGrid build) only: microseconds a task costs besides its kernels on the "
                      "machine simulated, added to every task (docs/lab.md)")
      ->check(number_at_least(0));
  run_cmd->add_option("--sim-launch-latency", rc.sim_launch_latency_us,
                      "simulated runs (SimGrid build) only: microseconds a GPU worker takes from a task to its "
                      "launch, hidden where tasks queue on the GPU, paid where one waits for another GPU's (docs/lab.md)")
      ->check(number_at_least(0));
  run_cmd->add_option("--trace", rc.trace,
                      "write every task's worker, codelet, ready, start and end times and the policy's push and pop "
                      "times to this CSV (Gantt charts; docs/lab.md)");
  run_cmd->add_option("--summary", rc.summary, "write the run as one CSV row (tools/sweep.py reads it)");
}

void add_check_and_compare(CLI::App& app, Options& opt) {
  CLI::App* check_cmd = app.add_subcommand("check", "validate a case and print its size, memory and stability");
  check_cmd->add_option("case", opt.case_path, "case file: a TOML case, or an Ondes3D parameter file (.prm, either dialect)")->required();
  add_plan_options(*check_cmd, opt.o);
  check_cmd->add_option("--steps", opt.o.steps, "number of time steps")->check(integer_in(1, kMaxSteps));
  check_cmd->add_option("--ranks", opt.o.ranks, "plan the communication of a run on this many MPI ranks")
      ->check(integer_in(1, 1000000));
  check_cmd->add_option("--gpus", opt.o.gpus, "plan a run whose processes drive this many GPUs each: the memory per GPU")
      ->check(integer_in(1, 1024));
  check_cmd->add_option("--restart", opt.rc.restart,
                        "a checkpoint to continue from: whether `run --restart` takes it for this case, and the "
                        "steps left");

  CLI::App* compare_cmd =
      app.add_subcommand("compare", "compare the seismograms of two runs; exit 0 when bitwise equal or within --tolerance");
  compare_cmd->add_option("a", opt.compare_a, "first run: its HDF5 file, or a folder of Ondes3D's obs<N>.dat")
      ->required()->check(CLI::ExistingPath);
  compare_cmd->add_option("b", opt.compare_b, "second run: its HDF5 file, or a folder of Ondes3D's obs<N>.dat")
      ->required()->check(CLI::ExistingPath);
  compare_cmd->add_option("--tolerance", opt.tolerance, "largest relative L2 difference per station accepted")
      ->check(number_at_least(0));
}

void add_race(CLI::App& app, Options& opt) {
  CLI::App* race_cmd = app.add_subcommand(
      "race", "measure the speeds of several cases in one process, in turn, round after round (app/race.hpp)");
  race_cmd->add_option("cases", opt.race_cases, "case files; the first is the yardstick")->required()->expected(2, 64);
  add_plan_options(*race_cmd, opt.o);
  race_cmd->add_option("--steps", opt.race_steps, "iterations of each case a round")->check(integer_in(1, 100000));
  race_cmd->add_option("--rounds", opt.race_rounds, "rounds measured, after one of warm-up")->check(integer_in(1, 1000));
}

void add_convert(CLI::App& app, Options& opt) {
  CLI::App* convert_cmd =
      app.add_subcommand("convert", "write an Ondes3D parameter file (either dialect) as the equivalent TOML case");
  convert_cmd->add_option("prm", opt.case_path, "Ondes3D parameter file")->required()->check(CLI::ExistingFile);
  convert_cmd->add_option("-o,--output", opt.convert_output, "TOML case to write")->required();
}

void add_lab(CLI::App& app, Options& opt) {
  CLI::App* calibrate_cmd = app.add_subcommand(
      "calibrate", "measure this machine's figures for the analytic cost model (CPU, then CUDA workers alone)");
  calibrate_cmd->add_option("case", opt.case_path, "case file (TOML) to measure with")->required();
  calibrate_cmd->add_option("--output", opt.machine, "machine model to write (TOML)")->required();
  calibrate_cmd->add_option("--steps", opt.calib_steps, "iterations measured per layout (after 10 of warm-up)")
      ->check(integer_in(1, 1000000));
  calibrate_cmd->add_option("--ncpu", opt.workers.ncpu, "CPU workers (default: StarPU's)")->check(integer_in(0, 4096));

  CLI::App* predict_cmd = app.add_subcommand("predict", "predict the time per iteration from the analytic cost model");
  predict_cmd->add_option("case", opt.case_path, "case file (TOML)")->required();
  predict_cmd->add_option("--machine", opt.machine, "machine model from ondes3d calibrate")->required()->check(CLI::ExistingFile);
  predict_cmd->add_option("--blocks", opt.o.blocks, "block layout NXxNY (overrides run.blocks)");
  add_edge_strip(*predict_cmd, opt.o);
  predict_cmd->add_option("--mapping", opt.o.mapping, "blocks to MPI ranks: tiles or cyclic")
      ->check(CLI::IsMember({"tiles", "cyclic"}));
  predict_cmd->add_option("--ncpu", opt.workers.ncpu, "CPU workers per rank (default: the calibration's)")
      ->check(integer_in(0, 4096));
  predict_cmd->add_option("--ncuda", opt.workers.ncuda, "CUDA workers per rank")->check(integer_in(0, 64));
  predict_cmd->add_option("--ranks", opt.workers.ranks, "MPI ranks")->check(integer_in(1, 1000000));
  predict_cmd->add_flag("--csv", opt.csv, "print one CSV row with its header");
}

// Under MPI, rank 0 tells the story; the others speak up only for warnings and errors.
void set_up_logging() {
  if (launch_size() > 1) {
    spdlog::set_pattern(fmt::format("[%H:%M:%S] rank {}: %^%l%$: %v", launch_rank()));
    if (launch_rank() != 0) spdlog::set_level(spdlog::level::warn);
  } else {
    spdlog::set_pattern("[%H:%M:%S] %^%l%$: %v");
  }
}

int dispatch(const CLI::App& app, Options& opt) {
  if (app.got_subcommand("info")) {
    fmt::print("ondes3d {}\n{}", ONDES_VERSION, system_info());
    return 0;
  }
  if (app.got_subcommand("compare")) return compare_command(opt.compare_a, opt.compare_b, opt.tolerance);
  if (app.got_subcommand("convert")) return convert_command(opt.case_path, opt.convert_output);
  if (app.got_subcommand("race")) {
    std::vector<Case> cases;
    for (const std::string& path : opt.race_cases) cases.push_back(load(path, opt.o));
    return race_command(cases, opt.race_steps, opt.race_rounds);
  }
  const Case c = load(opt.case_path, opt.o);
  if (app.got_subcommand("calibrate")) {
    check_result_path(fmt::format("calibrate --output {}", opt.machine), opt.machine);
    write_machine(opt.machine, calibrate_machine(c, opt.calib_steps, opt.workers.ncpu));
    spdlog::info("machine model in {}", opt.machine);
    return 0;
  }
  if (app.got_subcommand("predict")) {
    if (opt.workers.ncpu < 0) opt.workers.ncpu = read_machine(opt.machine).cpu_workers;
    if (opt.workers.ncpu + opt.workers.ncuda == 0) throw CaseError("predict: --ncpu and --ncuda are both 0");
    return predict_command(c, opt.workers, opt.machine, opt.csv);
  }
  if (app.got_subcommand("check"))
    return check_command(c, opt.o.ranks ? opt.o.ranks : launch_size(), opt.o.gpus, opt.rc.restart);
  return run_case(c, opt.rc);
}

}  // namespace

namespace {

// What a command line CLI11 would refuse with a generic line gets named here: an unknown command or
// option, with the nearest known one; empty when the line looks right ("help" prints the help).
std::string misspelling(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return "";
  std::vector<std::string> commands;
  for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; })) commands.push_back(c->get_name());
  const std::string first = argv[1];
  auto near = [](const std::string& name, const std::vector<std::string>& known) {
    const std::string n = nearest_name(name, known);
    return n.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", n);
  };
  if (first[0] != '-') {
    if (std::find(commands.begin(), commands.end(), first) != commands.end()) {
      const CLI::App* cmd = app.get_subcommand(first);
      std::vector<std::string> flags;
      for (const CLI::App* a : {cmd, &app})  // the program's own (--verbose) fall through to it
        for (const CLI::Option* o : a->get_options())
          for (const std::string& l : o->get_lnames()) flags.push_back("--" + l);
      for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i], flag = arg.substr(0, arg.find('='));
        if (flag.rfind("--", 0) == 0 && std::find(flags.begin(), flags.end(), flag) == flags.end())
          return fmt::format("unknown option '{}' of '{}'{}: ondes3d {} --help lists them", flag, first,
                             near(flag, flags), first);
      }
      return "";
    }
    return fmt::format("unknown command '{}'{}: the commands are {}", first, near(first, commands),
                       fmt::join(commands, ", "));
  }
  static const std::vector<std::string> top{"--help", "-h", "--version", "-v", "--verbose"};
  if (std::find(top.begin(), top.end(), first) == top.end())
    return fmt::format("unknown option '{}'{}: a command comes first (ondes3d run CASE, ondes3d check CASE, ...)",
                       first, near(first, top));
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ondes3d: 3D elastic wave propagation (4th-order staggered grid, C-PML) on StarPU.\n"
               "A case is a TOML file or an Ondes3D parameter file (.prm, either dialect)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ondes3d ") + ONDES_VERSION);
  // Before the commands: they inherit it, so that `-v` may follow the command's own arguments.
  app.fallthrough();
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose,
               "StarPU's own messages too (its performance models' calibration warnings, ...); else silent "
               "unless STARPU_SILENT says otherwise");
  Options opt;
  add_run(app, opt);
  add_check_and_compare(app, opt);
  add_lab(app, opt);
  add_convert(app, opt);
  add_race(app, opt);
  app.add_subcommand("info", "StarPU version, workers, scheduling policies and hwloc topology");
  if (argc == 2 && std::string(argv[1]) == "help") {
    std::cout << app.help();
    return 0;
  }
  if (const std::string wrong = misspelling(app, argc, argv); !wrong.empty()) {
    std::fprintf(stderr, "error: %s\n", wrong.c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // Like a bad case value: one line, exit status 2.
    std::fprintf(stderr, "error: %s (ondes3d --help lists the commands and options)\n", e.what());
    return 2;
  }
  set_up_logging();
  // StarPU's chatter (`Too big deviation for model ...` as its models learn) is for who asks for it.
  if (!verbose) setenv("STARPU_SILENT", "1", 0);
  try {
    return dispatch(app, opt);
  } catch (const CaseError& e) {
    spdlog::error("{}", e.what());
    return 2;  // raised before MPI starts, on every rank alike
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}
