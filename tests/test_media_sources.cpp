// 3D models from HDF5 and kinematic finite faults, checked against physics: a layered medium
// given as a 3D model is the same medium (identical seismograms); a fault of N co-located points
// of M0/N each is the point source of M0 (superposition), and a rupture delayed by dt0 delays the
// seismograms by dt0.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/ranges.h>

#include "helpers.hpp"
#include "io/case/case_reader.hpp"
#include "io/case/fault_reader.hpp"
#include "io/results/model_reader.hpp"
#include "partition/block_data.hpp"
#include "physics/grid_setup.hpp"
#include "physics/medium.hpp"
#include "physics/source.hpp"

namespace ondes {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ondes_media_" + std::to_string(getpid()) + "_" + name)).string();
}

// A model sampling a linear field exactly: trilinear interpolation must return it everywhere.
Model3D linear_model(double h) {
  Model3D m;
  m.nx = 7, m.ny = 5, m.nz = 4;
  m.origin = {-100, -50, 0};
  m.spacing = {h, 2 * h, 3 * h};
  for (int k = 0; k < m.nz; ++k)
    for (int j = 0; j < m.ny; ++j)
      for (int i = 0; i < m.nx; ++i) {
        const double x = m.origin[0] + i * m.spacing[0], y = m.origin[1] + j * m.spacing[1], z = k * m.spacing[2];
        m.vp.push_back(static_cast<float>(4000 + x + 2 * y + 3 * z));
        m.vs.push_back(static_cast<float>(2000 + 0.1 * x));
        m.rho.push_back(static_cast<float>(2500 + 0.5 * z));
      }
  return m;
}

TEST(Model3D, ReadBackAndTrilinearReproducesALinearField) {
  const std::string path = temp_path("linear.h5");
  write_model(path, linear_model(100));
  const auto m = read_model(path);
  ASSERT_EQ(m->nx, 7);
  ASSERT_EQ(m->nz, 4);
  for (double x : {-100.0, -37.5, 260.0, 500.0})
    for (double y : {-50.0, 111.0, 750.0})
      for (double z : {0.0, 123.0, 900.0}) {
        const Layer l = m->at(x, y, z);
        EXPECT_NEAR(l.vp, 4000 + x + 2 * y + 3 * z, 1e-3) << x << " " << y << " " << z;
        EXPECT_NEAR(l.vs, 2000 + 0.1 * x, 1e-3);
        EXPECT_NEAR(l.rho, 2500 + 0.5 * z, 1e-3);
      }
  EXPECT_FLOAT_EQ(static_cast<float>(m->vp_max), 4000 + 500 + 2 * 750 + 3 * 900);
  std::filesystem::remove(path);
}

TEST(Model3D, MismatchesAreRefusedWithFileAndDataset) {
  const std::string path = temp_path("bad.h5");
  Model3D m = linear_model(100);
  m.rho.pop_back();  // written with the wrong shape below
  m.rho.resize(size_t(m.nx) * m.ny * m.nz, 2500.0f);
  m.vs[17] = static_cast<float>(m.vp[17]);  // vs >= vp / sqrt(2)
  write_model(path, m);
  try {
    read_model(path);
    FAIL() << "accepted vs >= vp / sqrt(2)";
  } catch (const CaseError& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex("bad.h5: at sample 17 .*vs = .* is not below vp")))
        << e.what();
  }
  try {
    read_model(temp_path("missing.h5"));
    FAIL();
  } catch (const CaseError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the model"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

// A 30^3 case on model.h5 beside it, with more [medium] lines.
std::string model_case(const std::string& medium) {
  return "[grid]\nnx = 30\nny = 30\nnz = 30\nh = 10.0\n[time]\ndt = 0.0005\nsteps = 10\n"
         "[medium]\nmodel = \"model.h5\"\n" +
         medium +
         "[[sources]]\ntype = \"force\"\nposition = [150.0, 150.0, 150.0]\nforce = [1.0, 0.0, 0.0]\n"
         "stf = { type = \"ricker\", f0 = 10.0 }\n";
}

// Q in a model: /qp and /qs both or neither, each >= 1, interpolated as 1/Q; a case with a model's
// Q needs q_band, and q_band needs a model's Q.
TEST(Model3D, QualityFactorsAreReadCheckedAndNeedTheirBand) {
  const std::string dir = temp_path("q");
  std::filesystem::create_directories(dir);
  Model3D m = linear_model(100);
  for (size_t q = 0; q < m.vp.size(); ++q) m.inv_qp.push_back(q % 2 ? 1.0f / 50 : 1.0f / 100), m.inv_qs.push_back(1.0f / 40);
  write_model(dir + "/model.h5", m);
  const auto read = read_model(dir + "/model.h5");
  ASSERT_TRUE(read->attenuating());
  EXPECT_NEAR(read->qp_min, 50, 1e-3);
  const Layer mid = read->at(-50, -50, 0);  // half-way between samples 0 (Qp 100) and 1 (Qp 50)
  EXPECT_NEAR(mid.qp, 1 / (0.5 / 100 + 0.5 / 50), 1e-3);
  EXPECT_NEAR(mid.qs, 40, 1e-3);
  const std::string text = model_case("q_band = [0.5, 10.0]\n");
  const Case ok = parse_case(text, dir + "/case.toml");
  EXPECT_TRUE(ok.medium.attenuating());
  auto refused = [&](const std::string& t, const std::string& pattern) {
    try {
      parse_case(t, dir + "/case.toml");
      ADD_FAILURE() << "accepted: " << pattern;
    } catch (const CaseError& e) {
      EXPECT_TRUE(std::regex_search(e.what(), std::regex(pattern))) << e.what();
    }
  };
  refused(std::regex_replace(text, std::regex("q_band = .*\n"), ""), R"(medium\.q_band: missing)");
  m.inv_qs.clear();
  write_model(dir + "/model.h5", m);
  refused(text, R"(model\.h5: dataset '/qs' is missing \(a model with attenuation needs both /qp and /qs\))");
  m.inv_qs.assign(m.inv_qp.size(), 1.0f / 40);
  m.inv_qs[5] = 2.0f;  // Q = 0.5
  write_model(dir + "/model.h5", m);
  refused(text, R"(at sample 5 .*qs = 0\.5 is not a quality factor >= 1)");
  m.inv_qp.clear(), m.inv_qs.clear();
  write_model(dir + "/model.h5", m);
  refused(text, R"(medium\.q_band: given without any qp/qs)");
  std::filesystem::remove_all(dir);
}

// The case refers to the model by a path relative to itself; a model that does not cover the grid
// is refused, naming the axis and both extents.
TEST(Model3D, CaseRefusesAModelThatDoesNotCoverTheGrid) {
  const std::string dir = temp_path("case");
  std::filesystem::create_directories(dir);
  Model3D m = linear_model(100);  // x from -100 to 500 m
  write_model(dir + "/model.h5", m);
  const std::string text = model_case("");
  const Case ok = parse_case(text, dir + "/case.toml");
  ASSERT_TRUE(ok.medium.model);
  EXPECT_NO_THROW(validate_case(ok));
  const Case bad = parse_case(std::regex_replace(text, std::regex("nx = 30"), "nx = 80"), dir + "/case.toml");
  try {
    validate_case(bad);
    FAIL() << "accepted a model shorter than the grid";
  } catch (const CaseError& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex(R"(model.h5 covers x in \[-100, 500\] m .* samples it in \[0, 790\] m)")))
        << e.what();
  }
  EXPECT_THROW(parse_case(std::regex_replace(text, std::regex("model = \"model.h5\""), "model = \"model.h5\"\nvp = 1.0"),
                          dir + "/case.toml"),
               CaseError);
  // Ondes3D's sampling takes a model's samples as its geological nodes: an interpolated model is refused.
  try {
    parse_case(std::regex_replace(text, std::regex("model = \"model.h5\""), "model = \"model.h5\"\nlayer_sampling = \"ondes3d\""),
               dir + "/case.toml");
    FAIL() << "accepted Ondes3D's node sampling of an interpolated model";
  } catch (const CaseError& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex(R"(layer_sampling: "ondes3d" with a model .* must be categorical)")))
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

// A two-layer medium, as [[medium.layers]] and as a 3D model sampled every h/2 (offset so that
// the model's samples do not start at the grid's corner): the material at every grid point is the
// same, so are the seismograms. The interface lies half-way between grid points, where no grid
// point's cell straddles it (cell averaging, physics/medium.hpp, leaves the layers' values).
Case two_layers() {
  Case c = test::cube(36, 50.0, 4000, 2000, 2600, 0.004, 150, 8, true);
  c.grid.nz = 30;
  c.medium.layers = {{0, 4000, 2000, 2600}, {625, 6000, 3464, 2700}};
  Source s;
  s.kind = SourceKind::Moment;
  s.position = {900, 880, 800};
  s.moment = double_couple(30, 60, 90, 1e15);
  s.stf = {StfKind::SmoothRamp, 0, 0.05, 0.1};
  c.sources = {s};
  c.stations = {test::station("A", 900, 1300, 0), test::station("B", 1200, 700, 0), test::station("C", 700, 700, 400)};
  return c;
}

TEST(Model3D, LayeredMediumAsAModelGivesTheSameSeismograms) {
  const Case layered = two_layers();
  Model3D m;
  const double step = layered.grid.h / 2;
  m.origin = {-2 * step, -step, 0};
  m.spacing = {step, step, step};
  m.nx = 2 * layered.grid.nx + 2;
  m.ny = 2 * layered.grid.ny + 1;
  m.nz = 2 * layered.grid.nz - 1;
  for (int k = 0; k < m.nz; ++k)
    for (int j = 0; j < m.ny; ++j)
      for (int i = 0; i < m.nx; ++i) {
        const Layer& l = layer_at(layered.medium, k * step);
        m.vp.push_back(float(l.vp)), m.vs.push_back(float(l.vs)), m.rho.push_back(float(l.rho));
      }
  const std::string path = temp_path("layers.h5");
  write_model(path, m);
  Case modelled = layered;
  modelled.medium.layers.clear();
  modelled.medium.model = read_model(path);
  EXPECT_NO_THROW(validate_case(modelled));
  const auto a = test::run(layered), b = test::run(modelled);
  ASSERT_EQ(a.size(), b.size());
  double peak = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i], b[i]) << "sample " << i;
    peak = std::max(peak, double(std::fabs(a[i])));
  }
  EXPECT_GT(peak, 1e-6);
  std::filesystem::remove(path);
}

// ---- finite faults

std::string write_fault(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path) << text;
  return path;
}

// The CUDA kernels read a block's material once a plane where every plane is uniform, ghosts
// included (uniform_planes): true of a layered medium's blocks, false of a 3D model varying along x
// and y, and false once a single ghost cell the stencils read differs.
TEST(Material, UniformPlanesFoundInLayersNotInAModel) {
  Case c = test::cube(24, 100, 4000, 2300, 2500, 0.008, 10, 6, true);
  c.medium.layers.push_back({900, 5000, 2900, 2700});
  const BlockShape s{10, 9, c.grid.nz};
  std::vector<float> mat(s.material_floats());
  fill_material(c, 7, 8, s, mat.data());
  EXPECT_TRUE(uniform_planes(s, mat.data()));
  mat[IMU * s.cells() + s.idx(s.nx, s.ny + 1, s.nz)] *= 1.0001f;  // a ghost plane nz - 1's stencils read
  EXPECT_FALSE(uniform_planes(s, mat.data()));
  test::use_heterogeneous_model(c);
  fill_material(c, 7, 8, s, mat.data());
  EXPECT_FALSE(uniform_planes(s, mat.data()));
}

TEST(FiniteFault, ColocatedPointsAddUpToThePointSource) {
  const Case point = two_layers();
  const Source& s = point.sources[0];
  constexpr int n = 1000;
  std::string text = "# x y z m0 strike dip rake rupture_time rise_time\nx, y, z, m0, strike, dip, rake, rupture_time, rise_time\n";
  for (int q = 0; q < n; ++q)
    text += fmt::format("{} {} {} {} 30 60 90 0.05 0.1\n", s.position[0], s.position[1], s.position[2], 1e15 / n);
  const std::string path = write_fault("colocated.txt", text);
  Case fault = point;
  fault.sources = read_fault(path, StfKind::SmoothRamp);
  ASSERT_EQ(fault.sources.size(), size_t(n));
  const auto a = test::run(point), b = test::run(fault);
  double diff = 0, norm = 0;
  for (size_t i = 0; i < a.size(); ++i) diff += (a[i] - b[i]) * double(a[i] - b[i]), norm += a[i] * double(a[i]);
  EXPECT_GT(norm, 0);
  EXPECT_LT(std::sqrt(diff / norm), 1e-5);  // the coefficients M0/N differ in their last bits
  std::filesystem::remove(path);
}

// One point, its moment tensor in columns, starting at t0.
std::string tensor_fault(const Source& s, double t0) {
  return fmt::format("x y z mxx myy mzz mxy mxz myz rupture_time rise_time\n{} {} {} {} {} 0.1\n", s.position[0],
                     s.position[1], s.position[2], fmt::join(s.moment, " "), t0);
}

TEST(FiniteFault, RuptureTimeDelaysTheSeismograms) {
  Case c = two_layers();
  const Source& s = c.sources[0];
  const int shift = 20;  // steps
  const std::string early = write_fault("early.txt", tensor_fault(s, 0.05));
  const std::string late = write_fault("late.txt", tensor_fault(s, 0.05 + shift * c.time.dt));
  c.sources = read_fault(early, StfKind::SmoothRamp);
  const auto a = test::run(c);
  c.sources = read_fault(late, StfKind::SmoothRamp);
  const auto b = test::run(c);
  const int steps = c.time.steps;
  double diff = 0, norm = 0;
  for (size_t st = 0; st < c.stations.size(); ++st)
    for (int comp = 0; comp < 3; ++comp)
      for (int t = 0; t + shift < steps; ++t) {
        const double x = a[(st * 3 + comp) * steps + t], y = b[(st * 3 + comp) * steps + t + shift];
        diff += (x - y) * (x - y), norm += x * x;
      }
  EXPECT_GT(norm, 0);
  EXPECT_LT(std::sqrt(diff / norm), 1e-3);
  std::filesystem::remove(early);
  std::filesystem::remove(late);
}

// [[faults]] in a case: the file is found beside the case, its points become moment sources with
// the chosen time function, and a point inside the PML is a warning naming the fault file's line.
TEST(FiniteFault, CaseReadsFaultsBesideItAndChecksEachPoint) {
  const std::string dir = temp_path("fault_case");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/fault.txt") << "x y z m0 strike dip rake rupture_time rise_time\n"
                                       "150 150 150 1e15 0 90 0 0.0 0.2\n"
                                       "160 150 150 1e15 0 90 0 0.1 0.2\n"
                                       "10 150 150 1e15 0 90 0 0.2 0.2\n";
  const std::string text =
      "[grid]\nnx = 30\nny = 30\nnz = 30\nh = 10.0\n[time]\ndt = 0.0005\nsteps = 10\n"
      "[medium]\nvp = 4000.0\nvs = 2000.0\nrho = 2500.0\n[boundaries]\npml_width = 5\n"
      "[[faults]]\nfile = \"fault.txt\"\nstf = \"triangle\"\n";
  const Case c = parse_case(text, dir + "/case.toml");
  ASSERT_EQ(c.sources.size(), 3u);
  ASSERT_EQ(c.faults.size(), 1u);
  EXPECT_EQ(c.faults[0].count, 3u);
  EXPECT_EQ(c.sources[1].stf.kind, StfKind::Triangle);
  EXPECT_DOUBLE_EQ(c.sources[1].stf.t0, 0.1);
  EXPECT_DOUBLE_EQ(c.sources[1].stf.duration, 0.2);
  EXPECT_NEAR(c.sources[0].moment[3], double_couple(0, 90, 0, 1e15)[3], 1);
  const std::vector<std::string> warnings = validate_case(c);  // inside the PML: run, with a warning
  ASSERT_FALSE(warnings.empty());
  EXPECT_NE(warnings.back().find("1 source point(s) lie inside the 5-cell PML"), std::string::npos) << warnings.back();
  EXPECT_NE(warnings.back().find("fault.txt:4: point source"), std::string::npos) << warnings.back();
  EXPECT_THROW(parse_case(std::regex_replace(text, std::regex("triangle"), "boxcar"), dir + "/case.toml"), CaseError);
  std::filesystem::remove_all(dir);
}

TEST(FiniteFault, BadFilesAreRefusedWithFileLineAndColumn) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"x y z m0 strike dip rake rupture_time\n", "lacks column 'rise_time'"},
      {"x y z m0 strike dip rake rupture_time rise_time speed\n", "unknown column 'speed'"},
      {"x y z m0 strike dip rake rupture_time rise_time\n1 2 3 1e15 0 95 0 0 0.1\n", ":2: dip = 95 is outside"},
      {"# header next\n\nx y z m0 strike dip rake rupture_time rise_time\n1 2 3 1e15 0 45 0 0 0.1\n1 2 3\n",
       ":5: 3 values, but the header names 9 columns"},
      {"x y z m0 strike dip rake rupture_time rise_time\n1 2 3 abc 0 45 0 0 0.1\n", ":2: m0 = 'abc' is not a finite number"},
      {"x y z m0 strike dip rake rupture_time rise_time\n1 2 3 1e15 0 45 0 0 0\n", "rise_time = 0 is outside"},
      {"x y z m0 strike dip rake rupture_time rise_time\n", "followed by no point source"},
  };
  for (const auto& [text, message] : cases) {
    const std::string path = write_fault("bad.txt", text);
    try {
      read_fault(path, StfKind::Triangle);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const CaseError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("bad.txt"), std::string::npos) << e.what();
    }
    std::filesystem::remove(path);
  }
}

}  // namespace
}  // namespace ondes
