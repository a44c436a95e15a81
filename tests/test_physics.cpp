// Numerics checked alone, without StarPU: the stencils' order of accuracy, source time functions,
// moment tensors, PML profiles, interpolation and the energy integral.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "codelets/compute.hpp"
#include "codelets/source.hpp"
#include "codelets/stations.hpp"
#include "codelets/stencil.hpp"
#include "core/fast_div.hpp"
#include "helpers.hpp"
#include "partition/block_data.hpp"
#include "physics/attenuation.hpp"
#include "physics/grid_setup.hpp"
#include "physics/interp.hpp"
#include "physics/medium.hpp"
#include "physics/model3d.hpp"
#include "physics/pml.hpp"
#include "physics/source.hpp"
#include "physics/stf.hpp"

using namespace ondes;

namespace {
double quartic(double x) { return 0.3 * x * x * x * x - 1.7 * x * x * x + 0.5 * x * x - 2 * x + 1; }
double quartic_d(double x) { return 1.2 * x * x * x - 5.1 * x * x + x - 2; }
// A 1D field as the stencils read it: component 0, x offsets around cell i.
ArrayAt at(const float* f, int64_t i) { return ArrayAt{f, 0, i, 0, 0}; }
}  // namespace

// The GPU kernels' index decoding (codelets/march.hpp's band order) divides by FastDiv.
TEST(FastDiv, MatchesIntegerDivision) {
  std::vector<unsigned> divisors;
  for (unsigned d = 1; d <= 4096; ++d) divisors.push_back(d);
  for (unsigned d : {65535u, 65536u, 65537u, 1000003u, (1u << 30) - 1, 1u << 30, (1u << 30) + 1, (1u << 31) - 1})
    divisors.push_back(d);
  uint64_t x = 88172645463325252ull;  // xorshift64: numerators spread over [0, 2^31)
  for (unsigned d : divisors) {
    const ondes::FastDiv f(d);
    for (uint64_t n : {0ull, 1ull, d - 1ull, d + 0ull, d + 1ull, 2ull * d - 1, 2ull * d, (1ull << 31) - 1, (1ull << 31) - d})
      if (n < (1ull << 31)) ASSERT_EQ(f(unsigned(n)), unsigned(n) / d) << n << " / " << d;
    for (int t = 0; t < 256; ++t) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      const unsigned n = unsigned(x) & 0x7fffffffu;
      ASSERT_EQ(f(n), n / d) << n << " / " << d;
    }
  }
  const ondes::FastDiv one;
  EXPECT_EQ(one(12345u), 12345u);
}

// The 4th-order staggered difference is exact up to degree 4 (error ~ f^(5) h^4).
TEST(Stencil, FourthOrderDifferencesAreExactForQuartics) {
  std::vector<float> f(16);
  for (int i = 0; i < 16; ++i) f[i] = static_cast<float>(quartic(i));
  for (int i = 3; i < 12; ++i) {
    EXPECT_NEAR((dp<0, 0>(at(f.data(), i))), quartic_d(i + 0.5), 2e-3 * std::abs(quartic_d(i + 0.5)) + 1e-3) << i;
    // dm: field stored at half points i + 1/2.
    std::vector<float> g(16);
    for (int k = 0; k < 16; ++k) g[k] = static_cast<float>(quartic(k + 0.5));
    EXPECT_NEAR((dm<0, 0>(at(g.data(), i))), quartic_d(i), 2e-3 * std::abs(quartic_d(i)) + 1e-3) << i;
  }
}

// Halving h divides the error on a smooth function by 16 (4th order) and 4 (2nd order); h is
// large enough that float32 rounding stays far below the truncation error.
TEST(Stencil, ConvergenceOrders) {
  auto err = [](double h, bool fourth) {
    std::vector<float> f(8);
    for (int i = 0; i < 8; ++i) f[i] = static_cast<float>(std::sin(1.0 + (i - 3.5) * h));  // centred on x = 1
    const double d = fourth ? dp<0, 0>(at(f.data(), 3)) : dp2<0, 0>(at(f.data(), 3));
    return std::abs(d / h - std::cos(1.0));
  };
  EXPECT_NEAR(std::log2(err(0.8, true) / err(0.4, true)), 4.0, 0.3);
  EXPECT_NEAR(std::log2(err(0.4, false) / err(0.2, false)), 2.0, 0.2);
}

TEST(SourceTimeFunction, NormalisationAndShape) {
  const double f0 = 2.5, t0 = 0.5, dt = 1e-4;
  double g = 0, tri = 0, ricker_mean = 0;
  for (double t = 0; t < 2; t += dt) {
    g += stf_value(StfKind::Gaussian, f0, t0, 0, t) * dt;
    tri += stf_value(StfKind::Triangle, 0, 0.2, 0.4, t) * dt;
    ricker_mean += stf_value(StfKind::Ricker, f0, t0, 0, t) * dt;
  }
  EXPECT_NEAR(g, 1.0, 1e-6);
  EXPECT_NEAR(tri, 1.0, 1e-3);
  EXPECT_NEAR(ricker_mean, 0.0, 1e-6);
  EXPECT_DOUBLE_EQ(stf_value(StfKind::Ricker, f0, t0, 0, t0), 1.0);
  EXPECT_DOUBLE_EQ(stf_value(StfKind::Triangle, 0, 0.2, 0.4, 0.1), 0.0);  // before onset
}

namespace {
// A block's source set's runs as the CPU adds them (as partition/ computes them).
std::vector<SourceRun> runs_of(const SourceSet& set) {
  return cpu::source_runs(set.points.data(), int64_t(set.points.size()), set.emitters.data(),
                          int64_t(set.emitters.size()), set.samples.data());
}
// The CPU's update of a block's source set at time t into field.
void apply_set(const SourceSet& set, std::vector<float>& field, double t) {
  const std::vector<SourceRun> runs = runs_of(set);
  std::vector<double> values(set.emitters.size());
  cpu::apply_sources(field.data(),
                     {set.points.data(), int64_t(set.points.size()), set.emitters.data(), int64_t(set.emitters.size()),
                      set.samples.data(), values.data(), runs.data(), int64_t(runs.size())},
                     t);
}
}  // namespace

// Sources sharing the values they update (a fault's neighbouring points) each add their own time
// function: three moment sources, two at one position with different time functions, as one
// block's points (one emitter a source, runs by value) and the CPU update, against the sum over
// every point of coef * s(t) taken from each source's own TimeFunction.
TEST(Sources, SourcesSharingValuesEachAddTheirOwnTimeFunction) {
  Case c;
  c.grid = {24, 20, 16, 50.0};
  c.time.dt = 0.004;
  c.time.steps = 100;
  Source a;
  a.kind = SourceKind::Moment;
  a.position = {500, 480, 400};
  a.moment = double_couple(30, 60, 90, 1e15);
  a.stf = {StfKind::SmoothRamp, 0, 0.05, 0.1};
  Source b = a, far = a;
  b.stf = {StfKind::Ricker, 8.0, 0.12, 0};
  far.position = {730, 330, 525};
  far.stf = {StfKind::Gaussian, 5.0, 0.2, 0};
  c.sources = {a, b, far};
  const BlockShape sh{c.grid.nx, c.grid.ny, c.grid.nz};
  const BlockSources bs = source_points(c, 0, 0, sh, nullptr);
  const SourceSet& m = bs.moment;
  EXPECT_TRUE(bs.force.points.empty());
  ASSERT_EQ(m.emitters.size(), 3u);
  size_t covered = 0;
  for (size_t q = 0; q < m.points.size(); q += m.points[q].run) {
    ASSERT_GT(m.points[q].run, 0) << "point " << q;
    if (q > 0) EXPECT_LT(m.points[q - 1].target, m.points[q].target);
    for (int r = 1; r < m.points[q].run; ++r) {
      EXPECT_EQ(m.points[q + r].target, m.points[q].target);
      EXPECT_EQ(m.points[q + r].run, 0);
    }
    covered += m.points[q].run;
  }
  EXPECT_EQ(covered, m.points.size());
  for (const double t : {0.03, 0.08, 0.15}) {
    std::vector<float> field(kStressComponents * sh.cells(), 0.0f);
    apply_set(m, field, t);
    // Each point's source by its emitter, in the order sources first land in the block: a, b, far.
    std::map<int64_t, double> expected;
    for (const SourcePoint& p : m.points) {
      const TimeFunction& f = c.sources[p.emitter].stf;
      expected[p.target] += p.coef * stf_value(f.kind, f.f0, f.t0, f.duration, t);
    }
    EXPECT_GT(expected.size(), 16u);
    for (const auto& [target, value] : expected)
      EXPECT_NEAR(field[target], value, 1e-6 * std::abs(value)) << "t " << t << ", value " << target;
    double others = 0;
    for (int64_t i = 0; i < int64_t(field.size()); ++i)
      if (!expected.count(i)) others += std::abs(field[i]);
    EXPECT_EQ(others, 0.0);
  }
}

// A finite fault's held points (Ondes3D's histories as body forces) whose subfaults start and stop at
// different steps, beside a force of a Gaussian on the same values, as one block's points and the
// CPU update at every step: each value gets the float of its points' coef x accumulated moment summed
// in their order, the moment taken from Ondes3D's definition (original/src/IO.c ReadSrc's history,
// computeVeloAndSource.c computeSeisMoment: sample ceil(l dt / step) x dt summed over the steps l <=
// n + 1), bitwise, at steps before, during and after each subfault's rupture. The runs of
// subfaults that hold still (core/layout.hpp SourceRun) are found: the update skips their sums there.
TEST(Sources, HeldFaultAddsItsAccumulatedMomentAtEveryStep) {
  Case c = test::cube(20, 50.0, 4000, 2300, 2500, 0.004, 60, 0, false);
  const int kSubfaults = 6;
  for (int i = 0; i < kSubfaults; ++i) {
    Source s;
    s.kind = SourceKind::Moment;
    s.position = {430.0 + 20 * i, 515.0 + 35 * (i % 3), 470.0 + 10 * i};
    s.moment = double_couple(20 + 30.0 * i, 70, 30, 1e14);
    s.stf.kind = StfKind::Held;
    s.stf.step = 0.01;  // against dt = 0.004: ceil(l dt / step) takes some samples twice
    for (int k = 0; k < 30; ++k) {
      const double u = k - (3.0 + 3 * i);  // onsets 3 to 18 samples in, five samples each
      s.stf.samples.push_back(u >= 0 && u < 5 ? u * (5 - u) + 1 : 0.0);
    }
    ASSERT_NE(normalise_samples(s.stf), 0.0);
    c.sources.push_back(s);
  }
  Source push;
  push.kind = SourceKind::Force;
  push.position = c.sources[2].position;
  push.force = {1e9, -2e9, 5e8};
  push.stf = {StfKind::Gaussian, 12.0, 0.1, 0};
  c.sources.push_back(push);
  const BlockShape sh{c.grid.nx, c.grid.ny, c.grid.nz};
  std::vector<float> mat(sh.material_floats());
  fill_material(c, 0, 0, sh, mat.data());
  const SourceSet& f = source_points(c, 0, 0, sh, mat.data()).force;
  ASSERT_EQ(f.emitters.size(), size_t(kSubfaults + 1));
  const std::vector<SourceRun> runs = runs_of(f);
  int still_early = 0, still_late = 0, pushed = 0;
  for (const SourceRun& r : runs) {
    still_early += r.clock > 0 && r.from > 10;
    still_late += r.clock > 0 && r.to < 50;
    pushed += r.clock == 0;
  }
  EXPECT_GT(still_early, 20);
  EXPECT_GT(still_late, 20);
  EXPECT_GT(pushed, 0);  // the force's values shared with the fault's, summed at every step
  // Ondes3D's accumulated moment of subfault i at step n (n + 1 steps taken).
  auto moment = [&](const TimeFunction& stf, int n) {
    double acc = 0;
    for (int l = 1; l <= n + 1; ++l) {
      const double i = std::ceil((c.time.dt * l) / stf.step);
      if (i >= double(stf.samples.size())) break;
      acc += stf.samples[size_t(i)] * c.time.dt;
    }
    return acc;
  };
  for (int n = 0; n < c.time.steps; ++n) {
    const double t = n * c.time.dt;
    std::vector<float> field(kVelocityComponents * sh.cells(), 0.0f);
    apply_set(f, field, t);
    std::map<int64_t, double> expected;
    for (const SourcePoint& p : f.points) {
      const TimeFunction& stf = c.sources[p.emitter].stf;
      const double s = stf.kind == StfKind::Held ? moment(stf, n) : stf_value(stf.kind, stf.f0, stf.t0, 0, t);
      expected[p.target] += p.coef * s;
    }
    for (const auto& [target, sum] : expected)
      ASSERT_EQ(field[target], static_cast<float>(sum)) << "step " << n << ", value " << target;
  }
}

// A double couple: traceless, eigenvalues (M0, 0, -M0) whatever the angles; known special case.
TEST(MomentTensor, DoubleCoupleProperties) {
  const auto ss = double_couple(0, 90, 0, 1e18);  // vertical strike-slip, fault along x (north)
  EXPECT_NEAR(ss[3], 1e18, 1e6);                  // Mxy
  for (int i : {0, 1, 2, 4, 5}) EXPECT_NEAR(ss[i], 0, 1e6);
  for (auto [s, d, r] : {std::tuple{30., 60., 90.}, std::tuple{217., 25., -33.}, std::tuple{95., 80., 170.}}) {
    const auto m = double_couple(s, d, r, 2.0);
    EXPECT_NEAR(m[0] + m[1] + m[2], 0, 1e-12);
    // Frobenius norm^2 = sum of eigenvalues^2 = 2 M0^2; determinant = 0.
    const double fro = m[0] * m[0] + m[1] * m[1] + m[2] * m[2] + 2 * (m[3] * m[3] + m[4] * m[4] + m[5] * m[5]);
    EXPECT_NEAR(fro, 8.0, 1e-9);
    const double det = m[0] * (m[1] * m[2] - m[5] * m[5]) - m[3] * (m[3] * m[2] - m[5] * m[4]) +
                       m[4] * (m[3] * m[5] - m[1] * m[4]);
    EXPECT_NEAR(det, 0, 1e-9);
  }
}

TEST(Pml, ProfileIsZeroInsideAndGrowsOutward) {
  PmlAxis a;
  a.n = 100;
  a.width = 10;
  a.h = 50;
  a.dt = 0.004;
  a.vp = 3000;
  a.frequency = 2;
  for (double x : {10.0, 50.0, 89.0, 89.5}) EXPECT_EQ(a.depth(x), 0.0) << x;  // non-PML cells
  EXPECT_EQ(a.depth(0.0), 10.0);
  EXPECT_EQ(a.depth(99.5), 10.0);
  EXPECT_DOUBLE_EQ(a.depth(9.0), a.depth(90.5));  // symmetric layers
  float prev_a = 1, pa, pb;
  for (int i = 10; i >= 0; --i) {
    a.coefficients(i, &pa, &pb);
    EXPECT_LE(pa, 0.0f);
    EXPECT_GT(pb, 0.0f);
    EXPECT_LE(pb, 1.0f);
    EXPECT_LE(pa, prev_a) << "damping must grow toward the outer wall";
    prev_a = pa;
  }
  a.coefficients(10, &pa, &pb);
  EXPECT_EQ(pa, 0.0f);  // no damping at the inner edge: the memory variable stays zero
}

// Trilinear interpolation reproduces linear fields exactly.
TEST(Interpolation, ExactForLinearFields) {
  auto lin = [](double x, double y, double z) { return 2 * x - 3 * y + 0.5 * z + 7; };
  const double h = 10;
  const double p[3] = {123.4, 57.9, 88.1};
  for (int c = 0; c < 3; ++c) {
    Stencil1D s[3];
    for (int a = 0; a < 3; ++a) s[a] = stencil_1d(p[a], h, kVelocityOffset[c][a], 100);
    float f[8];
    for (int q = 0; q < 8; ++q)
      f[q] = static_cast<float>(lin((s[0].i0 + (q & 1) + kVelocityOffset[c][0]) * h,
                                    (s[1].i0 + ((q >> 1) & 1) + kVelocityOffset[c][1]) * h,
                                    (s[2].i0 + ((q >> 2) & 1) + kVelocityOffset[c][2]) * h));
    EXPECT_NEAR(trilinear(f, float(s[0].frac), float(s[1].frac), float(s[2].frac)), lin(p[0], p[1], p[2]), 1e-3);
  }
}

// A uniform velocity carries kinetic energy rho v^2 / 2 per unit volume; a uniaxial stress
// sigma_xx = s carries s^2 / (2 E) with Young's modulus E = mu (3 lam + 2 mu) / (lam + mu).
TEST(Energy, KineticAndStrainEnergyDensities) {
  const BlockShape sh{4, 4, 4};
  const int64_t n = sh.cells();
  std::vector<float> v(3 * n, 0), s(6 * n, 0), m(kMaterialComponents * n, 0);
  const float rho = 2000, lam = 2e10, mu = 1.5e10;
  for (int64_t i = 0; i < n; ++i) {
    m[RHO * n + i] = rho;
    m[LAM * n + i] = lam;
    m[IMU * n + i] = 1 / mu;
    v[VY * n + i] = 0.5f;
    s[SXX * n + i] = 1e6f;
  }
  const double h = 10, cells = 64;
  const double l = lam, u = mu;
  const double young = u * (3 * l + 2 * u) / (l + u);
  const double expected = cells * h * h * h * (0.5 * rho * 0.25 + 1e12 / (2 * young));
  EXPECT_NEAR(energy(sh, v.data(), s.data(), m.data(), {{0, 0, 0}, {4, 4, 4}}, h), expected, 1e-6 * expected);
}

// A grid point's cell straddling an interface gets Backus' averages (arithmetic density, harmonic
// mu and lambda + 2 mu); a cell inside one layer gets that layer's values exactly.
TEST(Medium, CellPropertiesAverageAcrossAnInterface) {
  Medium m;
  m.layers = {{0, 4000, 2000, 2600}, {1000, 6000, 3464, 2700}};
  const double h = 100;
  const Layer at = cell_properties(m, 1000, h);  // half in each layer
  EXPECT_DOUBLE_EQ(at.rho, 0.5 * (2600 + 2700));
  const double mu1 = 2600 * 2000.0 * 2000, mu2 = 2700 * 3464.0 * 3464;
  EXPECT_NEAR(at.rho * at.vs * at.vs, 2 / (1 / mu1 + 1 / mu2), 1e-6 * mu1);
  const double m1 = 2600 * 4000.0 * 4000, m2 = 2700 * 6000.0 * 6000;
  EXPECT_NEAR(at.rho * at.vp * at.vp, 2 / (1 / m1 + 1 / m2), 1e-6 * m1);
  const Layer quarter = cell_properties(m, 975, h);  // a quarter below the interface
  EXPECT_DOUBLE_EQ(quarter.rho, 0.75 * 2600 + 0.25 * 2700);
  for (double z : {0.0, 500.0, 950.0, 1050.0, 3000.0}) {  // cells inside one layer
    const Layer l = cell_properties(m, z, h), ref = layer_at(m, z);
    EXPECT_EQ(l.vp, ref.vp) << z;
    EXPECT_EQ(l.vs, ref.vs) << z;
    EXPECT_EQ(l.rho, ref.rho) << z;
  }
}

// Narrow memory (codelets/anelastic.hpp NewMemory): a memory variable left to decay, its decay
// over a step (1e-4) far below a bfloat16 word's precision (2^-9 at best), stored as a word each
// step: rounded to nearest it would never change; stochastically rounded, the mean over cells
// follows the exact decay, exp(-1) after 1e4 steps, and the words of each cell scatter about it.
// Its pair's other word (a variable the update skips, as the surface's szz) keeps its bits.
TEST(Anelastic, NarrowMemoryDecaysAsTheExactMemoryDoes) {
  constexpr int kCells = 16384, kSteps = 10000;
  constexpr float kDecay = 1 - 1e-4f;
  const uint32_t one = float_bits(1.0f) >> 16, other = float_bits(-3.5f) >> 16;
  std::vector<uint32_t> pairs(kMemoryPairs * kCells, 0);
  for (int i = 0; i < kCells; ++i) pairs[kCells + i] = one | other << 16;  // pair 1: variables 2 and 3
  AnelasticView a{};
  a.memory = reinterpret_cast<float*>(pairs.data()), a.narrow = 1;
  std::vector<float> z(kCells, 1.0f);
  for (int step = 0; step < kSteps; ++step) {
    const uint32_t seed = step_seed(block_seed(8, 16), (step + 0.5) * 0.004);
    for (int i = 0; i < kCells; ++i) {
      NewMemory m{a, kCells, i, true, cell_seed(seed, i % 128, i / 128, 3), {}};
      const CellMemory<1> z0 = load_memory<1>(a, kCells, i);
      m.start(z0, 0);
      z[i] = m.put(2, kDecay * z0.at(0, 2, true));
      m.store_set(0);
    }
  }
  for (int i = 0; i < kCells; ++i) {
    ASSERT_EQ(pairs[i], 0u) << "cell " << i << ": pair 0 unchanged";
    ASSERT_EQ(pairs[kCells + i] >> 16, other) << "cell " << i << ": variable 3 keeps its word";
    ASSERT_EQ(z[i], pair_value(pairs[kCells + i], 0)) << "cell " << i << ": the value kept is the word stored";
  }
  double mean = 0, var = 0;
  for (float x : z) mean += x / kCells;
  for (float x : z) var += (x - mean) * (x - mean) / kCells;
  const double exact = std::pow(double(kDecay), kSteps);
  // A step's rounding moves a word by its spacing u with the probability that keeps the mean: a
  // variance of about u x the step's change (2^-8 x 1e-4 at the start), summed over the 5000
  // steps a deviation takes to decay: the words scatter by a few percent of exp(-1), their mean by
  // a few hundredths of a percent.
  EXPECT_NEAR(mean, exact, 0.01 * exact) << "the mean memory decays as the exact one";
  EXPECT_GT(std::sqrt(var), 0.01 * exact) << "each cell its own random bits";
  EXPECT_LT(std::sqrt(var), 0.2 * exact) << "the words scatter about the exact memory";
}

// A coarse-grained layered medium repeats with period 2 along x and y (its cubes' unrelaxed
// moduli), and the CPU rows then read a cell's factors by its parity (ParityMaterial): found there
// (periodic_planes), not where the planes are uniform (the elastic layers) or vary (a 3D model);
// read so, the velocity and the stress updates (elastic and coarse-grained, the surface planes
// included) give the bits the arrays give, in a block whose first x and y are odd.
TEST(Medium, CoarseGrainedLayersReadByParityGiveTheArraysBits) {
  Case c = test::cube(24, 100, 4000, 2300, 2500, 0.008, 10, 6, true);
  c.medium.layers = {{0, 4000, 2300, 2500, 60, 30}, {900, 5000, 2900, 2700, 200, 100}};
  c.medium.q_band = {0.5, 10};
  c.medium.q_reference = 2;
  c.medium.q_coarse_grained = true;
  const BlockShape s{10, 9, c.grid.nz};
  const int x0 = 7, y0 = 5;
  std::vector<float> mat(s.material_floats());
  fill_material(c, x0, y0, s, mat.data());
  EXPECT_FALSE(uniform_planes(s, mat.data()));
  ASSERT_TRUE(periodic_planes(s, mat.data()));
  cpu::fill_parity_factors(s, mat.data());
  AnelasticShape q = anelastic_shape(c);
  q.parity = (x0 & 1) | (y0 & 1) << 1;
  std::vector<char> memory(AnelasticLayout::of(s, q).bytes);
  fill_anelastic(c, x0, y0, s, memory.data());
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(kVelocityComponents * s.cells()), sigma(kStressComponents * s.cells());
  for (float& x : v) x = u(rng);
  for (float& x : sigma) x = 1e3f * u(rng);
  ASSERT_TRUE(q.narrow_memory());
  for (int64_t i = 0; i < kStressComponents * s.cells(); ++i)  // bfloat16 words
    reinterpret_cast<uint16_t*>(memory.data())[i] = uint16_t(float_bits(u(rng)) >> 16);
  StepParams p;
  p.shape = s, p.dt = float(c.time.dt), p.dt_h = float(c.time.dt / c.grid.h), p.inv_h = float(1 / c.grid.h);
  p.free_surface = kImagingSurface;
  auto step = [&](bool parity, bool attenuating) {
    p.parity_planes = parity;
    std::vector<float> vv = v, ss = sigma;
    std::vector<char> m = memory;
    cpu::compute_velocity(p, {vv.data(), ss.data(), mat.data(), nullptr, nullptr}, {}, {});
    cpu::compute_stress(p, {ss.data(), vv.data(), mat.data(), nullptr, attenuating ? m.data() : nullptr, q}, {}, {});
    vv.insert(vv.end(), ss.begin(), ss.end());
    if (attenuating)  // the words, two a float
      vv.insert(vv.end(), reinterpret_cast<float*>(m.data()), reinterpret_cast<float*>(m.data()) + kStressComponents * s.cells() / 2);
    return vv;
  };
  const size_t fields = (kVelocityComponents + kStressComponents) * s.cells();
  std::vector<float> elastic;
  for (bool attenuating : {false, true}) {
    const std::vector<float> arrays = step(false, attenuating), parity = step(true, attenuating);
    ASSERT_EQ(arrays.size(), parity.size());
    EXPECT_EQ(0, std::memcmp(arrays.data(), parity.data(), sizeof(float) * arrays.size()))
        << (attenuating ? "coarse-grained" : "elastic") << " update read by parity";
    if (attenuating)
      EXPECT_NE(0, std::memcmp(arrays.data(), elastic.data(), sizeof(float) * fields)) << "attenuation changed nothing";
    elastic = arrays;
  }
  c.medium.q_coarse_grained = false;
  fill_material(c, x0, y0, s, mat.data());
  EXPECT_TRUE(uniform_planes(s, mat.data()));
  test::use_heterogeneous_model(c);
  fill_material(c, x0, y0, s, mat.data());
  EXPECT_FALSE(periodic_planes(s, mat.data()));
}

// The PML holds the `width` outermost cells of every absorbing face: x and y both sides, z the
// bottom, and the top too without a free surface.
TEST(Pml, RegionHoldsTheOutermostCellsOfTheAbsorbingFaces) {
  const PmlRegion top_free{{30, 24, 20}, 5, true};
  EXPECT_TRUE(top_free.contains(4, 10, 10));
  EXPECT_FALSE(top_free.contains(5, 10, 10));
  EXPECT_FALSE(top_free.contains(24, 10, 10));
  EXPECT_TRUE(top_free.contains(25, 10, 10));
  EXPECT_TRUE(top_free.contains(10, 19, 10));
  EXPECT_FALSE(top_free.contains(10, 10, 0));  // under the free surface
  EXPECT_FALSE(top_free.contains(10, 10, 14));
  EXPECT_TRUE(top_free.contains(10, 10, 15));
  const PmlRegion all_round{{30, 24, 20}, 5, false};
  EXPECT_TRUE(all_round.contains(10, 10, 4));
  EXPECT_FALSE(all_round.contains(10, 10, 5));
  // A station 1 mm inside the last interior point is outside; 1 mm beyond it, inside.
  EXPECT_FALSE(top_free.reaches({5 * 100.0, 18 * 100.0 - 1e-3, 0}, 100.0));
  EXPECT_TRUE(top_free.reaches({5 * 100.0 - 1e-3, 10 * 100.0, 0}, 100.0));
  // The box count of a block equals counting its cells one by one.
  for (const PmlRegion& r : {top_free, all_round}) {
    int64_t n = 0;
    for (int k = 0; k < 20; ++k)
      for (int j = 3; j < 3 + 12; ++j)
        for (int i = 20; i < 30; ++i) n += r.contains(i, j, k);
    EXPECT_EQ(r.cells_in(20, 10, 3, 12, 20), n);
  }
}

// The PML cells' order in a block's list follows from the box outside the PML alone, so a GPU
// thread finds its cell's memory variables without the list (pml_index); for blocks at corners,
// edges and inside, with and without a free surface.
TEST(Pml, IndexOfACellIsItsPlaceInTheBlocksList) {
  for (bool free_surface : {true, false}) {
    Case c;
    c.grid = {30, 26, 20, 100.0};
    c.boundaries.pml_width = 5;
    c.boundaries.free_surface = free_surface;
    for (auto [x0, y0, nx, ny] : {std::array<int, 4>{0, 0, 12, 9}, {12, 9, 8, 8}, {20, 17, 10, 9}, {3, 0, 24, 26}}) {
      const BlockShape s{nx, ny, c.grid.nz};
      const std::vector<int64_t> cells = pml_cells(c, x0, y0, s);
      const PmlBox box = pml_box(c, x0, y0, s);
      const PmlRegion region = PmlRegion::of(c);
      int64_t q = 0;
      for (int k = 0; k < s.nz; ++k)
        for (int j = 0; j < s.ny; ++j)
          for (int i = 0; i < s.nx; ++i) {
            ASSERT_EQ(box.inside(i, j, k), !region.contains(x0 + i, y0 + j, k)) << i << " " << j << " " << k;
            if (box.inside(i, j, k)) continue;
            ASSERT_LT(q, int64_t(cells.size()));
            EXPECT_EQ(cells[q], s.idx(i, j, k));
            ASSERT_EQ(pml_index(box, s, i, j, k), q) << "block at " << x0 << "," << y0 << " cell " << i << " " << j << " " << k;
            ++q;
          }
      EXPECT_EQ(q, int64_t(cells.size()));
    }
  }
}

// The C-PML code skips a cell's memory variables along the axes on which it is not damped
// (damped_axes: its coordinate inside the PmlBox's span). That gives the same bits only if the
// profile's a is zero there, at the integer and the half position alike, and nonzero along the
// damped axes: checked for every cell of blocks at corners, edges and inside.
TEST(Pml, ProfilesVanishExactlyAlongTheAxesACellIsNotDampedOn) {
  for (bool free_surface : {true, false}) {
    Case c;
    c.grid = {30, 26, 20, 100.0};
    c.time.dt = 0.01;
    c.medium.layers = {Layer{0, 4000, 2300, 2500}};
    c.boundaries.pml_width = 5;
    c.boundaries.free_surface = free_surface;
    c.boundaries.pml_frequency = 2;
    const auto axes = pml_axes(c);
    for (auto [x0, y0, nx, ny] : {std::array<int, 4>{0, 0, 12, 9}, {12, 9, 8, 8}, {20, 17, 10, 9}}) {
      const BlockShape s{nx, ny, c.grid.nz};
      const PmlBox box = pml_box(c, x0, y0, s);
      const int origin[3] = {x0, y0, 0}, n[3] = {nx, ny, c.grid.nz};
      for (int axis = 0; axis < 3; ++axis)
        for (int i = 0; i < n[axis]; ++i) {
          int ijk[3] = {box.lo[0], box.lo[1], box.lo[2]};
          ijk[axis] = i;
          const bool damped = (damped_axes(box, ijk[0], ijk[1], ijk[2]) >> axis) & 1;
          for (double half : {0.0, 0.5}) {
            float a = 1, b = 0;
            axes[axis].coefficients(origin[axis] + i + half, &a, &b);
            if (!damped) EXPECT_EQ(a, 0.0f) << "axis " << axis << " cell " << i << " + " << half;
            if (damped && half == 0) EXPECT_LT(a, 0.0f) << "axis " << axis << " cell " << i;
            EXPECT_GT(b, 0.0f);
          }
        }
    }
  }
}

// ---- Attenuation: the relaxation mechanisms against the constant Q they stand for ----

namespace {

// Q(f) and the phase velocity of a body with the fitted mechanisms, from the definition of the
// generalized Maxwell body (M / M_U = 1 - sum Y_l w_l / (w_l + i w)), written out here rather than
// through relative_modulus.
std::complex<double> gmb_modulus(const Relaxation& r, double f) {
  const std::complex<double> iw(0.0, 2.0 * M_PI * f);
  std::complex<double> m = 1.0;
  for (size_t l = 0; l < r.omega.size(); ++l) m -= r.y[l] * r.omega[l] / (r.omega[l] + iw);
  return m;
}
double gmb_q(const Relaxation& r, double f) {
  const std::complex<double> m = gmb_modulus(r, f);
  return m.real() / m.imag();
}
// Phase velocity w / Re(k), k = w sqrt(rho / M), for M = m_unrelaxed x the relative modulus.
double phase_velocity(const Relaxation& r, double f, double m_unrelaxed, double rho) {
  return 1.0 / std::sqrt(std::complex<double>(rho) / (m_unrelaxed * gmb_modulus(r, f))).real();
}

}  // namespace

// The figures: Q = 20, 50 and 600 within 5% over the band; the fewest mechanisms the
// library picks keep it within 1.5% (what attenuation.hpp promises), from half a decade to four.
TEST(Attenuation, FittedMechanismsHoldConstantQOverTheBand) {
  for (auto [f_min, f_max] : {std::pair{0.1, 10.0}, std::pair{0.5, 2.0}, std::pair{0.05, 50.0}, std::pair{0.01, 100.0}})
    for (double q : {5.0, 20.0, 50.0, 600.0, 5000.0}) {
      const Relaxation r = fit_constant_q(q, f_min, f_max, mechanisms_for(f_min, f_max));
      double worst = 0;
      for (int i = 0; i <= 300; ++i) {
        const double f = f_min * std::pow(f_max / f_min, i / 300.0);
        worst = std::max(worst, std::abs(gmb_q(r, f) / q - 1));
        EXPECT_NEAR(quality_at(r, f), gmb_q(r, f), 1e-9 * q);
      }
      EXPECT_LT(worst, 0.03) << "Q " << q << " over [" << f_min << ", " << f_max << "] Hz, "
                              << r.omega.size() << " mechanisms";
    }
  // Fewer mechanisms than that over two decades miss the 5% the issue asks for: the count matters.
  const Relaxation two = fit_constant_q(50, 0.1, 10, 2);
  double worst = 0;
  for (int i = 0; i <= 300; ++i) worst = std::max(worst, std::abs(gmb_q(two, 0.1 * std::pow(100, i / 300.0)) / 50 - 1));
  EXPECT_GT(worst, 0.05);
}

// Coarse-grained: the geometric mean of the eight cells' moduli (written out here from each cell's
// own standard linear solid) holds Q = 20, 50 and 600 within 5% over up to three
// decades, every Y_l within [0, 1) (stability), and each cell's real modulus at the band's centre is
// the same (element-specific unrelaxed moduli).
TEST(Attenuation, CoarseGrainedCubeHoldsConstantQOverTheBand) {
  for (auto [f_min, f_max] : {std::pair{0.1, 10.0}, std::pair{0.5, 2.0}, std::pair{0.2, 10.0}, std::pair{0.01, 10.0}})
    for (double q : {20.0, 50.0, 600.0}) {
      const Relaxation r = fit_coarse_q(q, f_min, f_max);
      ASSERT_EQ(r.omega.size(), size_t(kCubeMechanisms));
      auto cell = [&](int l, double f) {
        return element_unrelaxed(r, l) * (1.0 - r.y[l] * r.omega[l] / std::complex<double>(r.omega[l], 2 * M_PI * f));
      };
      double worst = 0;
      for (int i = 0; i <= 300; ++i) {
        const double f = f_min * std::pow(f_max / f_min, i / 300.0);
        std::complex<double> log_sum = 0.0;
        for (int l = 0; l < kCubeMechanisms; ++l) log_sum += std::log(cell(l, f));
        const std::complex<double> m = std::exp(log_sum / 8.0);
        worst = std::max(worst, std::abs(m.real() / m.imag() / q - 1));
      }
      EXPECT_LT(worst, 0.05) << "Q " << q << " over [" << f_min << ", " << f_max << "] Hz";
      for (int l = 0; l < kCubeMechanisms; ++l) {
        EXPECT_GE(r.y[l], 0.0);
        EXPECT_LT(r.y[l], 1.0);
        EXPECT_NEAR(cell(l, std::sqrt(f_min * f_max)).real(), 1.0, 1e-12);
      }
    }
}

// The velocity a user gives is the phase velocity at the reference frequency; around it a
// constant-Q medium disperses as c(f) / c(f_ref) = 1 + ln(f / f_ref) / (pi Q) to first order in 1/Q
// (Kjartansson 1979; Aki & Richards eq. 5.81).
TEST(Attenuation, UnrelaxedModulusKeepsTheVelocityAtTheReferenceAndDispersesAsConstantQ) {
  const double rho = 2500, vs = 1500, mu = rho * vs * vs, f_ref = 1.0, q = 50;
  const Relaxation r = fit_constant_q(q, 0.1, 10, mechanisms_for(0.1, 10));
  const double mu_u = unrelaxed_factor(r, f_ref) * mu;
  EXPECT_GT(mu_u, mu);  // the unrelaxed modulus is the stiffest
  EXPECT_NEAR(phase_velocity(r, f_ref, mu_u, rho) / vs, 1.0, 1e-12);
  for (double f : {0.2, 0.5, 2.0, 5.0}) {
    const double expected = 1 + std::log(f / f_ref) / (M_PI * q);
    EXPECT_NEAR(phase_velocity(r, f, mu_u, rho) / vs, expected, 0.05 * std::abs(expected - 1)) << f << " Hz";
  }
}

TEST(Attenuation, BadBandsAndQualityFactorsAreRefused) {
  EXPECT_THROW(fit_constant_q(0, 0.1, 10, 3), std::invalid_argument);
  EXPECT_THROW(fit_constant_q(50, 0, 10, 3), std::invalid_argument);
  EXPECT_THROW(fit_constant_q(50, 10, 1, 3), std::invalid_argument);
  EXPECT_THROW(fit_constant_q(50, 0.1, 10, 0), std::invalid_argument);
}

// Ondes3D's Day and Bradley on a geological model (computeIntermediates.c ComputeIntermediates,
// model == GEOLOGICAL): a stress point's shear gain is Q2A of the harmonic mean of two nodes' Qs
// (averageInverseDouble2), the normal stresses' over the nodes along y (its x corner), sxy's along
// x, sxz's and syz's along z, and the normal stresses' P gain the same (`Apx = Q2A(Qsx, ...)`,
// Qp unused there). Nodes of material A up to y = 3, B beyond: at a cell of y = 3 the gains read
// through the anelastic view, against Q2A written out from the original (one mechanism: their
// ratios are those of Q2A).
TEST(Attenuation, DayBradleyOnGeologicalNodesTakesEachPointsCornerQs) {
  Case c;
  c.grid.nx = c.grid.ny = c.grid.nz = 8, c.grid.h = 100;
  c.time.dt = 0.005;
  auto m = std::make_shared<Model3D>();
  m->nearest = true;
  m->nx = m->ny = m->nz = 8;
  m->origin = {0, -50, 0}, m->spacing = {100, 100, 100};
  const double qs_a = 30, qs_b = 120, qp = 400;
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) {
        m->vp.push_back(4000), m->vs.push_back(2300), m->rho.push_back(2500);
        m->inv_qp.push_back(float(1 / qp)), m->inv_qs.push_back(float(1 / (j <= 3 ? qs_a : qs_b)));
      }
  set_extremes(*m);
  c.medium.model = m;
  c.medium.model_q = true;
  c.medium.layer_sampling = LayerSampling::Ondes3d;
  DayBradley& d = c.medium.day_bradley;
  d.tau_min = 0.01, d.tau_max = 2, d.w0 = 6.28;
  const AnelasticShape q = anelastic_shape(c);
  ASSERT_EQ(q.per_cell, kCornerClasses);
  ASSERT_EQ(q.classes, 4);  // two materials' Qs, paired
  const BlockShape s{8, 8, 8};
  std::vector<char> buffer(AnelasticLayout::of(s, q).bytes);
  fill_anelastic(c, 0, 0, s, buffer.data());
  const AnelasticView a = anelastic_view(buffer.data(), s, q);
  auto q2a = [&](double qs) {  // computeIntermediates.c Q2A
    const double x = 2 / (M_PI * qs);
    return x * std::log(d.tau_max / d.tau_min) / (1 - x * std::log(d.w0 * d.tau_min));
  };
  const double mean = 2 / (1 / qs_a + 1 / qs_b);
  for (int y : {2, 3, 4}) {
    const CellRelaxation r = a.relaxation<1>(3, y, 4, s.idx(3, y, 4));
    const double normal = y == 3 ? mean : y < 3 ? qs_a : qs_b, xy = y < 3 ? qs_a : qs_b;
    const double z = y <= 3 ? qs_a : qs_b, yz = y < 3 ? qs_a : qs_b;
    EXPECT_EQ(r.p[0], r.s[0]) << "y " << y << ": the normal stresses' P gain is their shear gain";
    EXPECT_NEAR(r.shear(SXY)[0] / r.s[0], q2a(xy) / q2a(normal), 1e-6) << "y " << y << ": sxy";
    EXPECT_NEAR(r.shear(SXZ)[0] / r.s[0], q2a(z) / q2a(normal), 1e-6) << "y " << y << ": sxz";
    EXPECT_NEAR(r.shear(SYZ)[0] / r.s[0], q2a(yz) / q2a(normal), 1e-6) << "y " << y << ": syz";
    EXPECT_GT(r.s[0], 0.0f);
  }
}

// Ondes3D's Kristek and Moczo coefficients against the original's: alloAndInit.c InitializeKManelas
// run as the original's own code (built outside the project with KRISTEKandMOCZO, called on the
// layers of ../shared's chuetsu-layered-kristekmoczo: wmin 0.6, wmax 60 rad/s, dt 8 ms), its
// pulsations, moduli and Ylmu~ / Ylkap~ printed to 17 digits. Its 4 x 4 inverse pivots otherwise
// than our elimination: agreement to rounding, 1e-9 relative.
TEST(Attenuation, KristekMoczoCoefficientsAreTheOriginals) {
  struct Expected {
    double rho, vp, vs, qp, qs, mu, kap;
    std::array<double, 4> y_mu, y_kap;
  };
  const Expected layers[3] = {
      {2500, 5000, 2800, 40, 20, 20107816604.495022, 36509901453.282158,
       {1162367856.6285717, 793160486.26658356, 798644809.5131067, 1895400783.3369036},
       {528708410.16853416, 275751139.22837806, 301627969.73102069, 513741516.56196892}},
      {2600, 5500, 3100, 80, 40, 25313945684.558796, 45417526663.672462,
       {830947296.38559425, 533020722.84644365, 546288993.05107093, 1215695853.2708027},
       {276706986.81143022, 150280448.08393484, 161708239.22339228, 297890755.35621428}},
      {2700, 6000, 3460, 160, 80, 32536803607.432529, 54139593013.378716,
       {569053472.76817346, 353840587.43067968, 365807744.13491386, 788589781.66154981},
       {121575421.15285984, 67109403.572034299, 71788926.636724263, 135840403.56000507}}};
  const std::array<double, 4> pulsations = {0.6, 2.784953300167667, 12.9266081401913, 60};
  for (const Expected& e : layers) {
    const double mu = e.rho * e.vs * e.vs, kap = e.rho * e.vp * e.vp - 4.0 / 3.0 * mu;
    const KristekMoczoCoefficients km = kristek_moczo(e.rho, mu, kap, e.qp, e.qs, 0.6, 60, 0.008);
    auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b); };
    EXPECT_TRUE(near(km.mu, e.mu)) << km.mu << " vs " << e.mu;
    EXPECT_TRUE(near(km.kap, e.kap)) << km.kap << " vs " << e.kap;
    for (int l = 0; l < 4; ++l) {
      EXPECT_TRUE(near(km.pulsations[l], pulsations[l])) << l;
      EXPECT_TRUE(near(km.y_mu[l], e.y_mu[l])) << "Qs " << e.qs << " l " << l << ": " << km.y_mu[l] << " vs " << e.y_mu[l];
      EXPECT_TRUE(near(km.y_kap[l], e.y_kap[l])) << "Qp " << e.qp << " l " << l << ": " << km.y_kap[l] << " vs " << e.y_kap[l];
    }
  }
  EXPECT_THROW(kristek_moczo(2500, 1e10, 2e10, 40, 20, 60, 0.6, 0.008), std::invalid_argument);
}
