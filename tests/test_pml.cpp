// The C-PML absorbs: after the waves have left the physical domain, the energy left in it is a
// small fraction of its peak.
#include <gtest/gtest.h>

#include <algorithm>

#include "helpers.hpp"

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
