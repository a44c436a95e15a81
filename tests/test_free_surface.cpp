// The free surface doubles a vertically incident P wave: for an explosion at depth, the vertical
// velocity at the surface station above it is twice the full-space analytic value.
// The doubling is a plane-wave law: near-field and wavefront-curvature terms add an excess that
// falls as 1/(kr) (measured: 11% peak excess at kr = 4, 4.8% at kr = 8), so the source sits at
// kr = 2 pi f0 depth / vp = 21, where that excess is about 2%.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analytic.hpp"
#include "helpers.hpp"
#include "io/case_reader.hpp"
#include "physics/source.hpp"

using namespace ondes;

TEST(FreeSurface, DoublesTheVerticalIncidentP) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  constexpr double vp = 3000, vs = 1730, rho = 2200, h = 50, f0 = 4.0, t0 = 0.3, depth = 2500;
  constexpr int n = 80, nz = 76, pml = 10;
  Case c = test::cube(n, h, vp, vs, rho, 0.004, 360, pml, true);
  c.grid.nz = nz;
  c.run.nbx = 2;
  c.run.nby = 2;
  const double mid = n / 2 * h;
  Source s;
  s.kind = SourceKind::Moment;
  s.position = {mid, mid, depth};
  s.moment = {1e15, 1e15, 1e15, 0, 0, 0};  // explosion: P only
  s.stf = test::gaussian(f0, t0);
  c.sources = {s};
  c.stations = {test::station("TOP", mid, mid, 0)};
  const auto seis = test::run(c);

  // Window: until a reflection off a PML face (not the free surface) could arrive.
  const double lo = pml * h, hi = (n - 1 - pml) * h, bottom = (nz - 1 - pml) * h;
  const bool faces[3][2] = {{true, true}, {true, true}, {false, true}};
  const double t_end = analytic::reflection_free_until(s.position, c.stations[0].position, {lo, lo, 0},
                                                       {hi, hi, bottom}, faces, vp,
                                                       analytic::gaussian_onset(f0, t0, 1e-3));
  const int samples = std::min(c.time.steps, static_cast<int>(t_end / c.time.dt - 0.5));
  ASSERT_GT(samples * c.time.dt, t0 + depth / vp + 0.5 / f0) << "the window must hold the whole P pulse";

  const analytic::Medium m{vp, vs, rho};
  auto stf = [&](double t) { return stf_value(StfKind::Gaussian, f0, t0, 0, t); };
  const analytic::Vec3 x{0, 0, -depth};
  std::vector<double> sim(samples), twice(samples);
  double peak_sim = 0, peak_ref = 0;
  for (int i = 0; i < samples; ++i) {
    sim[i] = seis[2 * c.time.steps + i];
    twice[i] = 2 * analytic::moment_velocity(m, stf, x, s.moment, (i + 0.5) * c.time.dt)[2];
    peak_sim = std::max(peak_sim, std::abs(sim[i]));
    peak_ref = std::max(peak_ref, std::abs(twice[i]));
  }
  const double misfit = analytic::relative_misfit(sim, twice, samples);
  std::printf("surface vz: peak %.4g m/s, twice full space %.4g m/s (ratio %.4f); L2 misfit %.4f over %.2f s\n",
              peak_sim, peak_ref, peak_sim / peak_ref, misfit, samples * c.time.dt);
  EXPECT_NEAR(peak_sim / peak_ref, 1.0, 0.05);
  EXPECT_LT(misfit, 0.05);
}

// Air cells as the free surface (the vacuum formalism of Ondes3D's geological models: vp = vs = 0
// above the ground, no mass): a half-space topped by 10 planes of vacuum against today's
// free-surface run of the same half-space. The vacuum surface lies where the shear stress
// between air and ground vanishes, half a cell above the first ground plane, so the air run puts
// its ground top there (475 m) and both runs record half a cell below their surface (500 m: the
// first ground plane; 25 m in the free-surface run) above the same source at the same depth.
TEST(FreeSurface, AirCellsActAsTheFreeSurface) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  constexpr double h = 50, air = 475;  // the vacuum surface
  auto half_space = [&](double top) {
    Case c = test::cube(96, h, 4000, 2310, 2600, 0.004, 500, 10, true);
    c.grid.nz = top > 0 ? 74 : 64;
    c.boundaries.pml_frequency = 2;
    c.run.nbx = 2;
    if (top > 0) c.medium.layers = {{0, 0, 0, 2600}, {top, 4000, 2310, 2600}};
    Source s;
    s.kind = SourceKind::Moment;
    s.position = {2400, 2400, top + 1000};
    s.moment = double_couple(30, 60, 90, 1e15);
    s.stf = test::gaussian(2.0, 0.6);
    c.sources = {s};
    const double z = top + 25;  // half a cell below the surface
    c.stations = {test::station("EPI", 2400, 2400, z), test::station("N1500", 3900, 2400, z),
                  test::station("E1200", 2400, 3600, z), test::station("NE", 3300, 3100, z)};
    return c;
  };
  const Case free = half_space(0), vacuum = half_space(air);
  ASSERT_NO_THROW(validate_case(vacuum));
  const auto a = test::run(free), b = test::run(vacuum);
  const int n = free.time.steps;
  for (size_t s = 0; s < free.stations.size(); ++s) {
    const std::vector<double> x(a.begin() + 3 * s * n, a.begin() + 3 * (s + 1) * n),
        y(b.begin() + 3 * s * n, b.begin() + 3 * (s + 1) * n);
    const double misfit = analytic::relative_misfit(y, x, 3 * n);
    std::printf("station %s: vacuum top vs free surface, relative L2 %.4f\n", free.stations[s].name.c_str(), misfit);
    EXPECT_LT(misfit, 0.05) << free.stations[s].name;
  }
}
