// The scheduler laboratory: StarPU's profiling in the run's metadata and trace, the regression
// performance models, and the analytic cost model.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <hdf5.h>
#include <starpu.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "engine/runtime.hpp"
#include "h5read.hpp"
#include "helpers.hpp"
#include "io/case/case_reader.hpp"
#include "io/results/h5util.hpp"
#include "perfmodels/cost_model.hpp"
#include "physics/pml.hpp"
#include "shell.hpp"
#include "tasks/iteration.hpp"
#include "tasks/park.hpp"
#include "tasks/profile.hpp"

namespace fs = std::filesystem;
using namespace ondes;

namespace {

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("ondes_lab_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string small_case() { return std::string(ONDES_SOURCE_DIR) + "/inputs/small_homogeneous.toml"; }

// CSV as rows of named fields.
std::vector<std::map<std::string, std::string>> read_csv(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  auto split = [](const std::string& s) {
    std::vector<std::string> f;
    std::stringstream ss(s);
    std::string x;
    while (std::getline(ss, x, ',')) f.push_back(x);
    return f;
  };
  if (std::getline(in, line)) header = split(line);
  while (std::getline(in, line)) {
    const auto f = split(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size(); ++i) row[header[i]] = i < f.size() ? f[i] : "";  // empty last fields
    rows.push_back(row);
  }
  return rows;
}

std::vector<int64_t> read_ints(const fs::path& file, const char* dataset) {
  h5::Id f{H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  h5::Id d{H5Dopen2(f, dataset, H5P_DEFAULT), H5Dclose};
  h5::Id s{H5Dget_space(d), H5Sclose};
  std::vector<int64_t> v(static_cast<size_t>(H5Sget_simple_extent_npoints(s)));
  if (!v.empty()) H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  return v;
}

std::vector<std::string> read_strings(const fs::path& file, const char* dataset) {
  h5::Id f{H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  h5::Id d{H5Dopen2(f, dataset, H5P_DEFAULT), H5Dclose};
  h5::Id s{H5Dget_space(d), H5Sclose};
  h5::Id t{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  std::vector<char*> p(static_cast<size_t>(H5Sget_simple_extent_npoints(s)));
  std::vector<std::string> out;
  if (p.empty()) return out;
  H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, p.data());
  for (char* c : p) out.emplace_back(c);
  H5Dvlen_reclaim(t, s, H5P_DEFAULT, p.data());
  return out;
}

}  // namespace

// Every task the run submits is in the profile, the summary and the trace, on the worker that ran it.
TEST(Profile, CountsEveryTaskOnceInMetadataSummaryAndTrace) {
  const fs::path d = temp_dir("profile");
  const int steps = 40;  // under the watchdog's 50: no watch tasks
  auto r = test::ondes3d(fmt::format("run {} --blocks 2x2 --steps {} --output {} --summary {} --trace {}", small_case(),
                                     steps, (d / "o.h5").string(), (d / "s.csv").string(), (d / "t.csv").string()),
                         d / "log");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto summary = read_csv(d / "s.csv");
  ASSERT_EQ(summary.size(), 1u);
  const auto& s = summary[0];
  const int per_iteration = std::stoi(s.at("tasks_per_iteration"));
  EXPECT_GE(per_iteration, 4 * 2 + 1);  // compute (per field kind, sources included), record(s)
  EXPECT_EQ(std::stoll(s.at("tasks")), int64_t(per_iteration) * steps);
  EXPECT_EQ(std::stoll(s.at("compute_tasks_cpu")) + std::stoll(s.at("compute_tasks_cuda")), 2 * 4 * steps);
  const double idle = std::stod(s.at("idle_cpu"));
  EXPECT_GE(idle, 0.0);
  EXPECT_LT(idle, 1.0);

  const auto trace = read_csv(d / "t.csv");
  EXPECT_EQ(int64_t(trace.size()), int64_t(per_iteration) * steps);
  std::map<std::string, int> per_codelet;
  for (const auto& e : trace) {
    ++per_codelet[e.at("codelet")];
    EXPECT_LE(std::stod(e.at("start_s")), std::stod(e.at("end_s")));
    // ready (pushed to the scheduler) before it starts; the policy's push and pop take time >= 0
    EXPECT_LE(std::stod(e.at("ready_s")), std::stod(e.at("start_s")));
    EXPECT_GE(std::stod(e.at("push_us")), 0.0);
    EXPECT_GE(std::stod(e.at("pop_us")), 0.0);
    // a CUDA worker's task names its GPU, a CPU worker's none
    if (e.at("worker_kind") == "cuda")
      EXPECT_GE(std::stoi(e.at("device")), 0);
    else
      EXPECT_EQ(e.at("device"), "");
  }
  EXPECT_EQ(per_codelet["compute_velocity"], 4 * steps);
  // Each compute task names its block: every block of the 2x2 layout, a velocity and a stress
  // update per step.
  std::map<std::string, int> per_block;
  for (const auto& e : trace)
    if (e.at("codelet").rfind("compute_", 0) == 0) ++per_block[e.at("block")];
  EXPECT_EQ(per_block, (std::map<std::string, int>{{"x0y0", 2 * steps}, {"x1y0", 2 * steps}, {"x0y1", 2 * steps},
                                                    {"x1y1", 2 * steps}}));
  // A block's updates alternate, each reading what the one before wrote: none is ready (its
  // dependencies met) before the one before it ended.
  std::map<std::string, std::vector<std::array<double, 3>>> updates;  // block: (start, ready, end)
  for (const auto& e : trace)
    if (e.at("codelet").rfind("compute_", 0) == 0)
      updates[e.at("block")].push_back(
          {std::stod(e.at("start_s")), std::stod(e.at("ready_s")), std::stod(e.at("end_s"))});
  for (auto& [block, u] : updates) {
    std::sort(u.begin(), u.end());  // by start
    for (size_t i = 1; i < u.size(); ++i) EXPECT_GE(u[i][1], u[i - 1][2]) << block << ", update " << i;
  }
  // A block adds its sources and saves its edges in its compute task: no task of their own.
  EXPECT_EQ(per_codelet.count("update_source"), 0u);
  EXPECT_EQ(per_codelet.count("save_edges"), 0u);
  EXPECT_EQ(per_codelet.count("save_boundary"), 0u);

  const fs::path out = d / "o.h5";
  const auto names = read_strings(out, "/run/profile/codelets/codelet");
  const auto tasks = read_ints(out, "/run/profile/codelets/tasks");
  ASSERT_EQ(names.size(), tasks.size());
  std::map<std::string, int64_t> from_h5;
  for (size_t i = 0; i < names.size(); ++i) from_h5[names[i]] += tasks[i];
  EXPECT_EQ(from_h5["compute_stress"], 4 * steps);
  EXPECT_EQ(from_h5.size(), per_codelet.size());
  for (const auto& [name, n] : per_codelet) EXPECT_EQ(from_h5[name], n) << name;
  int64_t by_workers = 0;
  for (int64_t t : read_ints(out, "/run/profile/workers/tasks")) by_workers += t;
  EXPECT_EQ(by_workers, int64_t(per_iteration) * steps);
  fs::remove_all(d);
}

// One block: its iterations run in windows (tasks/chain.hpp), chain_steps (8) iterations a task
// (velocity, stress, sources and the stations: no task hop between them), each step counted as two
// block updates; chain_steps = 0 gives a window a step; --tune lone_block_step=false gives the
// three-task graph; all the same seismograms, bit for bit.
TEST(Profile, LoneBlockRunsWindowsOfIterations) {
  const fs::path d = temp_dir("step");
  const int steps = 30;
  auto run = [&](const std::string& tune, const std::string& name) {
    return test::shell(fmt::format("{} run {} --blocks 1x1 --steps {} --watchdog-every 0 --output {} --summary {} "
                                   "--trace {} {}",
                                   ONDES_BINARY, small_case(), steps, (d / (name + ".h5")).string(),
                                   (d / (name + ".csv")).string(), (d / (name + "_trace.csv")).string(), tune),
                       d / (name + ".log"));
  };
  auto codelets = [&](const std::string& name) {
    std::map<std::string, int> n;
    for (const auto& e : read_csv(d / (name + "_trace.csv"))) ++n[e.at("codelet")];
    return n;
  };
  auto r = run("", "window");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto s = read_csv(d / "window.csv").at(0);
  EXPECT_LT(std::stod(s.at("tasks_per_iteration")), 0.5);
  EXPECT_EQ(std::stoll(s.at("compute_tasks_cpu")) + std::stoll(s.at("compute_tasks_cuda")), 2 * steps);
  const auto windows = codelets("window");
  EXPECT_EQ(windows.at("chain"), 4) << "windows of 8, 8, 8 and 6 iterations";
  EXPECT_EQ(windows.size(), 1u) << "compute or record tasks beside the windows";

  ASSERT_EQ(run("--tune chain_steps=0", "one").code, 0);
  EXPECT_EQ(codelets("one").at("chain"), steps);
  auto off = run("--tune lone_block_step=false", "tasks");
  ASSERT_EQ(off.code, 0) << off.output;
  const auto split = codelets("tasks");
  EXPECT_EQ(split.at("compute_velocity"), steps);
  EXPECT_EQ(split.count("chain"), 0u);
  const auto a = test::read_floats((d / "window.h5").string(), "/seismograms/velocity");
  ASSERT_FALSE(a.empty());
  EXPECT_NE(std::count(a.begin(), a.end(), 0.0f), std::ptrdiff_t(a.size())) << "nothing reached the stations";
  for (const char* other : {"one", "tasks"})
    EXPECT_EQ(test::read_floats((d / (std::string(other) + ".h5")).string(), "/seismograms/velocity"), a)
        << other << ": the windows' seismograms differ";
  fs::remove_all(d);
}

// Calibrated at three block sizes, the stencil models predict a fourth, never run, between its
// neighbours; the history keeps each calibrated size apart.
TEST(PerfModels, RegressionPredictsAnUnseenBlockSize) {
  const fs::path d = temp_dir("perfmodels");
  const fs::path home = d / "home";
  // StarPU 1.3's fit (src/core/perfmodel/regression.c, _starpu_regression_non_linear_power)
  // searches its constant c between 0 and the mean a third of the way up the sorted entries (here
  // one of the smallest blocks', which have the most entries), and weighs out every entry whose mean
  // is under 2c (fixpop, C_RADIUS): when the two smaller calibrated sizes' means lie within twice
  // that, one size is left and the fit is 0/0 (seen in CI at 96 x 96 cells). So the
  // case is widened to 192 x 192 cells, where blocks of 1x1, 2x2, 4x4 hold 196^2, 100^2, 52^2 x 36
  // cells with their ghosts, each size about three times the next one's time, and its C-PML thinned
  // to 2 cells, so that the block size, not the per-task overhead or the share of PML cells, sets a
  // task's cost (blocks of equal size: balance even); one CPU worker, so that no two tasks share the
  // memory bus and scatter each other's times.
  std::ifstream in(small_case());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("pml_width = 8"), 13, "pml_width = 2");
  text.replace(text.find("nx = 48"), 7, "nx = 192");
  text.replace(text.find("ny = 48"), 7, "ny = 192");
  const fs::path case_file = d / "wide.toml";
  std::ofstream(case_file) << text;
  // lone_block_step=false: the one block of 1x1 runs compute tasks too, not windows.
  auto calibrate = [&] {
    for (const char* blocks : {"1x1", "2x2", "4x4"}) {
      auto r = test::shell(fmt::format("STARPU_HOME={} STARPU_CALIBRATE=1 STARPU_NCPU=1 {} run {} --blocks {} --balance even --steps 30 "
                                       "--sched dmda --tune lone_block_step=false --output {}",
                                       home.string(), ONDES_BINARY, case_file.string(), blocks, (d / "o.h5").string()),
                           d / "log");
      ASSERT_EQ(r.code, 0) << r.output;
    }
  };
  setenv("STARPU_HOME", home.c_str(), 1);
  starpu_perfmodel_initialize();
  // The fit and the unseen size's prediction from the history so far; false with the reason when
  // the prediction falls outside its neighbours' measured means.
  auto check_fit = [&](std::string& why) {
    starpu_perfmodel model;
    std::memset(&model, 0, sizeof(model));
    if (starpu_perfmodel_load_symbol("ondes3d_compute_velocity", &model) != 0) return why = "no model", false;
    starpu_perfmodel_per_arch* cpu = starpu_perfmodel_get_model_per_devices(&model, 0, STARPU_CPU_WORKER, 0, 1, -1);
    if (!cpu) return starpu_perfmodel_unload_model(&model), why = "no CPU model", false;
    const starpu_perfmodel_regression_model& reg = cpu->regression;
    std::string history;  // every entry, for the failure messages
    std::map<size_t, std::pair<double, double>> by_size;  // size -> (least, greatest mean), us
    int entries = 0;
    for (starpu_perfmodel_history_list* l = cpu->list; l; l = l->next) {
      history += fmt::format(" [{} cells: {:.1f} +- {:.1f} us, n {}]", l->entry->size, l->entry->mean,
                             l->entry->deviation, l->entry->nsample);
      ++entries;
      auto [it, fresh] = by_size.try_emplace(l->entry->size, l->entry->mean, l->entry->mean);
      it->second.first = std::min(it->second.first, l->entry->mean);
      it->second.second = std::max(it->second.second, l->entry->mean);
    }
    // History: the calibrated sizes, each block shape (with its PML and neighbours) its own entry.
    EXPECT_EQ(by_size.size(), 3u) << history;
    EXPECT_GE(entries, 1 + 4 + 6) << history;  // 1x1; 2x2: four corners alike in shape but not PML; 4x4: more
    EXPECT_EQ(reg.minx, 52u * 52 * 36);
    EXPECT_EQ(reg.maxx, 196u * 196 * 36);
    // 3x3 blocks (64 x 64 + ghosts: 68^2 x 36 cells) were never run: the fit places them between.
    const double unseen = 68.0 * 68 * 36;
    const double predicted = reg.a * std::pow(unseen, reg.b) + reg.c;
    const bool valid = reg.nl_valid, small = by_size.count(52 * 52 * 36), large = by_size.count(100 * 100 * 36);
    const bool ok = valid && small && large && predicted > by_size.at(52 * 52 * 36).first &&
                    predicted < by_size.at(100 * 100 * 36).second;
    why = fmt::format("fit valid {}, a {} b {} c {}, {} samples: {:.1f} us predicted for 68^2 x 36 cells; history{}", valid,
                      reg.a, reg.b, reg.c, reg.nsample, predicted, history);
    starpu_perfmodel_unload_model(&model);
    return ok;
  };
  // Measured times: on a loaded machine one calibration's means can scatter enough to bend the fit
  // (seen once in a clean-clone run); a second calibration doubles the samples before the verdict.
  calibrate();
  std::string first, second;
  if (!check_fit(first)) {
    calibrate();
    EXPECT_TRUE(check_fit(second)) << "first calibration: " << first << "\nafter a second: " << second;
  }
  fs::remove_all(d);
}

namespace {

Case sweep_case(int nbx, int nby) {
  Case c = read_case(std::string(ONDES_SOURCE_DIR) + "/inputs/sweep.toml");
  c.run.set_blocks(nbx, nby);
  
  return c;
}

// The cells PmlRegion::contains puts in the PML, counted one by one (the cost model counts boxes).
int64_t pml_cells_brute_force(const Case& c) {
  const PmlRegion pml = PmlRegion::of(c);
  const Grid& g = c.grid;
  int64_t n = 0;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) n += pml.contains(i, j, k);
  return n;
}

double total_bytes(const Case& c) {
  double b = 0;
  for (const BlockCost& k : block_costs(c, decompose(c))) b += k.bytes;
  return b;
}

MachineModel machine(double cpu_gbs, double cpu_task_s, double cuda_gbs = 0, double cuda_task_s = 0) {
  MachineModel m;
  m.cpu_gbs = cpu_gbs, m.cpu_task_s = cpu_task_s, m.cuda_gbs = cuda_gbs, m.cuda_task_s = cuda_task_s;
  return m;
}

}  // namespace

TEST(CostModel, BytesAreTheStencilsPmlAndBoundaryLayers) {
  const Case one = sweep_case(1, 1);
  const double cells = double(one.grid.nx) * one.grid.ny * one.grid.nz;
  // A cell-update: velocity reads 6 stresses, 3 velocities and the density and writes 3 velocities
  // (13 floats); stress reads 3 velocities, 6 stresses, lambda and 1/mu and writes 6 (17 floats).
  EXPECT_DOUBLE_EQ(total_bytes(one), 4 * (13 + 17) * cells + 160 * double(pml_cells_brute_force(one)));
  // 3 x 2 blocks: 2 x 2 inner faces of ny/2 cells, 3 of nx/3 cells; each side saves and loads 2
  // layers of 6 floats (3 velocities, the 3 stresses differentiated across the face; read + write
  // each time).
  const Case six = sweep_case(3, 2);
  const double faces = 4.0 * (one.grid.ny / 2) + 3.0 * (one.grid.nx / 3);
  const double per_face_cell = 2 /*sides*/ * 2 /*layers*/ * 6 * 4 /*bytes*/ * 4 /*save + load, r + w*/;
  EXPECT_DOUBLE_EQ(total_bytes(six) - total_bytes(one), faces * one.grid.nz * per_face_cell);
}

// Beside a GPU, a CPU worker may compute a block only if it finishes it within half the GPU's
// time per iteration: 1 - 1/(2 x 300 x nblocks) of the work is the GPU's either way, so with the
// default bandwidths (1500 GB/s against 5) no block of a 4x4 layout qualifies, every block of a
// 64x64 one does (each 1/4096 of the work), and without a GPU every block may run on the CPUs.
TEST(CostModel, CpuWorkersComputeOnlyBlocksTheyFinishInTheGpusShadow) {
  auto eligible = [](int nb, int gpus) {
    Case c = sweep_case(nb, nb);
    c.grid.nx = c.grid.ny = 512;
    c.grid.nz = 64;
    const Decomposition d = decompose(c.grid, nb, nb);
    std::vector<int> mine;
    for (const BlockInfo& b : d.blocks) mine.push_back(b.id);
    const std::vector<bool> may = cpu_may_compute(c, d, mine, gpus);
    return static_cast<int>(std::count(may.begin(), may.end(), true));
  };
  EXPECT_EQ(eligible(4, 1), 0);
  EXPECT_EQ(eligible(64, 1), 64 * 64);
  EXPECT_EQ(eligible(4, 0), 16);
  // Only the rank's own blocks count, and only they are placed.
  Case c = sweep_case(4, 4);
  const Decomposition d = decompose(c.grid, 4, 4);
  const std::vector<bool> may = cpu_may_compute(c, d, {0, 1}, 0);
  EXPECT_EQ(std::count(may.begin(), may.end(), true), 2);
  EXPECT_TRUE(may[0] && may[1]);
}

TEST(CostModel, OneWorkerDoesAllTheWorkAndOneBlockCannotBeShared) {
  const MachineModel m = machine(2.0, 1e-5);
  const Case c = sweep_case(4, 4);
  int tasks = 0;
  for (const BlockCost& k : block_costs(c, decompose(c.grid, 4, 4))) tasks += k.tasks;
  const Prediction one = predict(c, {1, 0, 1}, m);
  EXPECT_NEAR(one.seconds_per_iteration, total_bytes(c) / 2e9 + tasks * 1e-5, 1e-12);
  EXPECT_EQ(one.tasks_per_iteration, tasks);
  // A single block: a second worker cannot help.
  const Case single = sweep_case(1, 1);
  EXPECT_DOUBLE_EQ(predict(single, {2, 0, 1}, m).seconds_per_iteration,
                   predict(single, {1, 0, 1}, m).seconds_per_iteration);
  // 16 blocks on 2 workers: between half the work and half plus the largest block.
  const Prediction two = predict(c, {2, 0, 1}, m);
  EXPECT_GE(two.seconds_per_iteration, one.seconds_per_iteration / 2 * (1 - 1e-12));
  EXPECT_LE(two.seconds_per_iteration, one.seconds_per_iteration / 2 + one.seconds_per_iteration / 8);
}

TEST(CostModel, AFastGpuTakesTheWorkAndSlowCpusDoNotSlowIt) {
  const MachineModel m = machine(1.0, 1e-5, 1000.0, 1e-5);
  const Case c = sweep_case(4, 4);
  const Prediction gpu = predict(c, {0, 1, 1}, m);
  const Prediction both = predict(c, {15, 1, 1}, m);
  EXPECT_EQ(gpu.transfer_s, 0.0);  // one memory node
  EXPECT_LE(both.seconds_per_iteration, gpu.seconds_per_iteration * (1 + 1e-12));
  EXPECT_LT(both.cpu_cell_share, 0.1);
  // Equal speeds: the work is shared, and the boundary buffers between host and GPU are paid.
  const Prediction even = predict(c, {1, 1, 1}, machine(10.0, 1e-5, 10.0, 1e-5));
  EXPECT_GT(even.cpu_cell_share, 0.3);
  EXPECT_GT(even.transfer_s, 0.0);
}

TEST(CostModel, RanksPayTheirHaloOverMpi) {
  MachineModel m = machine(2.0, 0);
  m.mpi_latency_s = 1e-3;
  m.mpi_gbs = 1;
  const Case c = sweep_case(2, 1);
  const Prediction p = predict(c, {1, 0, 2}, m);
  // Each rank holds one block and sends its 2 edge layers of 6 floats over the face of ny x nz.
  const double sent = 2.0 * 6 * 4 * c.grid.ny * c.grid.nz;
  EXPECT_NEAR(p.transfer_s, 1e-3 + sent / 1e9, 1e-12);
  EXPECT_NEAR(p.seconds_per_iteration, predict(c, {1, 0, 1}, m).seconds_per_iteration / 2 + p.transfer_s,
              0.01 * p.seconds_per_iteration);
}

TEST(CostModel, CalibrationRecoversBandwidthAndTaskCost) {
  const Load coarse{4e8, 10}, fine{4.4e8, 400};
  const double gbs = 3.0, task = 20e-6;
  double g = 0, t = 0;
  solve_kind(coarse, coarse.bytes / (gbs * 1e9) + coarse.tasks * task, fine, fine.bytes / (gbs * 1e9) + fine.tasks * task,
             g, t);
  EXPECT_NEAR(g, gbs, 1e-9);
  EXPECT_NEAR(t, task, 1e-12);
}

TEST(CostModel, MachineFileRoundTripsAndBadOnesNameTheKey) {
  const fs::path d = temp_dir("machine");
  MachineModel m = machine(3.5, 2e-6, 900, 8e-6);
  m.name = "box";
  m.cpu_workers = 15;
  m.cuda_memory_bytes = 8e10;
  write_machine((d / "m.toml").string(), m);
  const MachineModel r = read_machine((d / "m.toml").string());
  EXPECT_EQ(r.name, "box");
  EXPECT_EQ(r.cpu_workers, 15);
  EXPECT_DOUBLE_EQ(r.cuda_gbs, 900);
  EXPECT_DOUBLE_EQ(r.cuda_memory_bytes, 8e10);
  std::ofstream(d / "bad.toml") << "cpu_gbs = -1\ncpu_task_s = 0\n";
  try {
    read_machine((d / "bad.toml").string());
    FAIL() << "a negative bandwidth was accepted";
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu_gbs"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.toml"), std::string::npos) << e.what();
  }
  std::ofstream(d / "missing.toml") << "cpu_gbs = 1\n";
  EXPECT_THROW(read_machine((d / "missing.toml").string()), CaseError);
  fs::remove_all(d);
}

namespace {
// Runs the small case at `blocks` (40 steps) once with each of `tunings` (--tune options) and
// expects the same seismograms, bit for bit, and not all zero.
void expect_same_seismograms(const std::string& name, const std::string& blocks, const std::vector<std::string>& tunings,
                             const std::string& what) {
  const fs::path d = temp_dir(name);
  std::vector<float> first;
  for (size_t i = 0; i < tunings.size(); ++i) {
    const fs::path out = d / (std::to_string(i) + ".h5");
    const auto r = test::shell(fmt::format("{} run {} --blocks {} --steps 40 --output {} {}", ONDES_BINARY,
                                           small_case(), blocks, out.string(), tunings[i]),
                               d / (std::to_string(i) + ".log"));
    ASSERT_EQ(r.code, 0) << tunings[i] << ": " << r.output;
    const std::vector<float> traces = test::read_floats(out.string(), "/seismograms/velocity");
    ASSERT_FALSE(traces.empty());
    EXPECT_NE(std::count(traces.begin(), traces.end(), 0.0f), std::ptrdiff_t(traces.size()))
        << "nothing reached the stations";
    if (i == 0) first = traces;
    else EXPECT_EQ(traces, first) << tunings[i] << " against " << tunings[0] << ": " << what;
  }
  fs::remove_all(d);
}
}  // namespace

// [tuning] edge_saving: edges saved by a copy after each update, by the update itself, or as auto
// chooses, give the same seismograms, bit for bit; with the saves left out, a neighbour would read
// stale ghosts and they would differ.
TEST(Tuning, EdgeSavingGivesTheSameBits) {
  expect_same_seismograms("edges_apart", "2x2",
                          {"--tune edge_saving=update", "--tune edge_saving=apart", "--tune edge_saving=auto"},
                          "where the edges are saved changes the seismograms");
}

// [tuning] stress_station_slots: stations sampled by each block's compute_stress (the default, 12
// groups a task), partly by sample_stations tasks (1), or by record tasks reading the blocks'
// velocity (0): the same seismograms, bit for bit, at a layout whose stations straddle blocks.
TEST(Tuning, StationSamplingGivesTheSameBits) {
  expect_same_seismograms("samples", "3x2",
                          {"", "--tune stress_station_slots=1", "--tune stress_station_slots=0"},
                          "where the stations are sampled changes the seismograms");
}

// The policy's other keys on a CPU-only run (gpu_affinity, peer_halos and park_cpus act with GPUs only, march
// on CUDA kernels: test_gpu) are accepted and change nothing; --tune and [tuning] refuse bad values
// with the key and the allowed values.
TEST(Tuning, OtherKeysAndBadValues) {
  expect_same_seismograms("tune_rest", "2x1",
                          {"", "--tune gpu_affinity=false --tune peer_halos=false --tune park_cpus=false --tune march=16x4x2x0",
                           "--tune chain_steps=8 --tune chain_side_stream=false"},
                          "CPU-only run changed by GPU tuning");
  const fs::path d = temp_dir("tune_bad");
  // Chained steps (on by default) need a GPU a block: a CPU run goes without them and says nothing
  // of them (every CPU run would); a run with a GPU a block says why it does not chain.
  auto c = test::shell(fmt::format("{} run {} --blocks 2x1 --steps 5 --tune chain_steps=8 --output {}", ONDES_BINARY,
                                   small_case(), (d / "c.h5").string()),
                       d / "chain.log");
  EXPECT_EQ(c.code, 0) << c.output;
  EXPECT_EQ(c.output.find("chain"), std::string::npos) << c.output;
  c = test::shell(fmt::format("{} run {} --tune chain_steps=65", ONDES_BINARY, small_case()), d / "chain65.log");
  EXPECT_EQ(c.code, 2) << c.output;
  EXPECT_NE(c.output.find("--tune chain_steps: '65': must be a whole number in [0, 64]"), std::string::npos) << c.output;
  c = test::shell(fmt::format("{} run {} --tune chain_side_stream=2", ONDES_BINARY, small_case()), d / "side.log");
  EXPECT_EQ(c.code, 2) << c.output;
  EXPECT_NE(c.output.find("--tune chain_side_stream: '2': must be true or false"), std::string::npos) << c.output;
  c = test::shell(fmt::format("{} run {} --tune chain_on_cpus=yes", ONDES_BINARY, small_case()), d / "cpus.log");
  EXPECT_EQ(c.code, 2) << c.output;
  EXPECT_NE(c.output.find("--tune chain_on_cpus: 'yes': must be true or false"), std::string::npos) << c.output;
  auto r = test::shell(fmt::format("{} run {} --tune march=8x2x9", ONDES_BINARY, small_case()), d / "a.log");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--tune march: '8x2x9': allowed values are auto or TYxKZxB"), std::string::npos) << r.output;
  r = test::shell(fmt::format("{} run {} --tune speed=11", ONDES_BINARY, small_case()), d / "b.log");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown key 'speed'"), std::string::npos) << r.output;
  std::ifstream in(small_case());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(d / "t.toml") << text << "\n[tuning]\nedge_saving = \"sideways\"\n";
  r = test::shell(fmt::format("{} check {}", ONDES_BINARY, (d / "t.toml").string()), d / "c.log");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("t.toml:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tuning.edge_saving: 'sideways': allowed values are auto, apart, update"), std::string::npos)
      << r.output;
  fs::remove_all(d);
}

// Chained windows (tasks/chain.hpp) cover the run's iterations exactly once, none longer than
// chain_steps nor than what is left, and every iteration after which the watchdog or a snapshot
// frame is due ends a window (those tasks read that iteration's velocity, between windows).
TEST(Chain, WindowsEndWhereTheWatchdogOrASnapshotIsDue) {
  for (int longest : {1, 3, 8, 64})
    for (int watch : {0, 5, 7})
      for (int snap : {0, 3, 10}) {
        const std::string what = fmt::format("chain_steps {}, watchdog every {}, snapshots every {}", longest, watch, snap);
        const int total = 100, first = 13;
        std::vector<int> ends;
        for (int n = first; n < total;) {
          const int steps = window_steps(n, std::min(longest, total - n), watch, snap);
          ASSERT_GE(steps, 1) << what;
          ASSERT_LE(steps, std::min(longest, total - n)) << what;
          n += steps;
          ends.push_back(n - 1);
        }
        EXPECT_EQ(ends.back(), total - 1) << what;
        for (int it = first; it < total; ++it) {
          const bool due = (watch > 0 && (it + 1) % watch == 0) || (snap > 0 && (it + 1) % snap == 0);
          if (due) EXPECT_TRUE(std::find(ends.begin(), ends.end(), it) != ends.end()) << what << ": iteration " << it;
        }
        if (longest > 1 && watch == 0 && snap == 0) EXPECT_LT(ends.size(), size_t(total - first)) << what;
      }
}

namespace {
// A CPU task that notes the worker it ran on.
void note_worker(void*[], void* arg) { *static_cast<int*>(arg) = starpu_worker_get_id(); }
}  // namespace

// A parked CPU worker (tasks/park.hpp) sleeps through the scope while the other runs every task
// submitted meanwhile (none restricted to it: the scope's context keeps them away), its sleep is
// not counted as work, and once the scope ends it runs tasks again.
// Under each policy family (StarPU sets up the parked scope's context with the initial context's
// policy: dmdasd overflowed its priority count and dmda divided by zero when given a range).
class Park : public ::testing::TestWithParam<const char*> {};
INSTANTIATE_TEST_SUITE_P(Policies, Park, ::testing::Values("dmda", "dmdas", "dmdasd", "lws", "eager", "modular-heft"));

TEST_P(Park, ParkedWorkerSleepsUntilReleasedAndCountsAsIdle) {
  Runtime rt(GetParam(), 2, 0);
  const std::vector<int> cpus = ParkedCpus::cpu_workers();
  ASSERT_EQ(cpus.size(), 2u);
  starpu_codelet cl{};
  cl.cpu_funcs[0] = note_worker;
  cl.nbuffers = 0;
  cl.name = "note_worker";
  std::vector<int> ran(24, -1);
  auto submit = [&](int i, int on) {
    starpu_task* t = starpu_task_create();
    t->cl = &cl;
    t->cl_arg = &ran[i];
    t->detach = 0;
    if (on >= 0) {  // in the initial context, the one the worker belongs to
      t->execute_on_a_specific_worker = 1;
      t->workerid = unsigned(on);
      t->sched_ctx = 0;
    }
    EXPECT_EQ(starpu_task_submit(t), 0);
    return t;
  };
  profile::start(false);
  starpu_task* given = nullptr;
  {
    const ParkedCpus parked({cpus[0]});
    EXPECT_EQ(parked.count(), 1);
    std::vector<starpu_task*> tasks;
    for (int i = 0; i < 20; ++i) tasks.push_back(submit(i, -1));
    for (starpu_task* t : tasks) ASSERT_EQ(starpu_task_wait(t), 0);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(ran[i], cpus[1]) << "task " << i;
    // Held by its park task meanwhile: a task given to it waits for the scope's end.
    given = submit(20, cpus[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(ran[20], -1) << "a parked worker ran a task";
  }
  ASSERT_EQ(starpu_task_wait(given), 0);
  EXPECT_EQ(starpu_sched_ctx_get_context(), unsigned(STARPU_NMAX_SCHED_CTXS)) << "the thread's context stays set";
  EXPECT_EQ(ran[20], cpus[0]);
  const RunProfile p = profile::collect();
  for (const WorkerStats& w : p.workers)
    if (w.id == cpus[0]) {
      EXPECT_EQ(w.tasks, 1) << "the park task is counted as a task";
      EXPECT_LT(w.executing_seconds, 0.05) << "its 0.1 s asleep is counted as work";
    }
  // A scope with no worker, or every worker, parks none.
  const ParkedCpus none({});
  EXPECT_EQ(none.count(), 0);
  const ParkedCpus all(cpus);
  EXPECT_EQ(all.count(), 0);
  ASSERT_EQ(starpu_task_wait(submit(21, cpus[0])), 0);
  EXPECT_EQ(ran[21], cpus[0]);
}
