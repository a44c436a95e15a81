// The C-PML absorbs: after the waves have left the physical domain, the energy left in it is a
// small fraction of its peak.
#include <gtest/gtest.h>

#include <algorithm>

#include "helpers.hpp"
#include "partition/decomposition.hpp"
#include "physics/grid_setup.hpp"

using namespace ondes;

namespace {

double energy_left_fraction(Case c) {
  Runtime rt("");
  Simulation sim(c, c.time.steps);
  double peak = 0, last = 0;
  while (sim.iteration() < c.time.steps) {
    sim.advance(10);
    last = sim.energy();
    peak = std::max(peak, last);
  }
  EXPECT_GT(peak, 0.0);
  std::printf("energy: peak %.4g J, left %.4g J (%.3g%%)\n", peak, last, 100 * last / peak);
  return last / peak;
}

Source explosion_and_shear(double x, double y, double z) {
  Source s;
  s.kind = SourceKind::Moment;
  s.position = {x, y, z};
  s.moment = {1e15, 1.2e15, 0.8e15, 0.5e15, -0.4e15, 0.3e15};
  s.stf = {StfKind::Ricker, 2.0, 0.6, 0};  // zero final moment: no static field stays
  return s;
}

}  // namespace

// Absorbing on all six faces. Interior 30 cells (3 km); S crosses it in 1.3 s; run 4 s.
TEST(Pml, EnergyLeavesTheFullSpace) {
  Case c = test::cube(50, 100, 4000, 2300, 2500, 0.01, 400, 10, false);
  c.sources = {explosion_and_shear(2400, 2600, 2300)};
  EXPECT_LT(energy_left_fraction(c), 0.01);
}

// With the free surface on top: surface waves must leave through the side PMLs too.
TEST(Pml, EnergyLeavesTheHalfSpace) {
  Case c = test::cube(50, 100, 4000, 2300, 2500, 0.01, 500, 10, true);
  c.grid.nz = 30;
  c.sources = {explosion_and_shear(2400, 2600, 800)};
  EXPECT_LT(energy_left_fraction(c), 0.01);
}

// Ondes3D's C-PML on layers takes each level's own layer vp (alloAndInit.c CompABCCoef with its
// layer's vp): a block's levels fall into as many vp classes as distinct vps reach them, the count
// fill_pml returns; where it is 1 (StepParams::pml_classes) the CUDA PML kernels take class 0's
// profiles without reading the plane's classes. The standard profile takes the case's largest vp at
// every level.
TEST(Pml, LevelClassesAreTheLayersVps) {
  Case c = test::cube(24, 100, 4000, 2300, 2500, 0.005, 10, 6, true);
  c.medium.layers = {{0, 3500, 2000, 2300}, {1050, 4000, 2300, 2500}};
  auto classes = [&](int nbx, int nby) {
    std::vector<int> out;
    for (const BlockInfo& b : decompose(c.grid, nbx, nby).blocks) {
      const std::vector<int64_t> cells = pml_cells(c, b.x0, b.y0, b.shape);
      const PmlLayout l = PmlLayout::of(b.shape, int64_t(cells.size()));
      std::vector<char> buffer(size_t(l.bytes));
      const int count = fill_pml(c, b.x0, b.y0, b.shape, cells, {}, buffer.data());
      const int* level = reinterpret_cast<const int*>(buffer.data() + l.classes_offset);
      const int most = *std::max_element(level, level + 2 * b.shape.nz);
      EXPECT_EQ(count, most + 1) << "the classes the levels use";
      out.push_back(count);
    }
    return out;
  };
  EXPECT_EQ(classes(1, 1), std::vector<int>{1});
  c.boundaries.pml_profile = PmlProfile::Ondes3d;
  c.medium.layer_sampling = LayerSampling::Ondes3d;
  EXPECT_EQ(classes(1, 1), std::vector<int>{2});
  EXPECT_EQ(classes(2, 2), (std::vector<int>{2, 2, 2, 2}));
  c.medium.layers = {{0, 4000, 2300, 2500}};
  EXPECT_EQ(classes(1, 1), std::vector<int>{1});
}
