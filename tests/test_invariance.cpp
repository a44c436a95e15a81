// The seismograms do not depend on how the domain is cut or how StarPU schedules the tasks:
// bitwise identical for 1x1, 2x3 and 4x4 blocks and across schedulers.
#include <gtest/gtest.h>

#include <sched.h>

#include <cstdlib>
#include <cstring>

#include "helpers.hpp"
#include "partition/decomposition.hpp"
#include "physics/pml.hpp"
#include "tasks/float_mode.hpp"

using namespace ondes;

namespace {

// Free surface, PML, a force and a moment tensor, stations on and near block edges.
Case small_case() {
  Case c = test::cube(40, 100, 4000, 2300, 2500, 0.008, 120, 6, true);
  c.grid.nz = 24;
  test::add_force_and_moment(c, {2000, 1960, 800} /* on a block edge of 2x3 and 4x4 */, {1230, 2710, 1150});
  c.stations = {test::station("A", 1000, 1000, 0), test::station("B", 2000, 2000, 0),
                test::station("C", 2950, 1330, 350), test::station("D", 1010, 2990, 1200),
                test::station("E", 3000, 3000, 0)};
  return c;
}

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct Layout {
  int nbx, nby;
  const char* scheduler;
};
// Every layout, under its scheduler, gives the reference's bits; `what` ends the failure message.
void expect_same_over(Case c, const std::vector<float>& reference, std::initializer_list<Layout> layouts,
                      const std::string& what = "") {
  for (const Layout& l : layouts) {
    c.run.set_blocks(l.nbx, l.nby);
    
    EXPECT_TRUE(bitwise_equal(test::run(c, l.scheduler), reference))
        << l.nbx << "x" << l.nby << " under " << l.scheduler << what;
  }
}

double peak(const std::vector<float>& a) {
  double p = 0;
  for (float x : a) p = std::max(p, double(std::abs(x)));
  return p;
}

}  // namespace

TEST(Invariance, SameSeismogramsForAnyBlockLayout) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  Case c = small_case();
  const auto reference = test::run(c);
  ASSERT_GT(peak(reference), 0.0) << "the reference run recorded nothing";
  for (auto [nbx, nby] : {std::pair{2, 3}, std::pair{4, 4}, std::pair{3, 1}}) {
    c.run.set_blocks(nbx, nby);
    
    EXPECT_TRUE(bitwise_equal(test::run(c), reference)) << nbx << "x" << nby << " blocks differ from 1x1";
  }
  c.run.balance = Balance::Even;  // the default cuts (balance pml) put the faces' blocks narrower: both kinds
  EXPECT_TRUE(bitwise_equal(test::run(c), reference)) << "3x1 even blocks differ from 1x1";
}

// run.balance = "pml" (the default) cuts the grid where each block gets the same work, PML cells
// counted at their cost: on absorbing.toml's proportions (12-cell layers all round), blocks at the
// faces are narrower and the blocks' work, summed cell by cell, is within one slice of equal, where
// equal cuts leave the face blocks far heavier. And "even" still cuts evenly.
TEST(Balance, PmlCutsEqualiseTheBlocksWork) {
  Case c = test::cube(180, 20, 2000, 1000, 1800, 0.003, 10, 12, false);
  c.grid.nz = 60;
  const PmlRegion region = PmlRegion::of(c);
  auto work = [&](const BlockInfo& b) {  // cell by cell, independently of slice_costs
    double w = 0;
    for (int k = 0; k < c.grid.nz; ++k)
      for (int j = b.y0; j < b.y0 + b.shape.ny; ++j)
        for (int i = b.x0; i < b.x0 + b.shape.nx; ++i)
          w += 1 + kDampedAxisCost * ((i < region.lo(0) || i >= region.hi(0)) + (j < region.lo(1) || j >= region.hi(1)) +
                                      (k < region.lo(2) || k >= region.hi(2)));
    return w;
  };
  auto spread = [&](const Decomposition& d) {
    double least = 1e300, most = 0;
    for (const BlockInfo& b : d.blocks) least = std::min(least, work(b)), most = std::max(most, work(b));
    return std::pair{least, most};
  };
  c.run.set_blocks(1, 8);
  const Decomposition balanced = decompose(c);
  ASSERT_EQ(balanced.blocks.size(), 8u);
  EXPECT_LT(balanced.blocks[0].shape.ny, balanced.blocks[3].shape.ny) << "a face block, thick with PML, is narrower";
  const double slice = 180.0 * 60 * (1 + 3 * kDampedAxisCost);  // the most one row of cells can cost
  const auto [least, most] = spread(balanced);
  EXPECT_LT(most - least, slice) << "balanced blocks' work from " << least << " to " << most;
  c.run.balance = Balance::Even;
  const Decomposition even = decompose(c);
  for (const BlockInfo& b : even.blocks) EXPECT_NEAR(b.shape.ny, 180 / 8, 1);
  const auto [even_least, even_most] = spread(even);
  EXPECT_GT(even_most - even_least, 2 * slice) << "even cuts: the face blocks carry the PML's extra work";
}

// Edge strips (run.edge_strip) are blocks of their own, computed at a higher priority where a
// neighbour has another owner; dmdas sorts by priority. Still the same seismograms, and the strips are
// there: 2 x 3 blocks with 5-cell strips make 4 x 7.
TEST(Invariance, SameSeismogramsWithEdgeStrips) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  Case c = small_case();
  const auto reference = test::run(c);
  c.run.set_blocks(2, 3), c.run.edge_strip = 5;
  const Decomposition d = decompose(c);
  ASSERT_EQ(d.nbx, 4);
  ASSERT_EQ(d.nby, 7);
  EXPECT_EQ(d.blocks[1].shape.nx, 5) << "the strip left of the cut at x = 20";
  EXPECT_EQ(d.blocks[1].x0, 15);
  EXPECT_TRUE(bitwise_equal(test::run(c, "dmdas"), reference)) << "2x3 blocks with edge strips differ from 1x1";
}

TEST(Invariance, SameSeismogramsUnderEverySchedulerTried) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  Case c = small_case();
  c.run.set_blocks(2, 3);
  
  const auto reference = test::run(c, "eager");
  ASSERT_GT(peak(reference), 0.0);
  for (const char* sched : {"lws", "dmda", "ws", "prio"})
    EXPECT_TRUE(bitwise_equal(test::run(c, sched), reference)) << sched << " differs from eager";
}

// The same for an attenuating medium of two layers with different Q (issue 17): the anelastic
// memory variables do not depend on the layout or the scheduler either.
// Both schemes: every mechanism in every cell, and coarse-grained (whose cube cells follow the
// global indices: blocks of 2x3 and 3x1 start at odd x and y).
TEST(Invariance, AttenuatingMediumSameForAnyLayoutAndScheduler) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  Case elastic = small_case();
  elastic.medium.layers = {{0, 4000, 2300, 2500}, {900, 5000, 2900, 2700}};
  const auto elastic_run = test::run(elastic);
  std::vector<float> every_cell;
  for (bool coarse : {false, true}) {
    Case c = small_case();
    c.medium.layers = {{0, 4000, 2300, 2500, 60, 30}, {900, 5000, 2900, 2700, 200, 100}};
    c.medium.q_band = {0.5, 10};
    c.medium.q_reference = 2;
    c.medium.q_coarse_grained = coarse;
    const auto reference = test::run(c);
    ASSERT_GT(peak(reference), 0.0);
    EXPECT_FALSE(bitwise_equal(elastic_run, reference)) << "attenuation changed nothing";
    if (coarse) EXPECT_FALSE(bitwise_equal(every_cell, reference)) << "the scheme changed nothing";
    every_cell = reference;
    expect_same_over(c, reference, {{2, 3, "lws"}, {4, 4, "dmda"}, {3, 1, "eager"}}, coarse ? ", coarse-grained" : "");
  }
}

// Q varying in x, y and z from a 3D model (a class per cell): the same for any layout and scheduler,
// every-cell and coarse-grained.
TEST(Invariance, AttenuatingModelSameForAnyLayoutAndScheduler) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  for (bool coarse : {false, true}) {
    Case c = small_case();
    test::use_attenuating_model(c);
    c.medium.q_coarse_grained = coarse;
    const auto reference = test::run(c);
    ASSERT_GT(peak(reference), 0.0);
    expect_same_over(c, reference, {{2, 3, "lws"}, {3, 1, "eager"}}, coarse ? ", coarse-grained" : "");
  }
}

// Ondes3D's q0 damping in two layers (a factor per layer, vz at the half depth): the same for any
// layout and scheduler, and different from the undamped run.
TEST(Invariance, DampedMediumSameForAnyLayoutAndScheduler) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  Case c = small_case();
  c.medium.layers = {{0, 4000, 2300, 2500}, {900, 5000, 2900, 2700}};
  const auto undamped = test::run(c);
  c.medium.layers[0].q0 = 20;
  c.medium.layers[1].q0 = 60;
  c.medium.q0_frequency = 2;
  const auto reference = test::run(c);
  ASSERT_GT(peak(reference), 0.0);
  EXPECT_FALSE(bitwise_equal(undamped, reference)) << "q0 changed nothing";
  expect_same_over(c, reference, {{2, 3, "lws"}, {4, 4, "dmda"}, {3, 1, "eager"}});
}

// Each block's tasks kept on one worker (Simulation::pin_blocks, what a multi-GPU process does
// with one group per GPU): the same seismograms, and the run ends (StarPU keeps the address of each
// task's worker bitmap: a bitmap that dies before its task runs can leave the task unschedulable).
TEST(Invariance, TasksPinnedToWorkersGiveTheSameSeismograms) {
  if (test::cuda_only()) GTEST_SKIP() << "pins to CPU workers";
  Case c = small_case();
  c.run.set_blocks(2, 2);
  
  const auto reference = test::run(c, "dmda", 2, 0);
  std::vector<float> pinned;
  {
    Runtime rt("dmda", 2, 0);
    // The plan of a process with two GPUs (tiles them over the blocks), their workers CPU ones here.
    Simulation sim(c, plan_run(c, Launch{1, 2, 0, 2}), c.time.steps);
    ASSERT_EQ(sim.pin_blocks({{0}, {1}}), 4);
    sim.advance(c.time.steps);
    pinned = sim.seismograms();
  }
  EXPECT_TRUE(bitwise_equal(pinned, reference));
}

// Ondes3D's geological nodes (a .prm's model): the CPU rows read a plane whose cells are all of one
// node class by that class (NodeClassPlane), the others by averaging the nodes; whether a plane is
// of one class depends on the block's extent. A step in the rock's depth between x < 20 and x >= 20
// leaves planes 8 to 12 of two classes on one block and of one on each of 2x1's: the same bits.
TEST(Invariance, Ondes3dNodesSameForAnyLayout) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  Case c = small_case();
  test::set_ondes3d_nodes(c, [](int i, int, int k) {
    return k < (i < 20 ? 8 : 12) ? Layer{0, 3500, 2000, 2300} : Layer{0, 4000, 2300, 2500};
  });
  ASSERT_TRUE(c.medium.ondes3d_nodes());
  const auto reference = test::run(c);
  ASSERT_GT(peak(reference), 0.0);
  expect_same_over(c, reference, {{2, 1, "lws"}, {2, 3, "dmda"}, {4, 4, "eager"}}, ", Ondes3D's nodes");
}

// Two simulations alive in one process, advanced in turn (`ondes3d race`, app/race.hpp): each
// computes what it computes alone, so the rates a race measures are those of the real runs.
TEST(Invariance, SimulationsAdvancedInTurnGiveTheirOwnBits) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  Case a = small_case(), b = small_case();
  a.run.set_blocks(2, 3);
  b.medium.layers = {{0, 4000, 2300, 2500, 60, 30}};  // an attenuating one beside it
  b.medium.q_band = {0.5, 10};
  b.medium.q_reference = 2;
  const auto alone_a = test::run(a), alone_b = test::run(b);
  std::vector<float> turn_a, turn_b;
  {
    Runtime rt("", test::cuda_only() ? 0 : -1, -1);
    Simulation sa(a, a.time.steps), sb(b, b.time.steps);
    for (int done = 0; done < a.time.steps; done += 10) sa.advance(10), sb.advance(10);
    turn_a = sa.seismograms(), turn_b = sb.seismograms();
  }
  EXPECT_TRUE(bitwise_equal(turn_a, alone_a));
  EXPECT_TRUE(bitwise_equal(turn_b, alone_b));
  EXPECT_FALSE(bitwise_equal(alone_a, alone_b)) << "the attenuating case should differ from the elastic one";
}

// Issue 60: the chained windows of the multi-GPU default (tasks/chain.hpp) played on CPU workers
// (ExecutionPolicy::chain_on_cpus): the halo channels and their counters in main memory, ordered by
// the code that orders them on the GPUs. On 2 and 4 blocks, with a force on a block edge, stations
// across blocks, an attenuating medium and the watchdog ending windows: bitwise the task graph's.
// A run stopped after a window and restored from its checkpoint primes the channels again (its
// first window saves the stress edges and announces them from half step 2 first, not 0).
TEST(Invariance, ChainedWindowsOnCpusGiveTheTaskGraphsBits) {
  if (test::cuda_only()) GTEST_SKIP() << "CPU workers";
  Case c = small_case();
  c.medium.layers = {{0, 4000, 2300, 2500, 60, 30}, {900, 5000, 2900, 2700, 200, 100}};
  c.medium.q_band = {0.5, 10};
  c.run.watchdog_every = 21;  // a window of 5 before each measure (8 a window)
  const std::string checkpoint = (std::filesystem::temp_directory_path() /
                                  ("chain_on_cpus_" + std::to_string(getpid()) + ".h5")).string();
  for (auto [nbx, nby] : {std::pair{2, 1}, std::pair{2, 2}}) {
    c.run.set_blocks(nbx, nby);
    c.tuning.chain_on_cpus = false;
    const auto reference = test::run(c, "", 4, 0);
    ASSERT_GT(peak(reference), 0.0);
    c.tuning.chain_on_cpus = true;
    const int first = 37;
    {
      Runtime rt("", 4, 0);
      Simulation sim(c, plan_run(c, Simulation::current_launch()), c.time.steps);
      ASSERT_EQ(sim.chained_blocks(), nbx * nby) << nbx << "x" << nby;
      ASSERT_EQ(sim.advance(first), first);
      sim.save_checkpoint(checkpoint);
      ASSERT_EQ(sim.advance(c.time.steps - first), c.time.steps - first);
      EXPECT_TRUE(bitwise_equal(sim.seismograms(), reference)) << nbx << "x" << nby << " chained on CPU workers";
    }
    Runtime rt("", 4, 0);
    Simulation restored(c, plan_run(c, Simulation::current_launch()), c.time.steps);
    restored.restore_checkpoint(checkpoint);
    ASSERT_EQ(restored.chained_blocks(), nbx * nby);
    ASSERT_EQ(restored.advance(c.time.steps - first), c.time.steps - first);
    EXPECT_TRUE(bitwise_equal(restored.seismograms(), reference)) << nbx << "x" << nby << " restored";
  }
  std::filesystem::remove(checkpoint);
  // Too few CPU workers for a block each: the task graph, not a stall.
  c.run.set_blocks(2, 2);
  Runtime rt("", 3, 0);
  Simulation sim(c, plan_run(c, Simulation::current_launch()), c.time.steps);
  EXPECT_EQ(sim.chained_blocks(), 0);
}

// Every CPU worker flushes subnormals to zero (and reads them as zero), as the CUDA kernels do:
// both round alike, and no worker slows down on the subnormal tail of a wavefront.
TEST(FloatMode, EveryCpuWorkerFlushesSubnormals) {
  Runtime rt("", -1, 0);
  ASSERT_GT(rt.cpu_workers(), 0);
  EXPECT_EQ(cpu_workers_flushing_subnormals(), rt.cpu_workers());
}

// Left to count the CPU workers itself, StarPU leaves one core to the thread that submits the tasks
// from 8 usable cores on (engine/runtime.hpp: cores_for_submission); a count the user gives is kept.
TEST(Runtime, DefaultWorkersLeaveACoreToTheSubmittingThreadFromEightCores) {
  EXPECT_EQ(cores_for_submission(2), 0);
  EXPECT_EQ(cores_for_submission(7), 0);
  EXPECT_EQ(cores_for_submission(8), 1);
  EXPECT_EQ(cores_for_submission(16), 1);
  if (std::getenv("STARPU_NCPU")) GTEST_SKIP() << "STARPU_NCPU is set";
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  const int cores = CPU_COUNT(&set);
  {
    Runtime rt("", -1, 0);
    EXPECT_EQ(rt.cpu_workers(), cores - cores_for_submission(cores)) << cores << " usable cores";
  }
  Runtime given("", cores, 0);
  EXPECT_EQ(given.cpu_workers(), cores);
}
