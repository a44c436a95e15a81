// The GPU Ondes3D's 3D velocity model (KEY = value dialect, MODEL_TYPE = 3D with MODEL_FILE),
// written by the test: a model linear in its rotated coordinates, which the GPU code's trilinear
// interpolation (victor/codes/standard-ondes3d/GPU/ONDES3D_GPGPU_MPI_1D&3D_MODELS/src/ondes3D_main.c)
// reproduces exactly between its samples and holds at their last values outside them. Every grid
// cell must take the value at its GPU-code node (i, j, k) = (y + XMIN - DELTA, x + YMIN - DELTA, 1 - z),
// clamped to the domain [XMIN, XMAX] x [YMIN, YMAX] x [ZMIN, 1] (its C-PML takes the face's values);
// `check` reports the model's velocity range; a file with too few samples is refused with its line.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "io/case/case_reader.hpp"
#include "physics/model3d.hpp"
#include "shell.hpp"

using namespace ondes;
namespace fs = std::filesystem;

namespace {

constexpr double kTheta = 30.0, kX0 = 0.2, kY0 = -0.3;  // degrees, km
const double kXs[4] = {-3, -1, 1, 3}, kYs[3] = {-2, 0, 2}, kZs[3] = {0, 1, 3};  // km (depth)

// The model's vp, vs, rho (km/s, g/cm3) at its coordinates: linear, so trilinear is exact.
std::array<double, 3> linear(double x, double y, double z) {
  return {5.0 + 0.1 * x + 0.05 * y + 0.2 * z, 2.5 + 0.05 * x + 0.02 * y + 0.1 * z, 2.5 + 0.01 * x - 0.01 * z};
}

class Ondes3dModel3d : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("ondes3d_model3d_{}", getpid());
    fs::create_directories(dir_ / "out");
    write("src.map", "1\n150. -50. -1200.\n1 150. -50. -1200.\n");
    std::string hist = "a 1-point history\nfree line\n100. 0.02\n40\n1 30. 60. 90\n";
    for (int k = 0; k < 40; ++k) hist += fmt::format("{:.6e} ", 0.5 * std::exp(-std::pow((k * 0.02 - 0.3) / 0.12, 2)));
    write("src.hist", hist + "\n");
    write("stations.txt", "1\n1 0. 0. 0.\n");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  // The model file, `drop` samples short.
  void model(int drop = 0) {
    std::string t;
    for (double z : kZs)
      for (double y : kYs)
        for (double x : kXs) {
          const auto v = linear(x, y, z);
          t += fmt::format("{:.3f} {:.3f} {:.3f} {:.6f} {:.6f} {:.6f}\n", x, y, z, v[0], v[1], v[2]);
        }
    for (int d = 0; d < drop; ++d) t.erase(t.rfind('\n', t.size() - 2) + 1);
    write("model.txt", t);
  }
  fs::path prm() {
    return write("kv3d.prm", fmt::format("NDIM = 4\nXMIN = -14\nXMAX = 15\nYMIN = -11\nYMAX = 12\nZMIN = -19\n"
                                         "TIME_STEPS = 20\nDS = 100.\nDT = 0.008\nDF = 1.5\nOUTPUT_DIR = out\n"
                                         "SOURCES = src.map\nSOURCE_TIME_FUNCTION = src.hist\nSTATIONS = stations.txt\n"
                                         "MODEL_TYPE = 3D\nMODEL_FILE = model.txt\nIMAX = 4\nJMAX = 3\nKMAX = 3\n"
                                         "THETA = {}\nX0 = {}\nY0 = {}\n",
                                         kTheta, kX0, kY0));
  }
  fs::path dir_;
};

TEST_F(Ondes3dModel3d, EveryCellTakesItsNodesInterpolatedValue) {
  model();
  const fs::path p = prm();
  const Case c = read_case(p.string());
  ASSERT_TRUE(c.medium.model);
  const Model3D& m = *c.medium.model;
  ASSERT_EQ(m.nx, c.grid.nx);
  ASSERT_EQ(m.nz, c.grid.nz);
  const double th = kTheta * M_PI / 180.0;
  double worst = 0;
  int held = 0;
  for (int z = 0; z < m.nz; ++z)
    for (int y = 0; y < m.ny; ++y)
      for (int x = 0; x < m.nx; ++x) {
        const int i = std::clamp(y - 14 - 10, -14, 15), j = std::clamp(x - 11 - 10, -11, 12), k = std::clamp(1 - z, -19, 1);
        const double xd = (i - 1) * 0.1 - kX0, yd = (j - 1) * 0.1 - kY0;
        double xr = xd * std::cos(th) - yd * std::sin(th), yr = xd * std::sin(th) + yd * std::cos(th), zr = -(k - 1) * 0.1;
        held += xr < -3 || xr > 3 || yr < -2 || yr > 2;
        xr = std::clamp(xr, -3.0, 3.0), yr = std::clamp(yr, -2.0, 2.0), zr = std::clamp(zr, 0.0, 3.0);
        const auto v = linear(xr, yr, zr);
        const size_t q = (size_t(z) * m.ny + y) * m.nx + x;
        worst = std::max({worst, std::abs(m.vp[q] - 1000 * v[0]) / (1000 * v[0]), std::abs(m.vs[q] - 1000 * v[1]) / (1000 * v[1]),
                          std::abs(m.rho[q] - 1000 * v[2]) / (1000 * v[2])});
      }
  EXPECT_LT(worst, 2e-6) << "the GPU code's value at each cell's node";
  EXPECT_EQ(held, 0) << "the test's grid lies inside the model's samples";
  // Its top cells (k = 1, depth 0) lie on the first z sample; its lowest (k = -19, 2 km) between two.
  const auto r = ondes::test::shell(std::string(ONDES_BINARY) + " check " + p.string(), dir_ / "log.txt");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(vp max 5[0-9]{3})"))) << r.output;
}

TEST_F(Ondes3dModel3d, ShortFileAndWithoutModelFile) {
  model(1);
  auto r = ondes::test::shell(std::string(ONDES_BINARY) + " check " + prm().string(), dir_ / "log.txt");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(model\.txt:36 \(Ondes3D 3D velocity model.*: the file ends)"))) << r.output;
  // Without MODEL_FILE, the layers run, with a warning (the StarPU port's behaviour).
  std::string text = "NDIM = 4\nXMIN = -14\nXMAX = 15\nYMIN = -11\nYMAX = 12\nZMIN = -19\nTIME_STEPS = 20\nDS = 100.\n"
                     "DT = 0.008\nDF = 1.5\nOUTPUT_DIR = out\nSOURCES = src.map\nSOURCE_TIME_FUNCTION = src.hist\n"
                     "STATIONS = stations.txt\nMODEL_TYPE = 3D\nNB_LAYERS = 1\nLAYER_1\t1.\t4000.\t2300.\t2500.\t-1.\n";
  r = ondes::test::shell(std::string(ONDES_BINARY) + " check " + write("layers.prm", text).string(), dir_ / "log.txt");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(MODEL_TYPE = 3D without MODEL_FILE: the layers)"))) << r.output;
}

}  // namespace
