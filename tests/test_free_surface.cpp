// The free surface doubles a vertically incident P wave: for an explosion at depth, the vertical
// velocity at the surface station above it is twice the full-space analytic value.
// The doubling is a plane-wave law: near-field and wavefront-curvature terms add an excess that
// falls as 1/(kr), so the source sits at kr = 2 pi f0 depth / vp = 21, far from the source's near
// field (docs/design.md's test table).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analytic.hpp"
#include "halfspace.hpp"
#include "helpers.hpp"
#include "io/case/case_reader.hpp"
#include "physics/source.hpp"

using namespace ondes;

TEST(FreeSurface, DoublesTheVerticalIncidentP) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  constexpr double vp = 3000, vs = 1730, rho = 2200, h = 50, f0 = 4.0, t0 = 0.3, depth = 2500;
  constexpr int n = 80, nz = 76, pml = 10;
  Case c = test::cube(n, h, vp, vs, rho, 0.004, 360, pml, true);
  c.grid.nz = nz;
  c.run.set_blocks(2, 2);
  
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
    c.run.set_blocks(2, c.run.nby);
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

// Lamb's problem with a buried explosion: the velocity at surface stations against the
// wavenumber-integration solution (halfspace.hpp), Rayleigh wave included. Which surface TOML cases
// get is decided here: the Rayleigh wave's error is the surface's (it grows as h^2 with either
// scheme, the interior being 4th order), and at 6 cells per Rayleigh wavelength (f0 = 3 Hz, 2 f0)
// stress imaging is the closer one, so it is the default (docs/user-guide.md).
namespace {
struct LambFigures {
  double worst = 0;       // relative L2 of the worst trace (radial or vertical)
  double worst_peak = 0;  // |peak / analytic peak - 1| over the traces
};

LambFigures lamb_misfits(SurfaceScheme scheme, double f0) {
  constexpr double vp = 3464, vs = 2000, rho = 2500, h = 50, depth = 200, M0 = 1e15, dt = 0.005;
  constexpr int n = 140, nz = 60, pml = 10, steps = 640;
  const double t0 = 1.5 / f0;
  Case c = test::cube(n, h, vp, vs, rho, dt, steps, pml, true);
  c.grid.nz = nz;
  c.boundaries.surface = scheme;
  c.boundaries.pml_frequency = f0;
  c.run.set_blocks(1, 2);  // Ondes3D's surface takes blocks cut along one axis
  
  const double mid = n / 2 * h;
  Source s;
  s.kind = SourceKind::Moment;
  s.position = {mid, mid, depth};
  s.moment = {M0, M0, M0, 0, 0, 0};
  s.stf = test::gaussian(f0, t0);
  c.sources = {s};
  for (double r : {1000, 1500, 2000, 2500}) c.stations.push_back(test::station("X" + std::to_string(int(r)), mid + r, mid, 0));
  c.stations.push_back(test::station("Y1500", mid, mid + 1500, 0));
  const auto seis = test::run(c);
  auto stf = [&](double t) { return stf_value(StfKind::Gaussian, f0, t0, 0, t); };
  LambFigures out;
  for (size_t st = 0; st < c.stations.size(); ++st) {
    const double dx = c.stations[st].position[0] - mid, dy = c.stations[st].position[1] - mid;
    const auto ref = analytic::explosion_surface_velocity({vp, vs, rho}, M0, depth, std::hypot(dx, dy), stf, dt, steps);
    const float* traces[2] = {&seis[(3 * st + (dx != 0 ? 0 : 1)) * steps], &seis[(3 * st + 2) * steps]};
    const std::vector<double>* exact[2] = {&ref.radial, &ref.vertical};
    double misfit[2], peak[2];
    for (int comp = 0; comp < 2; ++comp) {
      misfit[comp] = analytic::relative_misfit(traces[comp], *exact[comp], steps);
      double ps = 0, pa = 0;
      for (int i = 0; i < steps; ++i) {
        ps = std::max(ps, double(std::abs(traces[comp][i])));
        pa = std::max(pa, std::abs((*exact[comp])[i]));
      }
      peak[comp] = ps / pa - 1;
      out.worst = std::max(out.worst, misfit[comp]);
      out.worst_peak = std::max(out.worst_peak, std::abs(peak[comp]));
    }
    std::printf("%s surface, f0 %.1f Hz, %s: radial %.4f (peak %+.4f), vertical %.4f (peak %+.4f)\n",
                scheme == SurfaceScheme::Imaging ? "imaging" : "ondes3d", f0, c.stations[st].name.c_str(), misfit[0],
                peak[0], misfit[1], peak[1]);
  }
  return out;
}
}  // namespace

// The integration behind halfspace.hpp, without the surface: the incident wave at a surface point
// is the closed form's (analytic.hpp, from Stokes' solution).
TEST(FreeSurface, HalfSpaceIntegrationGivesTheClosedFormIncidentWave) {
  const analytic::Medium m{3464, 2000, 2500};
  constexpr double f0 = 1.5, t0 = 1.0, depth = 200, r = 1500, dt = 0.005, M0 = 1e15;
  constexpr int steps = 640;
  auto stf = [&](double t) { return stf_value(StfKind::Gaussian, f0, t0, 0, t); };
  const auto direct = analytic::explosion_surface_velocity(m, M0, depth, r, stf, dt, steps, false);
  std::vector<double> radial(steps), vertical(steps);
  for (int i = 0; i < steps; ++i) {
    const auto v = analytic::moment_velocity(m, stf, {r, 0, -depth}, {M0, M0, M0, 0, 0, 0}, (i + 0.5) * dt);
    radial[i] = v[0], vertical[i] = v[2];
  }
  const double mr = analytic::relative_misfit(direct.radial, radial, steps),
               mz = analytic::relative_misfit(direct.vertical, vertical, steps);
  std::printf("incident wave by wavenumber integration against the closed form: radial %.2e, vertical %.2e\n", mr, mz);
  EXPECT_LT(mr, 1e-3);
  EXPECT_LT(mz, 1e-3);
}

// 12 cells per Rayleigh wavelength at 2 f0: the default surface within 3.5% on every trace.
TEST(FreeSurface, LambProblemDefaultSurface) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  ASSERT_EQ(Boundaries{}.surface, SurfaceScheme::Imaging);
  const LambFigures f = lamb_misfits(SurfaceScheme::Imaging, 1.5);
  std::printf("worst trace %.4f, worst peak %.4f\n", f.worst, f.worst_peak);
  EXPECT_LT(f.worst, 0.035);
  EXPECT_LT(f.worst_peak, 0.035);
}

// 6 cells per Rayleigh wavelength at 2 f0: stress imaging closer than Ondes3D's surface.
TEST(FreeSurface, LambProblemImagingCloserThanOndes3dOnACoarseGrid) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  const LambFigures imaging = lamb_misfits(SurfaceScheme::Imaging, 3.0);
  const LambFigures ondes3d = lamb_misfits(SurfaceScheme::Ondes3d, 3.0);
  std::printf("worst trace: imaging %.4f (peak %.4f), ondes3d %.4f (peak %.4f)\n", imaging.worst, imaging.worst_peak,
              ondes3d.worst, ondes3d.worst_peak);
  EXPECT_LT(imaging.worst, 0.1);
  EXPECT_LT(ondes3d.worst, 0.12);  // Ondes3D's surface is right too, only less close
  EXPECT_LT(imaging.worst, ondes3d.worst);
}
