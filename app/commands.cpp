// The bodies of ondes3d's commands other than `run` (app/driver.cpp): check, predict, compare,
// convert. app/main.cpp parses the command line and calls them.
#include "app/commands.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "app/driver.hpp"
#include "engine/runtime.hpp"
#include "engine/simulation.hpp"
#include "io/case/case_reader.hpp"
#include "io/ondes3d/ondes3d_prm.hpp"
#include "io/results/checkpoint.hpp"
#include "io/results/compare.hpp"
#include "io/results/output_h5.hpp"
#include "io/results/partial_file.hpp"
#include "io/results/snapshot_file.hpp"
#include "perfmodels/cost_model.hpp"
#include "physics/attenuation.hpp"
#include "physics/medium.hpp"
#include "physics/model3d.hpp"
#include "physics/source.hpp"
#include "physics/stability.hpp"

namespace ondes {

namespace {

// Q(f) of the relaxation mechanisms fitted to each layer's qp and qs, at 7 frequencies over the band.
void print_attenuation(const Medium& m) {
  const double f0 = m.q_band[0], f1 = m.q_band[1];
  if (const KristekMoczo& k = m.kristek_moczo; k.on()) {
    fmt::print("attenuation: Ondes3D's Kristek and Moczo (wmin {} rad/s, wmax {} rad/s: {} pulsations over [{:.4g}, {:.4g}] "
               "Hz, each cell one by its indices' parities; {} memory variables a cell and its six neighbours' read, "
               "in two passes of their own beside the elastic update)\n",
               k.w_min, k.w_max, kKmPulsations, f0, f1, kStressComponents);
    for (size_t l = 0; l < m.layers.size(); ++l)
      fmt::print("  layer {}: Qp {}, Qs {} (fitted at 7 pulsations over the band, as Ondes3D's InitializeKManelas)\n",
                 l + 1, m.layers[l].qp, m.layers[l].qs);
    return;
  }
  const int sets = memory_sets(m);
  // Each memory variable is read and written at every step: 8 bytes per cell-update besides the
  // elastic 120 (the time follows the bytes: 6bb2ab2:bench/results/gpu_h100_attenuation.txt).
  const int bytes = 4 * (kVelocityFloatsPerCell + kStressFloatsPerCell), extra = 8 * kStressComponents * sets;
  fmt::print("attenuation: {} [{}, {}] Hz with {} ({} memory variables a cell: "
             "{} bytes per cell-update instead of {}: about {:.1f}x the elastic time where bandwidth bounds it), velocities at {:.4g} Hz\n",
             m.day_bradley.on() ? "not a constant-Q body (its Q(f) below: the geometric mean of its cells' moduli), over"
                                : "Q constant over",
             f0, f1,
             m.day_bradley.on()
                 ? fmt::format("Ondes3D's Day and Bradley (taum {} s, tauM {} s, w0 {} rad/s: each cell one of {} "
                               "relaxation times by its indices' signs and parities)",
                               m.day_bradley.tau_min, m.day_bradley.tau_max, m.day_bradley.w0, kOndes3dCubeCells)
             : m.q_coarse_grained ? fmt::format("{} relaxation mechanisms coarse-grained, one per cell of each 2x2x2 cube",
                                                kCubeMechanisms)
                                  : fmt::format("{} relaxation mechanisms in every cell", sets),
             kStressComponents * sets, bytes + extra, bytes, double(bytes + extra) / bytes, m.q_reference);
  QFits fits = q_fits(m);
  std::vector<double> f;
  for (int i = 0; i < 7; ++i) f.push_back(f0 * std::pow(f1 / f0, i / 6.0));
  // Each layer's Qp and Qs; a 3D model's lowest (the hardest to fit), on the solver's rungs.
  std::vector<std::pair<std::string, double>> qs;
  for (size_t l = 0; l < m.layers.size(); ++l)
    for (auto [name, q] : {std::pair{"Qp", m.layers[l].qp}, std::pair{"Qs", m.layers[l].qs}})
      qs.emplace_back(fmt::format("layer {}: {}", l + 1, name), q);
  if (m.model_q) {  // on the solver's rungs; Ondes3D's Day and Bradley takes each material's own
    auto rung = [&](double q) { return m.day_bradley.on() ? q : level_q(q_level(q)); };
    qs.emplace_back("3D model, lowest Qp", rung(m.model->qp_min));
    qs.emplace_back("3D model, lowest Qs", rung(m.model->qs_min));
  }
  for (const auto& [name, q] : qs) {
    if (!(q > 0)) {
      fmt::print("  {}: elastic\n", name);
      continue;
    }
    const Relaxation& r = fits.of(q);
    std::vector<double> fitted;
    double worst = 0;
    for (double x : f) {
      fitted.push_back(quality_at(r, x));
      worst = std::max(worst, std::abs(fitted.back() / q - 1));
    }
    fmt::print("  {} {:.4g}: Q(f) at {:.4g} Hz = {:.4g}; worst {:.2f}%\n", name, q, fmt::join(f, " "),
               fmt::join(fitted, " "), 100 * worst);
  }
}

// Ondes3D's q0 damping: each layer's factor per step, and the Q it amounts to (velocity and stress
// damped by gamma = -ln(factor) / dt: every wave decays as exp(-gamma t) = exp(-pi f t / Q) for
// Q = q0 f / f0, q0 at f0).
void print_damping(const Case& c) {
  fmt::print("q0 damping (Ondes3D's approximation): velocity and stress times exp(-pi f0 dt / q0) each step, f0 = {} Hz\n",
             c.medium.q0_frequency);
  for (size_t l = 0; l < c.medium.layers.size(); ++l) {
    const double q0 = c.medium.layers[l].q0;
    if (q0 > 0)
      fmt::print("  layer {}: q0 {}: factor {:.8f} a step; amplitudes decay as Q = {} at {} Hz (Q proportional to "
                 "frequency)\n", l + 1, q0, std::exp(-M_PI * c.medium.q0_frequency * c.time.dt / q0), q0,
                 c.medium.q0_frequency);
    else
      fmt::print("  layer {}: undamped\n", l + 1);
  }
}

// The largest nx = ny (the case's nz and h kept) whose blocks all fit in the GPUs' memory.
std::pair<int, int> largest_grid_on_gpus(Case c, int ncuda, double gpu_bytes) {
  int lo = 0, hi = 1 << 16;
  while (hi - lo > 1) {
    const int n = (lo + hi) / 2;
    c.grid.nx = c.grid.ny = n;
    const bool fits = n >= c.run.nbx && n >= c.run.nby &&
                      plan_run(c, Launch{}).memory.total / ncuda <= 0.9 * gpu_bytes;
    (fits ? lo : hi) = n;
  }
  return {lo, c.grid.nz};
}

}  // namespace

namespace {
// What `run --restart` would do with the checkpoint: its checks, then the steps left.
void print_restart(const Case& c, const std::string& restart) {
  CheckpointReader r(restart, c);
  const int done = r.iteration();
  fmt::print("restart: {} holds the state after iteration {}; {}\n", restart, done,
             done < c.time.steps ? fmt::format("{} of the case's {} steps left to compute", c.time.steps - done,
                                               c.time.steps)
                                 : "nothing left to compute (--steps N to go further)");
  if (c.snapshots.every <= 0) return;
  if (c.snapshots.pgv)
    fmt::print("  peak ground velocity: {}\n", r.has_pgv() ? "goes on from the checkpoint's map"
                                                          : "not in the checkpoint, the map will cover the steps from "
                                                            "the restart on");
  if (const EarlierFrames earlier = earlier_frames(r.snapshot_file(), c, done); !earlier.frames.empty())
    fmt::print("  snapshots: {} frames before the restart come from {}\n", earlier.frames.size(), earlier.file);
  else if (done >= c.snapshots.every)
    fmt::print("  warning: {}\n", no_earlier_frames(r.snapshot_file(), c, done));
}
}  // namespace

namespace {
// The launch `run` would have here: this machine's workers as StarPU starts them for the case
// (CPU workers only where GPUs are asked for), with `ranks` ranks and `gpus` GPUs a process in
// their place where given (0: as found).
Launch launch_here(const Case& c, int ranks, int gpus) {
  Launch l;
  {
    Runtime rt(c.run.scheduler, -1, gpus > 0 ? 0 : -1);
    l = Simulation::current_launch();
  }
  if (ranks > 0) l.ranks = ranks;
  if (gpus > 0) l.gpus = gpus, l.cuda_workers = gpus * workers_per_gpu();
  return l;
}
}  // namespace

int check_command(const Case& c, int ranks, int gpus, const std::string& restart) {
  const RunPlan plan = plan_run(c, launch_here(c, ranks, gpus));
  const Decomposition& d = plan.decomposition;
  const RankMap& m = plan.ranks;
  const double limit = cfl_limit(c.grid.h, vp_max(c.medium));
  fmt::print("case {}\n", c.path);
  fmt::print("grid {} x {} x {} cells, h = {} m ({:.1f} x {:.1f} x {:.1f} km)\n", c.grid.nx, c.grid.ny, c.grid.nz,
             c.grid.h, c.grid.extent(0) / 1e3, c.grid.extent(1) / 1e3, c.grid.extent(2) / 1e3);
  fmt::print("time step {} s: {:.1f}% of the CFL limit {:.6g} s; {} steps = {:.3f} s simulated\n", c.time.dt,
             100 * c.time.dt / limit, limit, c.time.steps, c.time.steps * c.time.dt);
  fmt::print("points per shortest S wavelength: {:.2f} (vs_min {} m/s)\n", points_per_wavelength(c),
             vs_min(c.medium));
  if (c.medium.model)
    fmt::print("medium: the model {}, vp max {:.0f} m/s, slowest wave {:.0f} m/s\n", c.medium.model->path,
               c.medium.model->vp_max, c.medium.model->vs_min);
  fmt::print("boundaries: {}, PML {} cells\n", c.boundaries.free_surface ? "free surface on top" : "absorbing all round",
             c.boundaries.pml_width);
  if (c.medium.attenuating()) print_attenuation(c.medium);
  if (c.medium.damped()) print_damping(c);
  fmt::print("{} source(s), {} station(s)\n", c.sources.size(), c.stations.size());
  try {  // a batch job may make the folders before it runs: a warning here, a refusal there
    check_result_files(c, RunControl{});
  } catch (const CaseError& e) {
    fmt::print("warning: {} (`run` refuses it as it stands)\n", e.what());
  }
  if (const double m0 = seismic_moment(c.sources); m0 > 0)  // Ondes3D prints its Mo and Mw (IO.c, ReadSrc)
    fmt::print("seismic moment M0 = {:.4g} N m (sum of the moment sources'), Mw = {:.2f}\n", m0, moment_magnitude(m0));
  const MemoryNeeds& need = plan.memory;
  for (const std::string& line : describe_plan(c, plan)) fmt::print("{}\n", line);
  fmt::print("memory: largest block {}, total {} (seismograms included){}\n", human_bytes(need.largest_block),
             human_bytes(need.total),
             plan.launch.gpus > 0 ? fmt::format(", {} of arrays on the fullest GPU", human_bytes(need.per_gpu)) : "");
  if (ranks > 1) {
    const auto sent = bytes_sent_per_iteration(d, m);
    fmt::print("ranks: at most {} per rank; {} cells of block face between ranks; bytes sent per iteration by "
               "rank: {}\n",
               human_bytes(need.per_rank), cut_face_cells(d, m), fmt::join(sent, " "));
  }
  if (!restart.empty()) print_restart(c, restart);  // one that `run` refuses ends the check, exit 2
  return 0;
}

int predict_command(const Case& c, const WorkerConfig& w, const std::string& machine_path, bool csv) {
  const MachineModel m = read_machine(machine_path);
  if (w.ncuda > 0 && m.cuda_gbs <= 0)
    throw CaseError(fmt::format("{}: no CUDA figures (cuda_gbs = 0): calibrate on a machine with a GPU", machine_path));
  const RunPlan plan = plan_run(c, Launch{w.ranks, w.ncuda, w.ncuda, w.ncpu});  // the launch predicted
  const Prediction p = predict(c, plan.decomposition, plan.ranks, w, m);
  const double cells = double(c.grid.nx) * c.grid.ny * c.grid.nz;
  if (csv) {
    fmt::print("predicted_s_per_iteration,predicted_compute_s,predicted_overhead_s,predicted_transfer_s,"
               "predicted_cpu_share,predicted_cell_updates_per_s\n");
    fmt::print("{:.6e},{:.6e},{:.6e},{:.6e},{:.4f},{:.6e}\n", p.seconds_per_iteration, p.compute_s, p.overhead_s,
               p.transfer_s, p.cpu_cell_share, cells / p.seconds_per_iteration);
    return 0;
  }
  fmt::print("{} on {}: {} x {} blocks, {} CPU + {} CUDA workers per rank, {} rank(s)\n", c.path, machine_path,
             plan.decomposition.nbx, plan.decomposition.nby, w.ncpu, w.ncuda, w.ranks);
  fmt::print("predicted {:.4g} s per iteration ({:.4g} cell-updates/s): busiest worker computes {:.4g} s, task overhead "
             "{:.4g} s, transfers {:.4g} s; {:.1f}% of the work on CPU workers\n",
             p.seconds_per_iteration, cells / p.seconds_per_iteration, p.compute_s, p.overhead_s, p.transfer_s,
             100 * p.cpu_cell_share);
  if (m.cuda_memory_bytes > 0 && w.ncuda > 0) {
    const auto [n, nz] = largest_grid_on_gpus(c, w.ncuda, m.cuda_memory_bytes);
    fmt::print("largest grid on {} GPU(s) of {} with these blocks: {} x {} x {} cells\n", w.ncuda,
               human_bytes(m.cuda_memory_bytes), n, n, nz);
  }
  return 0;
}

// Exit 0 when the runs agree: bitwise, or within the relative L2 tolerance if one is given.
int compare_command(const std::string& a, const std::string& b, double tolerance) {
  const Comparison c = compare_seismograms(a, b);
  fmt::print("{:<16} {:>14} {:>14}   {:>26}   {:>20}\n", "station", "relative L2", "max |a-b| m/s",
             "L2 per component (x y z)", "peak b / peak a");
  for (const StationDifference& d : c.stations)
    fmt::print("{:<16} {:>14.3e} {:>14.3e}   {:>8.2f}% {:>7.2f}% {:>7.2f}%   {:>6.3f} {:>6.3f} {:>6.3f}\n", d.name,
               d.relative_l2, d.max_abs, 100 * d.component_l2[0], 100 * d.component_l2[1], 100 * d.component_l2[2],
               d.peak_ratio[0], d.peak_ratio[1], d.peak_ratio[2]);
  fmt::print("{} of {} samples bitwise identical; worst relative L2 {:.3e}\n", c.identical, c.samples,
             c.worst_relative_l2);
  // A silent run recorded nothing (sources or stations outside what is computed, a zero moment):
  // two of them agree without telling anything.
  if (c.a_silent || c.b_silent) {
    fmt::print("{}: every sample is zero: nothing was recorded to compare\n",
               c.a_silent && c.b_silent ? "both silent" : c.a_silent ? a + " is silent" : b + " is silent");
    return 1;
  }
  return c.bitwise() || (tolerance > 0 && c.worst_relative_l2 <= tolerance) ? 0 : 1;
}

// The TOML case of an Ondes3D parameter file, validated; written only when complete.
int convert_command(const std::string& prm, const std::string& toml_path) {
  check_result_path(fmt::format("convert -o {}", toml_path), toml_path, prm);
  std::ifstream in(prm);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<Provenance> where;
  const Case c = read_ondes3d_prm(prm, text.str(), &where);
  for (const std::string& w : validate_case(c)) spdlog::warn("{}: {}", prm, w);
  const std::string toml = ondes3d_to_toml(c, where, toml_path);
  write_through(toml_path, [&](const std::string& tmp) {
    std::ofstream out(tmp);
    out << toml;
    if (!out.flush()) throw CaseError(fmt::format("{}: cannot write", toml_path));
  });
  const std::string medium = !c.medium.model ? fmt::format("{} layer(s)", c.medium.layers.size())
                             : c.medium.ondes3d_nodes() ? "a geological model" : "a 3D model";
  spdlog::info("{}: {} x {} x {} cells, {}, {} source point(s), {} station(s) -> {}", prm, c.grid.nx, c.grid.ny,
               c.grid.nz, medium, c.sources.size(), c.stations.size(), toml_path);
  return 0;
}

}  // namespace ondes
