// Cases built in code for the tests, and a one-call run on StarPU.
#pragma once
#include <cstdlib>
#include <string>
#include <vector>

#include <filesystem>
#include <memory>
#include <unistd.h>

#include "core/case.hpp"
#include "engine/simulation.hpp"
#include "io/results/model_reader.hpp"
#include "physics/model3d.hpp"

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

// A 3D model over a 5 x 4 x 3 sample grid spanning the case's grid, each sample from
// sample(i, j, k, m) (which appends to m's arrays), written to HDF5 and read back as a case would;
// it replaces c's layers.
template <class Sample>
inline void use_model(Case& c, Sample&& sample) {
  Model3D m;
  m.nx = 5, m.ny = 4, m.nz = 3;
  m.spacing = {c.grid.nx * c.grid.h / 4, c.grid.ny * c.grid.h / 3, c.grid.nz * c.grid.h / 2};
  for (int k = 0; k < m.nz; ++k)
    for (int j = 0; j < m.ny; ++j)
      for (int i = 0; i < m.nx; ++i) sample(i, j, k, m);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ondes_test_" + std::to_string(getpid()) + "_model.h5")).string();
  write_model(path, m);
  c.medium.model = read_model(path);
  std::filesystem::remove(path);
  c.medium.layers.clear();
}

// Replaces c's medium by a 3D model with its first layer's velocities and density and Q varying
// along x, y and z (Qp 40-160, Qs 20-80); q_band [0.5, 10] Hz.
inline void use_attenuating_model(Case& c) {
  const Layer first = c.medium.layers.front();
  use_model(c, [&](int i, int j, int k, Model3D& m) {
    m.vp.push_back(float(first.vp)), m.vs.push_back(float(first.vs)), m.rho.push_back(float(first.rho));
    const double qs = 20 + 15 * i + 10 * j * (k + 1);
    m.inv_qp.push_back(float(1 / (2 * qs))), m.inv_qs.push_back(float(1 / qs));
  });
  c.medium.model_q = true;
  c.medium.q_band = {0.5, 10};
  c.medium.q_reference = 2;
}

// Replaces c's medium by an elastic 3D model: its first layer's velocities and density, each
// varying by a few percent along x, y and z (no plane of the grid uniform).
inline void use_heterogeneous_model(Case& c) {
  const Layer first = c.medium.layers.front();
  use_model(c, [&](int i, int j, int k, Model3D& m) {
    const double f = 1 + 0.02 * i - 0.015 * j + 0.03 * k;
    m.vp.push_back(float(first.vp * f)), m.vs.push_back(float(first.vs * f)), m.rho.push_back(float(first.rho / f));
  });
}

inline TimeFunction gaussian(double f0, double t0) { return {StfKind::Gaussian, f0, t0, 0}; }

inline Station station(const std::string& name, double x, double y, double z) { return {name, {x, y, z}}; }

// A Ricker force and a Gaussian moment tensor at the given positions (invariance and GPU tests).
inline void add_force_and_moment(Case& c, const std::array<double, 3>& force_at, const std::array<double, 3>& moment_at) {
  Source f;
  f.kind = SourceKind::Force;
  f.position = force_at;
  f.force = {1e12, -2e12, 3e12};
  f.stf = {StfKind::Ricker, 2.0, 0.6, 0};
  Source m;
  m.kind = SourceKind::Moment;
  m.position = moment_at;
  m.moment = {1e15, -2e15, 1e15, 3e15, -1e15, 2e15};
  m.stf = gaussian(2.0, 0.5);
  c.sources = {f, m};
}

// Workers of a test run: ONDES_TEST_WORKERS=cuda asks for CUDA workers only (the GPU machine runs
// the physics suites that way); otherwise StarPU's default (or STARPU_NCPU / STARPU_NCUDA).
inline bool cuda_only() {
  const char* w = std::getenv("ONDES_TEST_WORKERS");
  return w && std::string(w) == "cuda";
}

inline bool have_cuda_worker() {
  try {
    Runtime rt("", 0, -1);
    return rt.cuda_workers() > 0;
  } catch (const std::exception&) {
    return false;  // StarPU without CUDA, or no GPU: no worker at all
  }
}

// Skips a test that asked for CUDA workers where there are none (CI has no GPU).
#define ONDES_SKIP_WITHOUT_REQUESTED_GPU()                                                      \
  if (::ondes::test::cuda_only() && !::ondes::test::have_cuda_worker())                         \
  GTEST_SKIP() << "ONDES_TEST_WORKERS=cuda but no CUDA worker (no GPU, or StarPU without CUDA)"

// Gives c a model of Ondes3D's geological nodes (a .prm's: nearest nodes, Ondes3D's sampling and
// C-PML profile), the node (i, j, k) of layer_at(i, j, k)'s material; with its Q where `q`.
template <class LayerAt>
void set_ondes3d_nodes(Case& c, LayerAt&& layer_at, bool q = false) {
  auto m = std::make_shared<Model3D>();
  m->nearest = true;
  m->nx = c.grid.nx, m->ny = c.grid.ny, m->nz = c.grid.nz;
  m->origin = {0, -0.5 * c.grid.h, 0};
  m->spacing = {c.grid.h, c.grid.h, c.grid.h};
  for (int k = 0; k < m->nz; ++k)
    for (int j = 0; j < m->ny; ++j)
      for (int i = 0; i < m->nx; ++i) {
        const Layer l = layer_at(i, j, k);
        m->vp.push_back(float(l.vp)), m->vs.push_back(float(l.vs)), m->rho.push_back(float(l.rho));
        if (q) m->inv_qp.push_back(float(1 / l.qp)), m->inv_qs.push_back(float(1 / l.qs));
      }
  set_extremes(*m);
  c.medium.model = m;
  c.medium.model_q = q;
  c.medium.layers.clear();
  c.medium.layer_sampling = LayerSampling::Ondes3d;
  c.boundaries.pml_profile = PmlProfile::Ondes3d;
}

// Runs the whole case under a fresh StarPU with the given scheduler and worker counts (-1: default);
// returns [station][3][step].
inline std::vector<float> run(const Case& c, const std::string& scheduler = "", int ncpu = -2, int ncuda = -1) {
  if (ncpu == -2) ncpu = cuda_only() ? 0 : -1;
  Runtime rt(scheduler, ncpu, ncuda);
  Simulation sim(c, c.time.steps);
  sim.advance(c.time.steps);
  return sim.seismograms();
}

}  // namespace ondes::test
