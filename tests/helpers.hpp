// Cases built in code for the tests, and a one-call run on StarPU.
#pragma once
#include <string>
#include <vector>

#include "app/simulation.hpp"
#include "physics/case.hpp"

namespace ondes::test {

// A homogeneous cube of n^3 cells with a PML of `pml` cells, absorbing on all six faces unless
// free_surface; no sources or stations yet.
inline Case cube(int n, double h, double vp, double vs, double rho, double dt, int steps, int pml, bool free_surface) {
  Case c;
  c.path = "<test>";
  c.grid = {n, n, n, h};
  c.time = {dt, steps};
  c.boundaries.free_surface = free_surface;
  c.boundaries.pml_width = pml;
  c.medium.layers = {{0, vp, vs, rho}};
  return c;
}

inline TimeFunction gaussian(double f0, double t0) { return {StfKind::Gaussian, f0, t0, 0}; }

inline Station station(const std::string& name, double x, double y, double z) { return {name, {x, y, z}}; }

// Runs the whole case under a fresh StarPU with the given scheduler; returns [station][3][step].
inline std::vector<float> run(const Case& c, const std::string& scheduler = "") {
  Runtime rt(scheduler);
  Simulation sim(c, c.time.steps);
  sim.advance(c.time.steps);
  return sim.seismograms();
}

}  // namespace ondes::test
