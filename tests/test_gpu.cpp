// The CUDA codelets against the CPU ones: CUDA-only workers give the CPU-only seismograms bit for
// bit (both round every operation alike: same per-cell code, no FMA contraction), for several block
// layouts, and mixed CPU+CUDA runs under dmda/dmdas/eager too.
// Skips, with a message, where no CUDA worker exists (CI, or StarPU built without CUDA).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "h5read.hpp"
#include "helpers.hpp"
#include "io/case/tuning.hpp"
#include "physics/source.hpp"

namespace fs = std::filesystem;
using namespace ondes;

namespace {

Case gpu_case() {
  Case c = test::cube(48, 100, 4000, 2300, 2500, 0.008, 150, 8, true);
  c.grid.nz = 32;
  test::add_force_and_moment(c, {2400, 2350, 900}, {1530, 3010, 1250});
  c.stations = {test::station("A", 1200, 1200, 0), test::station("B", 2400, 2400, 0),
                test::station("C", 3550, 1330, 350), test::station("D", 1210, 3590, 1200)};
  return c;
}

// Asserts that every sample of `b` has the bits of the same sample of `a`, and prints how far apart
// they are otherwise (relative L2), for the log of the GPU check.
void expect_bitwise(const std::vector<float>& a, const std::vector<float>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  ASSERT_FALSE(a.empty()) << what;
  size_t differing = 0;
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    differing += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
    num += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    den += double(a[i]) * a[i];
  }
  std::printf("%s: %zu of %zu samples differ, relative L2 difference %.3g\n", what.c_str(), differing, a.size(),
              std::sqrt(num / den));
  EXPECT_GT(den, 0) << what << ": nothing recorded";
  EXPECT_EQ(differing, 0u) << what;
}

// The GPUs a runtime of CUDA workers only finds (0 without StarPU's CUDA).
int gpu_count() {
  try {
    Runtime rt("", 0, -1);
    return rt.cuda_devices();
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

TEST(Gpu, CudaOnlyMatchesCpuOnly) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  // 4x3: every block's march reads its x halo from the neighbours' buffers (codelets/edges.hpp
  // XHalo), the edge blocks' on one face only; 2x4: one x face a block, both y faces from the ghost
  // copies; 5x2 and 2x5: the edge blocks' boxes are one cell wide (tall), so their PML cells read
  // those ghosts too and the ghost copies fill them; 1x3: no x neighbour, the edges saved by a copy
  // after the update (tasks/compute.hpp edges_apart), the others' by their marches.
  for (auto [nbx, nby] : {std::pair{1, 1}, std::pair{2, 2}, std::pair{4, 3}, std::pair{2, 4}, std::pair{5, 2},
                          std::pair{2, 5}, std::pair{1, 3}}) {
    c.run.set_blocks(nbx, nby);
    
    const auto cpu = test::run(c, "", -1, 0);
    const auto gpu = test::run(c, "", 0, -1);
    expect_bitwise(cpu, gpu, "blocks " + std::to_string(nbx) + "x" + std::to_string(nby) + ", CUDA-only vs CPU-only");
  }
}

// Every value of the execution policy ([tuning], --tune) that acts on CUDA workers gives the CPU's
// bits: march geometries (tile rows, planes, register bound, 3D grid or bands), where edges are
// saved, the lone block's windows or its three tasks, stations sampled by the stress tasks or not,
// halos between GPUs written by peer writes or copied (with several GPUs present).
TEST(Gpu, TuningCudaMatchesCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  const std::vector<std::string> tunings = {"march=8x2x3",        "march=16x4x2",     "march=8x4x4x0",
                                            "march=8x1x4x-1",     "march=8x0x4x16",   "edge_saving=apart",
                                            "edge_saving=update", "lone_block_step=false", "stress_station_slots=0",
                                            "peer_halos=false"};
  for (auto [nbx, nby] : {std::pair{1, 1}, std::pair{4, 3}}) {
    c.run.set_blocks(nbx, nby);
    
    c.tuning = ExecutionPolicy{};
    const auto cpu = test::run(c, "", -1, 0);
    for (const std::string& t : tunings) {
      c.tuning = ExecutionPolicy{};
      apply_tuning(c.tuning, t, "test");
      const auto gpu = test::run(c, "", 0, -1);
      expect_bitwise(cpu, gpu, fmt::format("blocks {}x{}, CUDA-only with {} vs CPU-only", nbx, nby, t));
    }
  }
}

// Chained steps (tasks/chain.hpp), a block on each GPU, blocks cut along y (y faces by ghost
// copies) and along x (the march reads its x halo from the channel), the run in two calls (a second
// first window, which saves the stress edges again): with stations, windows of 1, 3 and 8
// iterations give the CPU's seismograms bit for bit; without stations, windows of 2, 8 and 64 iterations, cut short or not by the watchdog's
// measures every 5 iterations, leave the fields the CPU leaves (their energy, to the last bit).
TEST(Gpu, ChainedStepsMatchCpu) {
  const int gpus = gpu_count();
  if (gpus < 2) GTEST_SKIP() << "fewer than two GPUs";
  auto chained = [](const Case& c, int expect, const std::string& what, double* energy) {
    Runtime rt("", 0, -1);
    Simulation sim(c, c.time.steps);
    EXPECT_EQ(sim.chained_blocks(), expect) << what;
    sim.advance(37);
    sim.advance(c.time.steps - 37);
    if (energy) *energy = sim.energy();
    return sim.seismograms();
  };
  auto cpu_energy = [](const Case& c) {
    Runtime rt("", -1, 0);
    Simulation sim(c, c.time.steps);
    sim.advance(c.time.steps);
    return sim.energy();
  };
  for (auto [nbx, nby] : {std::pair{1, gpus}, std::pair{gpus, 1}}) {
    Case c = gpu_case();
    c.run.set_blocks(nbx, nby);
    
    c.run.watchdog_every = 0;
    const std::string layout = fmt::format("blocks {}x{}", nbx, nby);
    const auto cpu = test::run(c, "", -1, 0);
    for (int watch : {0, 5}) {
      c.run.watchdog_every = watch;
      c.tuning.chain_steps = 1;
      const std::string what = fmt::format("{}, chain_steps 1, watchdog every {}", layout, watch);
      expect_bitwise(cpu, chained(c, nbx * nby, what, nullptr), what + " vs CPU-only");
    }
    for (int k : {3, 8}) {
      c.tuning.chain_steps = k;
      const std::string what = fmt::format("{}, chain_steps {} with stations", layout, k);
      expect_bitwise(cpu, chained(c, nbx * nby, what, nullptr), what + " vs CPU-only");
    }
    c.stations.clear();
    c.run.watchdog_every = 0;
    c.tuning = ExecutionPolicy{};
    const double reference = cpu_energy(c);
    EXPECT_GT(reference, 0) << layout;
    for (int k : {2, 8, 64})
      for (int watch : {0, 5}) {
        c.tuning.chain_steps = k;
        c.run.watchdog_every = watch;
        const std::string what = fmt::format("{}, no stations, chain_steps {}, watchdog every {}", layout, k, watch);
        double e = 0;
        chained(c, nbx * nby, what, &e);
        EXPECT_EQ(e, reference) << what << ": energy of the fields against the CPU run's";
      }
    // Windows that end where a snapshot frame is due, each frame's planes extracted on their
    // blocks' GPUs while the next windows wait for them (tasks/snapshot.hpp).
    c.tuning.chain_steps = 8;
    c.run.watchdog_every = 0;
    c.snapshots.every = 6;
    c.snapshots.pgv = false;
    c.snapshots.planes = {{2, 0, "z=0"}, {0, 31, "x=3100"}};
    c.snapshots.file = (fs::temp_directory_path() / fmt::format("ondes_chain_{}.h5", ::getpid())).string();
    const std::string what = layout + ", no stations, chain_steps 8, snapshots every 6";
    double e = 0;
    chained(c, nbx * nby, what, &e);
    EXPECT_EQ(e, reference) << what << ": energy of the fields against the CPU run's";
    fs::remove(c.snapshots.file);
    fs::remove(fs::path(c.snapshots.file).replace_extension(".xdmf"));
  }
}

// Chained windows with and without the second stream a block (chain_side_stream, tasks/chain.cpp:
// the PML cells beside the march, the station samples beside the stress update), blocks cut along
// y, with stations, elastic and attenuating (the anelastic cells and PML cells, each with their
// memory variables, on the two streams): the CPU's seismograms bit for bit. (ChainedStepsMatchCpu
// runs the default, the second stream, over more windows and layouts.)
TEST(Gpu, SideStreamWindowsMatchCpu) {
  const int gpus = gpu_count();
  if (gpus < 2) GTEST_SKIP() << "fewer than two GPUs";
  for (bool attenuating : {false, true}) {
    Case c = gpu_case();
    c.run.set_blocks(c.run.nbx, gpus);
    if (attenuating) {
      c.medium.layers = {{0, 4000, 2300, 2500, 40, 20}, {1200, 5000, 2900, 2700, 150, 80}};
      c.medium.q_band = {0.5, 10};
      c.medium.q_reference = 2;
    }
    const auto cpu = test::run(c, "", -1, 0);
    for (int k : {1, 8})
      for (bool side : {true, false}) {
        c.tuning.chain_steps = k;
        c.tuning.chain_side_stream = side;
        const std::string what = fmt::format("blocks 1x{}, {}, chain_steps {}, chain_side_stream {}", gpus,
                                             attenuating ? "attenuating" : "elastic", k, side);
        Runtime rt("", 0, -1);
        Simulation sim(c, c.time.steps);
        EXPECT_EQ(sim.chained_blocks(), gpus) << what;
        EXPECT_EQ(sim.side_stream_blocks(), side ? gpus : 0) << what;
        sim.advance(c.time.steps);
        expect_bitwise(cpu, sim.seismograms(), what + " vs CPU-only");
      }
  }
}

TEST(Gpu, MixedWorkersMatchCpuOnly) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  c.run.set_blocks(4, 4);
  
  c.run.cpu_compute = Placement::Any;  // let CPU workers compute blocks too (auto keeps them on the GPU)
  const auto cpu = test::run(c, "", -1, 0);
  for (const char* sched : {"dmda", "dmdas", "eager"}) {
    const auto mixed = test::run(c, sched, -1, -1);
    expect_bitwise(cpu, mixed, std::string(sched) + " with CPU and CUDA workers vs CPU-only");
  }
}

// An attenuating medium of two layers (issue 17): the memory variables' update, on CUDA threads
// and in CPU rows, in the interior kernel and the PML one, rounds alike. Q in 3, 4 and 5 mechanisms,
// and coarse-grained (CPU rows select between two cube cells, CUDA threads index theirs; 3x3 blocks
// start at odd x and y).
TEST(Gpu, AttenuatingCudaMatchesCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  c.medium.layers = {{0, 4000, 2300, 2500, 40, 20}, {1200, 5000, 2900, 2700, 150, 80}};
  for (auto [band, blocks] : {std::pair{std::array<double, 2>{1, 8}, 1}, std::pair{std::array<double, 2>{0.5, 10}, 2},
                              std::pair{std::array<double, 2>{0.1, 10}, 3}}) {
    c.medium.q_band = band;
    c.medium.q_reference = 2;
    c.run.set_blocks(blocks, blocks);
    const auto cpu = test::run(c, "", -1, 0);
    const auto gpu = test::run(c, "", 0, -1);
    expect_bitwise(cpu, gpu, "attenuating over [" + std::to_string(band[0]) + ", " + std::to_string(band[1]) +
                                 "] Hz, blocks " + std::to_string(blocks) + "x" + std::to_string(blocks) +
                                 ", CUDA vs CPU");
  }
  c.medium.q_coarse_grained = true;
  for (int blocks : {1, 3}) {
    c.run.set_blocks(blocks, blocks);
    expect_bitwise(test::run(c, "", -1, 0), test::run(c, "", 0, -1),
                   "coarse-grained, blocks " + std::to_string(blocks) + "x" + std::to_string(blocks) + ", CUDA vs CPU");
  }
}

// Q from a 3D model (a class per cell), every-cell and coarse-grained: the CUDA threads read their
// cell's class as the CPU rows gather theirs.
TEST(Gpu, AttenuatingModelCudaMatchesCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  for (bool coarse : {false, true}) {
    Case c = gpu_case();
    test::use_attenuating_model(c);
    c.medium.q_coarse_grained = coarse;
    c.run.set_blocks(2, 2);
    expect_bitwise(test::run(c, "", -1, 0), test::run(c, "", 0, -1),
                   std::string("Q from a 3D model") + (coarse ? ", coarse-grained" : "") + ", 2x2 blocks, CUDA vs CPU");
  }
}

// Material read two ways by the CUDA kernels: once a plane where every plane of a block is uniform
// (homogeneous and layered media: the other tests), from the arrays at every cell otherwise. An
// elastic 3D model varying along x, y and z takes the second path in the interior and PML kernels.
TEST(Gpu, HeterogeneousModelCudaMatchesCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  test::use_heterogeneous_model(c);
  for (int blocks : {1, 2}) {
    c.run.set_blocks(blocks, blocks);
    expect_bitwise(test::run(c, "", -1, 0), test::run(c, "", 0, -1),
                   "3D model, blocks " + std::to_string(blocks) + "x" + std::to_string(blocks) + ", CUDA vs CPU");
  }
}

// Ondes3D's q0 damping of two layers: the velocity kernels (interior and PML) damp as the CPU rows.
TEST(Gpu, DampedCudaMatchesCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  c.medium.layers = {{0, 4000, 2300, 2500}, {1200, 5000, 2900, 2700}};
  c.medium.layers[0].q0 = 15;
  c.medium.layers[1].q0 = 50;
  c.medium.q0_frequency = 2;
  c.run.set_blocks(2, 2);
  expect_bitwise(test::run(c, "", -1, 0), test::run(c, "", 0, -1), "q0 damping, 2x2 blocks, CUDA vs CPU");
}

// Water and vacuum (issue 18): 300 m of vacuum, 400 m of water, then rock, under the free surface
// (a vacuum surface folds nothing); buoyancy 0 inside vacuum, half the mass at its edge.
TEST(Gpu, WaterAndVacuumCudaMatchCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  c.medium.layers = {{0, 0, 0, 1000}, {250, 1500, 0, 1030}, {650, 4000, 2300, 2500}};
  for (Station& s : c.stations) s.position[2] = std::max(s.position[2], 400.0);  // in the water or below
  c.run.set_blocks(2, 2);
  expect_bitwise(test::run(c, "", -1, 0), test::run(c, "", 0, -1), "water and vacuum, 2x2 blocks, CUDA vs CPU");
}

// Ondes3D's geological nodes (issue 57): a categorical model of nodes, vacuum (with its density)
// over a staircase ground, water and two rocks, averaged at each field point as Ondes3D averages
// them, and its C-PML's coefficients per cell: the node march and the PML kernels' node form
// (codelets/march.hpp, pml_cells.hpp) as the CPU rows, on 1x1 and 2x2 blocks.
// A categorical model of nodes: vacuum over a staircase ground, water and two rocks, the planes
// from z = 21 on of one rock (the CPU rows read them as planes of one node class: NodeClassPlane);
// with Q, each material its own (Qp, Qs).
Case geological_case(bool attenuating) {
  Case c = gpu_case();
  test::set_ondes3d_nodes(
      c,
      [](int i, int j, int k) {
        const int ground = 2 + (i + j) / 16;
        return k < ground                  ? Layer{0, 0, 0, 1730, 1000, 1000}
               : i < 12 && k < ground + 3 ? Layer{0, 1500, 0, 1030, 500, 300}
               : j > 30 && k < 20          ? Layer{0, 3500, 2000, 2300, 60, 30}
                                           : Layer{0, 4000, 2300, 2500, 200, 90};
      },
      attenuating);
  for (Station& s : c.stations) s.position[2] = std::max(s.position[2], 800.0);  // under the ground
  return c;
}

// Ondes3D's geological nodes (issue 57): averaged at each field point as Ondes3D averages them,
// and its C-PML's coefficients per cell: the node march and the PML kernels' node form
// (codelets/march.hpp, pml_cells.hpp) as the CPU rows, on 1x1 and 2x2 blocks.
TEST(Gpu, Ondes3dGeologicalNodesCudaMatchCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = geological_case(false);
  for (int blocks : {1, 2}) {
    c.run.set_blocks(blocks, blocks);
    expect_bitwise(test::run(c, "", -1, 0), test::run(c, "", 0, -1),
                   "Ondes3D's geological nodes, blocks " + std::to_string(blocks) + "x" + std::to_string(blocks) +
                       ", CUDA vs CPU");
  }
}

// Ondes3D's Day and Bradley on those nodes (issue 58): the stress cells and PML cells' node form
// with memory, each stress point's Qs from its corner classes, the misplaced yz drive in the
// column's own cell (codelets/day_bradley.hpp), as the CPU rows, on 1x1 and 2x2 blocks.
TEST(Gpu, Ondes3dGeologicalDayBradleyCudaMatchCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = geological_case(true);
  DayBradley& d = c.medium.day_bradley;
  d.tau_min = 0.01, d.tau_max = 2, d.w0 = 6.28;
  d.origin = {-7, -8, c.grid.nz};
  d.yz_levels = c.grid.nz + 12, d.yz_skew = 9 - d.yz_levels;  // the driven plane z = nz - 4 - x
  c.medium.q_band = {1 / (2 * M_PI * d.tau_max), 1 / (2 * M_PI * d.tau_min)};
  c.medium.q_reference = d.w0 / (2 * M_PI);
  for (int blocks : {1, 2}) {
    c.run.set_blocks(blocks, blocks);
    expect_bitwise(test::run(c, "", -1, 0), test::run(c, "", 0, -1),
                   "Ondes3D's Day and Bradley on geological nodes, blocks " + std::to_string(blocks) + "x" +
                       std::to_string(blocks) + ", CUDA vs CPU");
  }
}

// Sampled time functions (Ondes3D's moment-rate histories) on a force and a moment tensor, with
// samples of their own: the CUDA source kernel interpolates them as the CPU loop does.
TEST(Gpu, SampledSourcesCudaMatchCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  for (size_t i = 0; i < c.sources.size(); ++i) {
    TimeFunction& f = c.sources[i].stf;
    f = TimeFunction{};
    f.kind = StfKind::Sampled;
    f.step = 0.013 + 0.004 * i;
    f.t0 = 0.05 * i;
    for (int k = 0; k < 60; ++k) f.samples.push_back(k < 30 ? k * (1.0 + i) : (60 - k) * 2.0);
    ASSERT_NE(normalise_samples(f), 0.0);
  }
  c.run.set_blocks(2, 2);
  expect_bitwise(test::run(c, "", -1, 0), test::run(c, "", 0, -1), "sampled time functions, 2x2 blocks, CUDA vs CPU");
}

// Ondes3D's files' numerics (issue 43) on CUDA: points given as Ondes3D's held moment-rate
// histories (its body forces on the velocity, off the grid's nodes so that all 8 corners take a
// share, one across the blocks' corner), and layers sampled as Ondes3D samples them (an interface
// half-way between levels: the z partners of codelets/stencil.hpp's PlaneAt at work), under one
// block (the uniform-plane march) and 2x2.
TEST(Gpu, Ondes3dSourcesAndLayersCudaMatchCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  c.medium.layers = {{0, 3500, 2000, 2300}, {1050, 4000, 2300, 2500}, {1430, 5000, 2800, 2600}};
  c.medium.layer_sampling = LayerSampling::Ondes3d;
  for (size_t i = 0; i < c.sources.size(); ++i) {
    Source& s = c.sources[i];
    s.kind = SourceKind::Moment;
    s.moment = double_couple(30 + 40.0 * i, 60, 100, 1e15);
    s.position = i == 0 ? std::array<double, 3>{2437, 2392, 1161} : std::array<double, 3>{1530, 3010, 1250};
    s.stf = TimeFunction{};
    s.stf.kind = StfKind::Held;
    s.stf.step = 0.01;  // against dt = 0.008: Ondes3D's ceil(l dt / step) skips and repeats samples
    for (int k = 0; k < 50; ++k) s.stf.samples.push_back(std::exp(-0.02 * (k - 20.0 - 3 * i) * (k - 20.0 - 3 * i)));
    ASSERT_NE(normalise_samples(s.stf), 0.0);
  }
  for (auto [nbx, nby] : {std::pair{1, 1}, std::pair{2, 2}}) {
    c.run.set_blocks(nbx, nby);
    expect_bitwise(test::run(c, "", -1, 0), test::run(c, "", 0, -1),
                   fmt::format("Ondes3D sources and layers, {}x{} blocks, CUDA vs CPU", nbx, nby));
  }
}

// Ondes3D's free surface (codelets/surface.hpp: the velocities above it, from the neighbours' halos
// and the previous step's values the blocks keep) and its C-PML profile, as .prm files get them:
// CUDA = CPU bitwise on one block and on layouts cut along x and along y (the march kernels read
// the x ghosts from the neighbours' buffers, the surface kernels too).
TEST(Gpu, Ondes3dSurfaceCudaMatchesCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  c.boundaries.surface = SurfaceScheme::Ondes3d;
  c.boundaries.pml_profile = PmlProfile::Ondes3d;
  c.medium.layers = {{0, 3500, 2000, 2300}, {1050, 4000, 2300, 2500}};
  c.medium.layer_sampling = LayerSampling::Ondes3d;
  c.run.set_blocks(1, 1);
  const auto one = test::run(c, "", 0, -1);
  for (auto [nbx, nby] : {std::pair{1, 1}, std::pair{1, 3}, std::pair{3, 1}}) {
    c.run.set_blocks(nbx, nby);
    const auto cuda = test::run(c, "", 0, -1);
    expect_bitwise(test::run(c, "", -1, 0), cuda, fmt::format("Ondes3D's surface, {}x{} blocks, CUDA vs CPU", nbx, nby));
    expect_bitwise(one, cuda, fmt::format("Ondes3D's surface, {}x{} blocks against 1x1, CUDA", nbx, nby));
  }
}

// Ondes3D's Kristek and Moczo (issue 58): the memory pass (C-PML memory peeked, the surface's
// folded zz drive, the misplaced xz tap) and the stress's sums over each point's neighbours, on
// layers with the surface and C-PML of a .prm, as the CPU loops.
TEST(Gpu, Ondes3dKristekMoczoCudaMatchesCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  c.boundaries.surface = SurfaceScheme::Ondes3d;
  c.boundaries.pml_profile = PmlProfile::Ondes3d;
  c.medium.layers = {{0, 3500, 2000, 2300, 40, 20}, {1050, 4000, 2300, 2500, 80, 40}};
  c.medium.layer_sampling = LayerSampling::Ondes3d;
  c.medium.kristek_moczo = {0.6, 60, {-3, 5, 1}};
  c.medium.q_band = {0.6 / (2 * M_PI), 60 / (2 * M_PI)};
  c.run.set_blocks(1, 1);
  const auto cpu = test::run(c, "", -1, 0);
  expect_bitwise(cpu, test::run(c, "", 0, -1), "Ondes3D's Kristek and Moczo, CUDA vs CPU");
  c.medium.kristek_moczo = {};
  c.medium.layers[0].qp = c.medium.layers[0].qs = c.medium.layers[1].qp = c.medium.layers[1].qs = 0;
  c.medium.q_band = {0, 0};
  const auto elastic = test::run(c, "", -1, 0);
  double num = 0, den = 0;
  for (size_t i = 0; i < cpu.size(); ++i) num += (double(cpu[i]) - elastic[i]) * (cpu[i] - elastic[i]), den += double(elastic[i]) * elastic[i];
  EXPECT_GT(std::sqrt(num / den), 1e-3) << "the attenuating run differs from the elastic one";
}

namespace {

// A fault of 40 x 30 points across the four blocks' corner, rupture spreading from one end.
Case fault_case() {
  Case c = gpu_case();
  c.sources.clear();
  for (int i = 0; i < 40; ++i)
    for (int k = 0; k < 30; ++k) {
      Source s;
      s.kind = SourceKind::Moment;
      s.position = {1500 + 50.0 * i, 2000 + 25.0 * i, 600 + 40.0 * k};
      s.moment = {0, 0, 0, 1e15 / 1200, 0, 0};
      s.stf = {StfKind::SmoothRamp, 0, 0.002 * i + 0.001 * k, 0.1};
      c.sources.push_back(s);
    }
  c.run.set_blocks(2, 2);
  return c;
}

// Runs the case and ends its snapshot file; returns the seismograms.
std::vector<float> run_with_snapshots(const Case& c, int ncpu, int ncuda) {
  Runtime rt("", ncpu, ncuda);
  Simulation sim(c, c.time.steps);
  sim.advance(c.time.steps);
  sim.finish_snapshots();
  return sim.seismograms();
}

}  // namespace

// 1200 point sources, many per block and several per field value: the CUDA kernel (a thread per
// run of points) against the CPU loop.
TEST(Gpu, FiniteFaultCudaMatchesCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  const Case c = fault_case();
  const auto cpu = test::run(c, "", -1, 0);
  const auto gpu = test::run(c, "", 0, -1);
  expect_bitwise(cpu, gpu, "finite fault of " + std::to_string(c.sources.size()) + " points, 2x2 blocks, CUDA vs CPU");
}

// Planes and the PGV map extracted by the CUDA codelets against the CPU ones.
TEST(Gpu, SnapshotsCudaMatchCpu) {
  if (!test::have_cuda_worker()) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  Case c = gpu_case();
  c.run.set_blocks(2, 3);
  c.snapshots.every = 50;
  c.snapshots.planes = {{2, 0, "z=0"}, {1, 20, "y=2000"}, {0, 31, "x=3100"}};
  const fs::path dir = fs::temp_directory_path() / ("ondes_gpu_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::map<std::string, std::string> files = {{"cpu", (dir / "cpu.h5").string()}, {"cuda", (dir / "cuda.h5").string()}};
  c.snapshots.file = files["cpu"];
  run_with_snapshots(c, -1, 0);
  c.snapshots.file = files["cuda"];
  run_with_snapshots(c, 0, -1);
  for (const std::string ds : {"/z0/00000099/norm", "/y20/00000149/vx", "/x31/00000049/vz", "/pgv/horizontal", "/pgv/norm"}) {
    expect_bitwise(test::read_floats(files["cpu"], ds), test::read_floats(files["cuda"], ds), "snapshot " + ds);
  }
  fs::remove_all(dir);
}
