// The viscoelastic reference solution (tests/viscoelastic.hpp) that attenuating runs will be
// checked against (issue 17), checked itself against physics: with real moduli it is the elastic
// time-domain solution of analytic.hpp, and with the moduli of fitted constant-Q mechanisms its
// waves decay with distance as exp(-pi f r / (Q c)).
#include <gtest/gtest.h>

#include <cmath>

#include "analytic.hpp"
#include "physics/attenuation.hpp"
#include "physics/stf.hpp"
#include "viscoelastic.hpp"

using namespace ondes;

namespace {

constexpr double kRho = 2500, kVp = 3000, kVs = 1700;

viscoelastic::Rheology elastic() {
  return {[](double) { return viscoelastic::cd(kRho * kVp * kVp); },
          [](double) { return viscoelastic::cd(kRho * kVs * kVs); }, kRho};
}

// Constant Qp, Qs over [f_min, f_max] with the velocities kept at f_ref.
viscoelastic::Rheology attenuating(double qp, double qs, double f_min, double f_max, double f_ref) {
  const int n = mechanisms_for(f_min, f_max);
  const Relaxation p = fit_constant_q(qp, f_min, f_max, n), s = fit_constant_q(qs, f_min, f_max, n);
  const double mp = kRho * kVp * kVp * unrelaxed_factor(p, f_ref), mu = kRho * kVs * kVs * unrelaxed_factor(s, f_ref);
  return {[p, mp](double w) { return mp * relative_modulus(p, w / (2 * M_PI)); },
          [s, mu](double w) { return mu * relative_modulus(s, w / (2 * M_PI)); }, kRho};
}

const std::array<double, 6> kMoment{1e13, -0.5e13, 0.3e13, 0.7e13, -0.2e13, 0.4e13};  // every component

}  // namespace

TEST(Viscoelastic, RealModuliGiveTheElasticTimeDomainSolution) {
  const double f0 = 4, t0 = 0.4, dt = 2e-3;
  const int n = 2048;  // 4 s, the pulse has left the station long before
  auto s = [&](double t) { return stf_value(StfKind::Gaussian, f0, t0, 0, t); };
  const analytic::Medium am{kVp, kVs, kRho};
  for (const viscoelastic::Vec3 x : {viscoelastic::Vec3{900, 300, -200}, viscoelastic::Vec3{-150, 2200, 700}}) {
    const auto v = viscoelastic::moment_velocity(elastic(), s, x, kMoment, dt, n);
    std::vector<double> a, b;
    for (int i = 0; i < 1000; ++i) {  // the first 2 s: the whole pulse
      const auto e = analytic::moment_velocity(am, s, x, kMoment, i * dt);
      for (int c = 0; c < 3; ++c) {
        a.push_back(v[i][c]);
        b.push_back(e[c]);
      }
    }
    EXPECT_LT(analytic::relative_misfit(a, b, int(a.size())), 2e-3) << "station offset " << x[0] << " " << x[1];
  }
}

// Far from the source, P and S waves of frequency f lose exp(-pi f dr / (Q c)) between two
// distances on one ray beyond the elastic medium's geometrical spreading (to first order in 1/Q;
// c the phase velocity, kept at the reference frequency). A force along the ray radiates P only
// along it, a force across it S only, besides near-field terms of relative size 1 / (k r), which
// the distances and frequencies keep below 1% of the exponent (the P near field of the S geometry
// is attenuated less than the S wave, so S is taken nearer and lower).
TEST(Viscoelastic, ConstantQWavesDecayAsExpMinusPiFROverQc) {
  const double qp = 100, qs = 50, f_ref = 2;
  const auto lossy = attenuating(qp, qs, 0.5, 20, f_ref);
  struct Case {
    int n, p;
    double q, vel, r1, f[2];
    const char* label;
  };
  for (const Case& k : {Case{0, 0, qp, kVp, 50000, {2.0, 5.0}, "P"}, Case{1, 1, qs, kVs, 20000, {1.0, 2.0}, "S"}})
    for (double f : k.f) {
      const double w = 2 * M_PI * f, r2 = 2 * k.r1;
      auto amp = [&](const viscoelastic::Rheology& m, double r) {
        return std::abs(viscoelastic::stokes_spectrum(m, {r, 0, 0}, k.n, k.p, w));
      };
      const double loss = (amp(lossy, r2) / amp(elastic(), r2)) / (amp(lossy, k.r1) / amp(elastic(), k.r1));
      // The phase velocity at f differs from the one at f_ref by ln(f / f_ref) / (pi Q) (dispersion).
      const double c = k.vel * (1 + std::log(f / f_ref) / (M_PI * k.q));
      const double expected = -M_PI * f * (r2 - k.r1) / (k.q * c);  // ln of the loss
      // The exponent within 2%: the fitted Q is within 1.5% of the target, and the rest is the
      // first-order approximation and the near field.
      EXPECT_NEAR(std::log(loss) / expected, 1.0, 0.02) << k.label << " wave at " << f << " Hz";
      EXPECT_LT(loss, 0.5) << k.label << " wave at " << f << " Hz: attenuation must show";
    }
}
