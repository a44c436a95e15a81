#include "app/driver.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <starpu.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <tuple>

#include "app/info.hpp"
#include "core/case_error.hpp"
#include "engine/simulation.hpp"
#include "io/case/snapshot_plan.hpp"
#include "io/results/checkpoint.hpp"
#include "io/results/output_h5.hpp"
#include "io/results/partial_file.hpp"
#include "io/results/seismo_export.hpp"
#include "io/results/snapshot_file.hpp"
#include "perfmodels/models.hpp"
#include "physics/source.hpp"
#include "tasks/profile.hpp"
#include "tasks/stop_vote.hpp"

namespace ondes {

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return fmt::format("{:.1f} {}", b, unit[u]);
}

std::string default_checkpoint_path(const Case& c) {
  std::filesystem::path p(c.output);
  return p.replace_extension().string() + ".checkpoint.h5";
}

namespace {
double available_host_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return std::numeric_limits<double>::infinity();  // unknown: do not refuse
}
}  // namespace

void check_host_memory(const Case& c, const MemoryNeeds& needs, int ranks_on_node) {
  const double available = available_host_bytes();
  const double need = needs.per_rank * ranks_on_node;
  if (need > 0.95 * available)
    throw CaseError(fmt::format("{}: the run needs {} of memory ({} per rank x {} on this node) but {} is available "
                                "(MemAvailable); use a coarser grid, fewer steps or stations, or more nodes",
                                c.path, human_bytes(need), human_bytes(needs.per_rank), ranks_on_node,
                                human_bytes(available)));
}

namespace {

// The largest block must fit in each GPU's memory with its compute task's buffers; the blocks a
// GPU computes should fit together (else StarPU moves them in and out of it every step).
void check_gpu_memory(const Case& c, const MemoryNeeds& needs) {
  double smallest = 0;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    if (starpu_worker_get_type(static_cast<int>(w)) != STARPU_CUDA_WORKER) continue;
    const unsigned node = starpu_worker_get_memory_node(w);
    const starpu_ssize_t total = starpu_memory_get_total(node);
    if (total > 0 && needs.largest_block > 0.9 * total)
      throw CaseError(fmt::format("{}: the largest block needs {} but GPU memory node {} has {}; use more blocks "
                                  "(--blocks) so that each fits",
                                  c.path, human_bytes(needs.largest_block), node, human_bytes(double(total))));
    if (total > 0 && (smallest == 0 || double(total) < smallest)) smallest = double(total);
  }
  if (smallest == 0) return;
  spdlog::info("GPU memory: {} of arrays on the fullest GPU, of {}", human_bytes(needs.per_gpu), human_bytes(smallest));
  if (needs.per_gpu > 0.95 * smallest)
    spdlog::warn("the blocks of one GPU need {} of its {}: StarPU will move them in and out of it; more GPUs or "
                 "ranks, or a coarser grid", human_bytes(needs.per_gpu), human_bytes(smallest));
}

void on_signal(int sig) {
  Simulation::request_stop(sig);
  std::signal(sig, SIG_DFL);  // a second signal ends the process at once
}

// SIGINT and SIGTERM request a stop for the time of the run (over MPI too: the ranks agree on
// when to stop, run_windows).
struct SignalHandlers {
  SignalHandlers() {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
  }
  ~SignalHandlers() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
  }
  SignalHandlers(const SignalHandlers&) = delete;
  SignalHandlers& operator=(const SignalHandlers&) = delete;
};

void log_profile(const RunProfile& p) {
  std::string kinds;
  for (const char* k : {"cpu", "cuda"})
    if (std::any_of(p.workers.begin(), p.workers.end(), [&](const WorkerStats& w) { return w.kind == k; }))
      kinds += fmt::format(", {} workers idle {:.1f}% ({} compute tasks)", k, 100 * p.idle_fraction(k),
                           p.compute_tasks(k));
  spdlog::info("profile: {} tasks{}, {} moved between memory nodes", p.tasks(), kinds, human_bytes(p.bytes_transferred()));
}

void log_start(const Case& c, const RunPlan& plan, const Runtime& rt) {
  const Decomposition& d = plan.decomposition;
  spdlog::info("{}: {} x {} x {} cells, {} steps, blocks {} x {}{}, scheduler {}, {} CPU + {} CUDA workers{}", c.path,
               c.grid.nx, c.grid.ny, c.grid.nz, c.time.steps, d.nbx, d.nby,
               c.run.edge_strip ? fmt::format(" with edge strips of {} cells", c.run.edge_strip) : "", rt.scheduler(),
               rt.cpu_workers(),
               rt.cuda_workers(),
               Runtime::distributed() ? fmt::format(" per rank, {} ranks ({} mapping)", Runtime::ranks(), name_of(c.run.mapping))
                                      : "");
  for (const std::string& line : describe_plan(c, plan)) spdlog::info("plan: {}", line);
  if (const double m0 = seismic_moment(c.sources); m0 > 0)  // as Ondes3D prints its Mo and Mw
    spdlog::info("{} source(s): M0 = {:.4g} N m, Mw = {:.2f}", c.sources.size(), m0, moment_magnitude(m0));
}

// Wall time and steps of the first window (start-up: first transfers to GPUs, calibration).
struct WarmUp {
  double wall = 0;
  int steps = 0;
};

// Why a run stopped before its last step: a signal, a watchdog alarm, or neither.
struct EarlyStop {
  int signal = 0;
  std::optional<WatchdogAlarm> alarm;
  bool any() const { return signal != 0 || alarm.has_value(); }
};

// This rank's view of stopping, as a vote.
StopVote local_vote(const Simulation& sim) {
  StopVote v;
  v.signal = Simulation::stop_signal();
  if (const auto a = sim.alarm()) {
    v.alarm_iteration = a->iteration;
    v.alarm_block = a->block;
    v.alarm_peak = a->peak;
  }
  return v;
}

// Over MPI the ranks vote at the end of each window; rank 0 sizes the windows to about
// kVoteSeconds of computing, so that a stop request is answered within seconds whatever the grid,
// and the drain at each vote costs little.
constexpr double kVoteSeconds = 2.0;
constexpr int kMaxVoteWindow = 200;
int next_vote_window(const RunStats& s) {
  if (s.steps <= 0 || s.wall_seconds <= 0) return 10;
  const double per_step = s.wall_seconds / s.steps;
  return std::clamp(static_cast<int>(kVoteSeconds / per_step), 1, kMaxVoteWindow);
}

// The time loop, in windows ending at the warm-up point, at each checkpoint and, over MPI, at each
// vote. A first window of 10 iterations carries the start-up; the throughput reported is the
// steady one after it. Returns why it stopped early (the same on every rank), if it did.
EarlyStop run_windows(Simulation& sim, const Case& c, const RunControl& rc, const std::string& checkpoint,
                      WarmUp& warm) {
  const bool vote = Runtime::distributed();
  const int first = sim.iteration();
  const int warm_end = c.time.steps - first >= 40 ? first + 10 : first;
  int vote_window = 10;
  while (sim.iteration() < c.time.steps) {
    int target = c.time.steps;
    if (sim.iteration() < warm_end) target = warm_end;
    if (rc.checkpoint_every > 0) target = std::min(target, (sim.iteration() / rc.checkpoint_every + 1) * rc.checkpoint_every);
    if (vote) target = std::min(target, sim.iteration() + vote_window);
    const int want = target - sim.iteration();
    const int done = sim.advance(want, Runtime::rank() == 0 && !simulated_runtime());
    if (sim.iteration() == warm_end) warm = {sim.stats().wall_seconds, sim.stats().steps};
    if (vote) {
      StopVote mine = local_vote(sim);
      mine.next_window = next_vote_window(sim.stats());
      const StopVote verdict = agree_on_stop(Runtime::rank(), Runtime::ranks(), mine);
      vote_window = verdict.next_window;
      if (verdict.stop()) {
        EarlyStop s{verdict.signal, std::nullopt};
        if (verdict.alarm_iteration >= 0)
          s.alarm = WatchdogAlarm{verdict.alarm_iteration, verdict.alarm_block, verdict.alarm_peak};
        return s;
      }
    } else if (done < want) {
      return EarlyStop{Simulation::stop_signal(), sim.alarm()};  // watchdog or signal
    }
    // The last iteration too, where N divides it: a later run goes on from there (--steps larger).
    if (rc.checkpoint_every > 0 && sim.iteration() % rc.checkpoint_every == 0) {
      sim.save_checkpoint(checkpoint);
      spdlog::info("checkpoint after iteration {} in {}", sim.iteration(), checkpoint);
    }
  }
  return {};
}

// Why the run stopped early: the watchdog's alarm, a signal, or nothing (empty).
std::string stop_reason(const Case& c, const std::optional<WatchdogAlarm>& alarm, int sig) {
  if (alarm)
    return fmt::format("watchdog: velocity {:.6g} m/s in block {} after iteration {} (limit {:.6g} m/s)", alarm->peak,
                       alarm->block, alarm->iteration, c.run.watchdog_max_velocity);
  return sig ? fmt::format("signal {}", sig) : "";
}

RunMetadata metadata(const Case& c, const RunControl& rc, const Runtime& rt, const Simulation& sim, const WarmUp& warm,
                     const std::optional<WatchdogAlarm>& alarm, int sig) {
  RunMetadata m;
  m.program_version = ONDES_VERSION;
  m.starpu_version = starpu_version();
  m.scheduler = rt.scheduler();
  const Decomposition& d = sim.plan().decomposition;  // with edge strips, more blocks than run.blocks
  m.nbx = d.nbx;
  m.nby = d.nby;
  m.cpu_workers = rt.cpu_workers();
  m.cuda_workers = rt.cuda_workers();
  m.steps = c.time.steps;
  m.ranks = Runtime::ranks();
  m.mapping = name_of(c.run.mapping);
  m.wall_seconds = sim.stats().wall_seconds;
  const int steady_steps = sim.stats().steps - warm.steps;
  const double cells = double(c.grid.nx) * c.grid.ny * c.grid.nz;
  m.cell_updates_per_second = steady_steps > 0 ? cells * steady_steps / (sim.stats().wall_seconds - warm.wall)
                                               : sim.stats().cell_updates_per_second;
  m.steps_completed = alarm ? alarm->iteration + 1 : sim.iteration();
  m.restarted_from = rc.restart;
  m.tasks_per_iteration = sim.stats().tasks_per_iteration;
  m.stop_reason = stop_reason(c, alarm, sig);
  m.complete = m.steps_completed == c.time.steps && m.stop_reason.empty();
  m.plan = describe_plan(c, sim.plan());
  return m;
}

// The output file and the exports beside it, the trace and the summary (rank 0).
void write_results(const Case& c, const RunControl& rc, std::vector<float>& seismograms, const RunMetadata& m) {
  // Samples not computed (or computed after the watchdog's alarm) are NaN, not zeros.
  if (!m.complete)
    for (size_t s = 0; s < c.stations.size(); ++s)
      for (int comp = 0; comp < 3; ++comp)
        for (int t = m.steps_completed; t < c.time.steps; ++t)
          seismograms[(s * 3 + comp) * c.time.steps + t] = std::numeric_limits<float>::quiet_NaN();
  write_output(c.output, c, seismograms, m);
  if (c.exports.asdf) {
    write_asdf(asdf_path(c), c, seismograms, c.time.steps);
    spdlog::info("ASDF seismograms (StationXML, QuakeML) in {}", asdf_path(c));
  }
  if (c.exports.sac) {
    write_sac(sac_dir(c), c, seismograms, c.time.steps);
    spdlog::info("SAC files in {}/", sac_dir(c));
  }
  if (c.exports.ondes3d_text) {
    write_ondes3d_text(ondes3d_text_dir(c), c, seismograms, c.time.steps);
    spdlog::info("Ondes3D station files (obs<N>.dat) in {}/", ondes3d_text_dir(c));
  }
  log_profile(m.profile);
  if (!rc.trace.empty()) profile::write_trace(rc.trace);
  if (!rc.summary.empty()) write_summary_csv(rc.summary, c, m);
}

// The last words of a run and its exit status.
int report(const Case& c, const RunMetadata& m, const Simulation& sim, const WarmUp& warm, bool alarm, int sig) {
  if (alarm) {
    spdlog::error("{}; seismograms up to iteration {} in {} (flagged incomplete)", m.stop_reason, m.steps_completed,
                  c.output);
    return kExitWatchdog;
  }
  if (sig) {
    spdlog::warn("seismograms up to iteration {} in {} (flagged incomplete)", m.steps_completed, c.output);
    return exit_status_of_signal(sig);
  }
  spdlog::info("done in {:.2f} s: {:.4g} cell-updates/s, {:.4g} tasks per iteration; seismograms in {}", m.wall_seconds,
               m.cell_updates_per_second, m.tasks_per_iteration, c.output);
  if (warm.steps > 0)
    spdlog::info("(throughput after the first {} iterations; {:.4g} cell-updates/s over all)", warm.steps,
                 sim.stats().cell_updates_per_second);
  return 0;
}

int run_on(const Case& c, const RunControl& rc, const Runtime& rt) {
  const bool root = Runtime::rank() == 0;
  const bool one_process = Runtime::ranks() == 1;
  const RunPlan plan = plan_run(c, Simulation::current_launch());
  check_gpu_memory(c, plan.memory);
  log_start(c, plan, rt);
  Simulation sim(c, plan, c.time.steps);
  if (Runtime::distributed())
    spdlog::info("rank 0: {} blocks, sends {} per iteration to other ranks; {} station group(s) span ranks",
                 sim.local_blocks(), human_bytes(static_cast<double>(sim.stats().bytes_sent_per_iteration)),
                 sim.stats().station_groups_across_ranks);
  if (!rc.restart.empty()) {
    sim.restore_checkpoint(rc.restart);
    spdlog::info("restarted from {} after iteration {}", rc.restart, sim.iteration());
    if (sim.iteration() == c.time.steps && root)
      spdlog::warn("{} is at the case's last step ({}): nothing left to compute (--steps N to go further)", rc.restart,
                   c.time.steps);
  }
  const std::string checkpoint = rc.checkpoint.empty() ? default_checkpoint_path(c) : rc.checkpoint;
  SignalHandlers signals;
  profile::start(!rc.trace.empty() && root);
  WarmUp warm;
  const EarlyStop stop = run_windows(sim, c, rc, checkpoint, warm);
  sim.finish_snapshots();
  if (c.snapshots.every > 0 && root)
    spdlog::info("snapshots in {} (open {} in ParaView)", snapshot_path(c),
                 std::filesystem::path(snapshot_path(c)).replace_extension(".xdmf").string());
  RunProfile prof = profile::collect();
  const auto& alarm = stop.alarm;
  const int sig = stop.signal;
  std::vector<float> seismograms = sim.seismograms();  // every rank takes part
  if (sig && !alarm) {
    sim.save_checkpoint(checkpoint);  // every rank takes part
    if (root)
      spdlog::warn("stopped by signal {} after iteration {}; checkpoint in {} (continue with --restart {})", sig,
                   sim.iteration(), checkpoint, checkpoint);
  }
  int status = alarm ? kExitWatchdog : sig ? exit_status_of_signal(sig) : 0;
  if (root) {
    RunMetadata m = metadata(c, rc, rt, sim, warm, alarm, sig);
    m.profile = std::move(prof);
    write_results(c, rc, seismograms, m);
    status = report(c, m, sim, warm, alarm.has_value(), sig);
  }
  if (stop.any() && !one_process && !root)
    spdlog::warn("rank {}: stopped with every rank after iteration {} ({})", Runtime::rank(), sim.iteration(),
                 stop_reason(c, alarm, sig));
  wait_for_all_ranks();
#ifdef ONDES_SMPI
  // Simulated ranks (SMPI build): StarPU 1.3.10 does not come back from starpu_mpi_shutdown under
  // SMPI (its simulated CUDA workers poll on, a core at 98%); every rank has passed the barrier and
  // rank 0 has written the results, so the simulation ends here.
  spdlog::default_logger()->flush();
  std::fflush(nullptr);
  std::_Exit(status);
#endif
  return status;
}

}  // namespace

void check_result_files(const Case& c, const RunControl& rc) {
  check_result_path(fmt::format("{}: output.file = {}", c.path, c.output), c.output, c.path);
  check_snapshot_outputs(c);
  const std::pair<const char*, std::string> named[] = {
      {"--checkpoint", rc.checkpoint}, {"--trace", rc.trace}, {"--summary", rc.summary}};
  for (const auto& [flag, file] : named)
    if (!file.empty()) check_result_path(fmt::format("{} {}", flag, file), file, c.path);
}

int run_case(const Case& c, const RunControl& rc) {
  // The files the run will write, refused before anything runs where they cannot be (a checkpoint's
  // folder found missing at the first checkpoint took the run and its output with it).
  if (launch_rank() == 0) check_result_files(c, rc);
  if (!rc.restart.empty()) CheckpointReader(rc.restart, c);  // a bad checkpoint stops us before any allocation
  Runtime rt(c.run.scheduler, -1, -1, launched_by_mpi());
  if ((rc.sim_task_gap_us > 0 || rc.sim_launch_latency_us > 0) && !simulated_runtime())
    spdlog::warn("--sim-task-gap and --sim-launch-latency apply to simulated runs only (a SimGrid build): ignored");
  if (simulated_runtime()) {
    // SimGrid: tasks take their models' times and compute nothing (the plan turns the watchdog
    // and parked workers off: plan/run_plan.cpp).
    set_simulated_overheads({rc.sim_task_gap_us * 1e-6, rc.sim_launch_latency_us * 1e-6});
    spdlog::warn("simulated run (StarPU with SimGrid) of the machine {}: times from its calibrated performance "
                 "models and platform; the seismograms are not computed",
                 simulated_machine());
  }
  try {
    return run_on(c, rc, rt);
  } catch (const std::exception& e) {
    // Shutting StarPU-MPI down would wait for the other ranks, which wait for this one's messages.
    if (Runtime::ranks() > 1) {
      spdlog::error("{}", e.what());
      abort_all_ranks(1);
    }
    throw;
  }
}

}  // namespace ondes
