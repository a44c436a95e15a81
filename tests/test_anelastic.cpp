// Issue 17 (b): a moment-tensor point source in a homogeneous attenuating full space against the
// exact viscoelastic solution (tests/viscoelastic.hpp: the elastic Green's function with the
// complex moduli of the fitted constant-Q body, transformed back to time), at 8.6 points per
// shortest S wavelength, at stations where the attenuating run's peak velocity has fallen at least
// 30% below the elastic run's. The elastic run is checked against the same solution with real
// moduli, so the misfit the test allows is that of the grid, not of attenuation left out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unistd.h>

#include "analytic.hpp"
#include "helpers.hpp"
#include "io/case/case_reader.hpp"
#include "io/results/model_reader.hpp"
#include "physics/attenuation.hpp"
#include "physics/grid_setup.hpp"
#include "physics/medium.hpp"
#include "physics/model3d.hpp"
#include "physics/stability.hpp"
#include "physics/stf.hpp"
#include "viscoelastic.hpp"

using namespace ondes;

namespace {

constexpr double kVp = 3000, kVs = 1730, kRho = 2200, kH = 50;
constexpr int kPml = 10;
constexpr double kF0 = 2.0, kT0 = 0.6, kDt = 0.005;
constexpr double kBand[2] = {0.2, 10.0}, kReference = 2.0;
const std::array<double, 6> kMoment{1e15, -0.5e15, 0.3e15, 0.7e15, -0.2e15, 0.4e15};  // every component

// A test: the medium's scheme and quality factors, the grid (cells), the source (cells from the
// grid's origin) and the stations (metres from the source, off every axis), the steps.
enum class Body { Elastic, EveryCell, CoarseGrained, Damped, Model, KristekMoczo };
struct Setup {
  Body body;
  double qp, qs;
  int nx, ny, nz, steps;
  std::array<int, 3> source;
  std::vector<std::array<double, 3>> offsets;
};

// Every mechanism in every cell at Qp = 20, Qs = 10: stations 2.1-2.2 km (42-44 cells) from the
// source. The faces' reflections (C-PML) reach them during the S pulse: the window is the whole run
// (a run in a 176^3 cube, with no reflection before the end, gave the same misfits).
Setup every_cell() {
  return {Body::EveryCell, 20, 10, 128, 128, 128, 470, {64, 64, 64},
          {{1500, 1200, -900}, {-1300, 1500, 800}, {1000, -1400, -1300}}};
}
// Coarse-grained at its lowest Q, Qp = 40, Qs = 20, over the same paths, where it takes 20-24% of
// the peak (over 4 km, to take 30%, it missed by 2.7-5.9%: physics/attenuation.hpp).
Setup coarse_grained() {
  Setup t = every_cell();
  t.body = Body::CoarseGrained, t.qp = 40, t.qs = 20;
  return t;
}

// Ondes3D's q0 damping (q0 = 8 at f0 = 2 Hz), over the every-cell paths.
constexpr double kQ0 = 8, kQ0Frequency = 2;
Setup damped() {
  Setup t = every_cell();
  t.body = Body::Damped;
  return t;
}

// Ondes3D's Kristek and Moczo (q_scheme = "kristek_moczo") at Qp = 40, Qs = 20 over the every-cell
// paths, its four pulsations over the band [0.2, 10] Hz, in one block (its sums read no halo).
Setup kristek_moczo_setup() {
  Setup t = every_cell();
  t.body = Body::KristekMoczo, t.qp = 40, t.qs = 20;
  return t;
}
KristekMoczo kristek_moczo_band() { return {2 * M_PI * kBand[0], 2 * M_PI * kBand[1], {0, 0, 1}}; }

// The every-cell full space given as a 3D model (HDF5, /qp and /qs at every sample): the path a
// model's Q takes (per-cell classes, Q rounded to the solver's rungs).
Setup model() {
  Setup t = every_cell();
  t.body = Body::Model;
  return t;
}
std::shared_ptr<const Model3D> uniform_model(const Setup& t) {
  Model3D m;
  m.nx = m.ny = m.nz = 2;
  m.spacing = {t.nx * kH, t.ny * kH, t.nz * kH};
  for (int q = 0; q < 8; ++q) {
    m.vp.push_back(kVp), m.vs.push_back(kVs), m.rho.push_back(kRho);
    m.inv_qp.push_back(float(1 / t.qp)), m.inv_qs.push_back(float(1 / t.qs));
  }
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ondes_anelastic_" + std::to_string(getpid()) + "_model.h5")).string();
  write_model(path, m);
  auto read = read_model(path);
  std::filesystem::remove(path);
  return read;
}

Case full_space(const Setup& t, Body body) {
  Case c = test::cube(t.nx, kH, kVp, kVs, kRho, kDt, t.steps, kPml, false);
  c.grid.ny = t.ny;
  c.grid.nz = t.nz;
  c.run.set_blocks(2, 2);
  
  if (body == Body::Damped) {
    c.medium.layers[0].q0 = kQ0;
    c.medium.q0_frequency = kQ0Frequency;
  } else if (body == Body::Model) {
    c.medium.layers.clear();
    c.medium.model = uniform_model(t);
    c.medium.model_q = true;
    c.medium.q_band = {kBand[0], kBand[1]};
    c.medium.q_reference = kReference;
  } else if (body == Body::KristekMoczo) {
    c.medium.layers[0].qp = t.qp;
    c.medium.layers[0].qs = t.qs;
    c.medium.layer_sampling = LayerSampling::Ondes3d;
    c.medium.kristek_moczo = kristek_moczo_band();
    c.medium.q_band = {kBand[0], kBand[1]};
    c.medium.q_reference = std::sqrt(kBand[0] * kBand[1]);
    c.run.set_blocks(1, 1);
  } else if (body != Body::Elastic) {
    c.medium.layers[0].qp = t.qp;
    c.medium.layers[0].qs = t.qs;
    c.medium.q_band = {kBand[0], kBand[1]};
    c.medium.q_reference = kReference;
    c.medium.q_coarse_grained = body == Body::CoarseGrained;
  }
  Source s;
  s.kind = SourceKind::Moment;
  s.position = {t.source[0] * kH, t.source[1] * kH, t.source[2] * kH};
  s.moment = kMoment;
  s.stf = test::gaussian(kF0, kT0);
  c.sources.push_back(s);
  for (size_t i = 0; i < t.offsets.size(); ++i)
    c.stations.push_back(test::station("S" + std::to_string(i), s.position[0] + t.offsets[i][0],
                                       s.position[1] + t.offsets[i][1], s.position[2] + t.offsets[i][2]));
  return c;
}

// Kristek and Moczo's body: the moduli given, unrelaxed, relaxed by its four pulsations with the
// coefficients Y of its least-squares fits (kappa's from Qp's by CompYlkap), which the solver's
// weights hold as Y~ = 2 / (2 - wl dt) Y M. Its update is this body under the bilinear transform
// (the elastic moduli times 1 + sum wl dt / (2 - wl dt) Y and the weights Y~ make it so), whose
// frequency warping, (2 / dt) tan(w dt / 2) for w, is about 0.2% at the source's 5 Hz.
Relaxation kristek_moczo_relaxation(const std::array<double, 4>& y_tilde, double modulus, const KristekMoczoCoefficients& k) {
  Relaxation r;
  for (int l = 0; l < 4; ++l) {
    r.omega.push_back(k.pulsations[l]);
    r.y.push_back(y_tilde[l] * (2 - k.pulsations[l] * kDt) / (2 * modulus));
  }
  return r;
}
viscoelastic::Rheology kristek_moczo_rheology(const Setup& t) {
  const double mu = kRho * kVs * kVs, kap = kRho * kVp * kVp - 4.0 / 3.0 * mu;
  const KristekMoczoCoefficients k = ondes::kristek_moczo(kRho, mu, kap, t.qp, t.qs, 2 * M_PI * kBand[0], 2 * M_PI * kBand[1], kDt);
  const Relaxation b = kristek_moczo_relaxation(k.y_mu, mu, k), a = kristek_moczo_relaxation(k.y_kap, kap, k);
  return {[=](double w) { return kap * relative_modulus(a, w / (2 * M_PI)) + 4.0 / 3.0 * mu * relative_modulus(b, w / (2 * M_PI)); },
          [=](double w) { return mu * relative_modulus(b, w / (2 * M_PI)); }, kRho};
}

// The moduli of the case's medium: the solver's fits of Qp and Qs with the unrelaxed moduli that
// keep vp and vs at the reference frequency (coarse-grained: the cube's effective modulus,
// fit_coarse_q's relative_modulus); real ones for an elastic medium.
viscoelastic::Rheology rheology(const Setup& t, Body body) {
  const double mp = kRho * kVp * kVp, mu = kRho * kVs * kVs;
  if (body == Body::Elastic)
    return {[mp](double) { return viscoelastic::cd(mp); }, [mu](double) { return viscoelastic::cd(mu); }, kRho};
  if (body == Body::Damped) {
    // The velocity and the stress damped by the solver's float factor a each step: gamma = -ln(a) / dt.
    // (At w = 0 the solution does not depend on the density.)
    const double gamma = -std::log(double(step_params(full_space(t, body)).damping.factor[0])) / kDt;
    return {[mp](double) { return viscoelastic::cd(mp); }, [mu](double) { return viscoelastic::cd(mu); }, kRho,
            [gamma](double w) { return w == 0 ? viscoelastic::cd(kRho) : kRho * std::pow(viscoelastic::cd(1.0, -gamma / w), 2); }};
  }
  if (body == Body::KristekMoczo) return kristek_moczo_rheology(t);
  QFits fits = q_fits(full_space(t, body).medium);
  // A model's Q on the solver's rungs.
  const double qp = body == Body::Model ? level_q(q_level(t.qp)) : t.qp;
  const double qs = body == Body::Model ? level_q(q_level(t.qs)) : t.qs;
  const Relaxation p = fits.of(qp), s = fits.of(qs);
  const double mp_u = mp * fits.unrelaxed(qp), mu_u = mu * fits.unrelaxed(qs);
  return {[p, mp_u](double w) { return mp_u * relative_modulus(p, w / (2 * M_PI)); },
          [s, mu_u](double w) { return mu_u * relative_modulus(s, w / (2 * M_PI)); }, kRho};
}

// The exact velocity at station i, at the recorded times (i + 1/2) dt: [step][component].
std::vector<viscoelastic::Vec3> exact(const Setup& t, Body body, int i) {
  auto stf = [](double time) { return stf_value(StfKind::Gaussian, kF0, kT0, 0, time + 0.5 * kDt); };
  const viscoelastic::Vec3 x{t.offsets[i][0], t.offsets[i][1], t.offsets[i][2]};
  return viscoelastic::moment_velocity(rheology(t, body), stf, x, kMoment, kDt, 4096);  // 20 s: no wrap-around
}

struct Fit {
  double misfit, peak;  // relative L2 over the three components; the largest |v| recorded
};
Fit compare(const std::vector<float>& seis, int station, int steps, const std::vector<viscoelastic::Vec3>& ref) {
  std::vector<double> a, b;
  double peak = 0;
  for (int comp = 0; comp < 3; ++comp)
    for (int k = 0; k < steps; ++k) {
      a.push_back(seis[(station * 3 + comp) * steps + k]);
      b.push_back(ref[k][comp]);
      peak = std::max(peak, std::abs(a.back()));
    }
  return {analytic::relative_misfit(a, b, static_cast<int>(a.size())), peak};
}

// The attenuating run against its exact solution (relative L2 below `limit`), the elastic run
// against the elastic one, at 8.6 points per shortest S wavelength.
// The attenuating peak must be at most `kept` times the elastic one.
void expect_exact(const Setup& t, double kept, double limit = 0.05) {
  const Case lossy = full_space(t, t.body), elastic = full_space(t, Body::Elastic);
  ASSERT_NO_THROW(validate_case(lossy));
  ASSERT_GE(points_per_wavelength(lossy), 8.0);
  const std::vector<float> q = test::run(lossy), e = test::run(elastic);
  for (int i = 0; i < static_cast<int>(t.offsets.size()); ++i) {
    const Fit fe = compare(e, i, t.steps, exact(t, Body::Elastic, i)), fq = compare(q, i, t.steps, exact(t, t.body, i));
    std::printf("station %d: relative L2 misfit elastic %.4f, attenuating %.4f; peak attenuating / elastic %.3f\n", i,
                fe.misfit, fq.misfit, fq.peak / fe.peak);
    EXPECT_LT(fe.misfit, 0.05) << "station " << i << ": the elastic run itself";
    EXPECT_LE(fq.peak, kept * fe.peak) << "station " << i << ": attenuation must have taken " << std::lround(100 * (1 - kept))
                                       << "% of the peak";
    EXPECT_LT(fq.misfit, limit) << "station " << i;
  }
}

}  // namespace

TEST(Anelastic, PointSourceMatchesTheExactViscoelasticSolution) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  expect_exact(every_cell(), 0.7);
}

// q_scheme = "coarse_grained": one memory set a cell instead of mechanisms_for's 5 here.
TEST(Anelastic, CoarseGrainedPointSourceMatchesTheExactViscoelasticSolution) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  expect_exact(coarse_grained(), 0.85);
}

// Ondes3D's q0: the velocity and the stress times exp(-pi f0 dt / q0) after each update is the
// damped system rho dv/dt = div sigma - rho gamma v, dsigma/dt = C grad v + dM/dt - gamma sigma, whose
// exact velocity is the elastic one with the complex density rho (1 - i gamma / w)^2 (the elastic
// Green's function times exp(-gamma t): Q = q0 at f0).
TEST(Anelastic, Q0DampingMatchesTheDampedWaveEquation) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  expect_exact(damped(), 0.7);
}

// Ondes3D's Kristek and Moczo, against its own body (above), and that body's Q over the band
// against the target (its seven-point least-squares fit: printed, the user guide quotes it). The
// scheme holds its body less closely than ours do theirs (docs/user-guide.md: 7-10% at Qs = 20,
// 13-19% at Qs = 10, its four pulsations spread over each 2 x 2 x 2 cube): the limit guards that.
TEST(Anelastic, KristekMoczoMatchesTheExactViscoelasticSolution) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  const ::Setup t = kristek_moczo_setup();
  const viscoelastic::Rheology r = kristek_moczo_rheology(t);
  double worst_p = 0, worst_s = 0;
  for (int i = 0; i <= 40; ++i) {
    const double f = kBand[0] * std::pow(kBand[1] / kBand[0], i / 40.0), w = 2 * M_PI * f;
    const auto p = r.p_modulus(w), s = r.mu(w);
    worst_p = std::max(worst_p, std::abs(p.real() / p.imag() / t.qp - 1));
    worst_s = std::max(worst_s, std::abs(s.real() / s.imag() / t.qs - 1));
  }
  std::printf("Kristek and Moczo over [%.1f, %.1f] Hz: Qp within %.1f%%, Qs within %.1f%% of the target\n", kBand[0],
              kBand[1], 100 * worst_p, 100 * worst_s);
  expect_exact(t, 0.9, 0.12);
}

// Qp = 20, Qs = 10 given as a 3D model's /qp and /qs: the same physics through per-cell classes.
TEST(Anelastic, ModelQualityFactorsMatchTheExactViscoelasticSolution) {
  ONDES_SKIP_WITHOUT_REQUESTED_GPU();
  expect_exact(model(), 0.7);
}
