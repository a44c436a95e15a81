// Ondes3D's surface snapshot files (a .prm's <i0> <j0> <k0>) against the files the original CPU
// Ondes3D wrote for the same run (tests/data/ondes3d-surface: its README says how they were made):
// the same names, the same headers byte for byte, the same values (velocity and displacement) at
// every point below the free surface and at the velocities it extrapolates above it outside its
// C-PML; and the files' values are those of the run's HDF5 planes.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "h5read.hpp"
#include "ondes3d_sets.hpp"
#include "shell.hpp"

namespace fs = std::filesystem;

namespace {

fs::path sets() { return ondes::test::ondes3d_sets(); }

std::string read_file(const fs::path& p, bool gz) {
  std::string out;
  if (!gz) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  gzFile f = gzopen(p.string().c_str(), "rb");
  if (!f) return out;
  char buf[65536];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  gzclose(f);
  return out;
}

struct Vtk {
  std::string header;  // its ten lines
  int dims[3] = {0, 0, 0};
  std::vector<float> v;  // [point][3]
};

Vtk parse(const std::string& text) {
  Vtk f;
  size_t pos = 0;
  for (int l = 0; l < 10 && pos != std::string::npos; ++l) pos = text.find('\n', pos) + 1;
  f.header = text.substr(0, pos);
  std::sscanf(f.header.c_str() + f.header.find("DIMENSIONS"), "DIMENSIONS %d %d %d", &f.dims[0], &f.dims[1], &f.dims[2]);
  for (size_t q = pos; q + 4 <= text.size(); q += 4) {
    unsigned char b[4] = {(unsigned char)text[q + 3], (unsigned char)text[q + 2], (unsigned char)text[q + 1],
                          (unsigned char)text[q]};
    float x;
    std::memcpy(&x, b, 4);
    f.v.push_back(x);
  }
  return f;
}

class Ondes3dSurface : public ondes::test::WithOndes3dSets {
 protected:
  void SetUp() override {
    WithOndes3dSets::SetUp();
    if (IsSkipped()) return;
    fs::create_directories(dir_ / "parameters" / "chuetsu-oki");
    fs::create_directories(dir_ / "output" / "chuetsu-oki");
    const fs::path p = dir_ / "parameters" / "chuetsu-oki";
    fs::copy_file(sets() / "parameters" / "chuetsu-oki" / "chuetsu-oki.hist", p / "chuetsu-oki.hist");
    std::ofstream(p / "chuetsu-oki.map") << "1\n-2000.0 0.0 -1500.0\n1\t-2000.0\t0.0\t-1500.0\n";
    std::ofstream(p / "station.map") << "1\n\t1\t-2000.00\t500.00\t0.0\n";
    std::string prm = read_file(sets() / "reference" / "chuetsu-homog" / "parameters" / "chuetsu-oki" / "chuetsu-oki.prm", false);
    prm = std::regex_replace(prm, std::regex("<tmax> 400 </tmax>"), "<tmax> 60 </tmax>");
    prm = std::regex_replace(prm, std::regex("<xMin> -50 </xMin> <xMax> 20 </xMax>"), "<xMin> -35 </xMin> <xMax> -5 </xMax>");
    prm = std::regex_replace(prm, std::regex("<yMin> -30 </yMin> <yMax> 40 </yMax>"), "<yMin> -15 </yMin> <yMax> 15 </yMax>");
    prm = std::regex_replace(prm, std::regex("<zMin> -90 </zMin>"), "<zMin> -30 </zMin>");
    prm = std::regex_replace(prm, std::regex("<j0> 1 </j0>"), "<j0> -10 </j0>");
    std::ofstream(p / "chuetsu-oki.prm") << prm;
  }
  ondes::test::CommandResult run(const std::string& args) {
    return ondes::test::shell("cd " + dir_.string() + " && " + ONDES_BINARY + " run parameters/chuetsu-oki/chuetsu-oki.prm " + args,
                              dir_ / "log.txt");
  }
};

// The variant's geometry: its i in [-44, 6], j in [-24, 26], k in [-39, 2]; the C-PML outside
// [-35, -5] x [-15, 15].
bool in_pml(char axis, int index) { return axis == 'x' ? index < -35 || index > -5 : index < -15 || index > 15; }

TEST_F(Ondes3dSurface, FilesAreTheOriginalsBelowAndAboveTheSurface) {
  const auto r = run("--snapshot-every 30 --snapshot-quantity both --blocks 1x2");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* name : {"surfacexyvel006000", "surfacexzvel006000", "surfaceyzvel006000", "surfacexydisp006000",
                           "surfacexzdisp006000", "surfaceyzdisp006000"}) {
    const fs::path mine = dir_ / "output" / "chuetsu-oki" / (std::string(name) + ".vtk");
    ASSERT_TRUE(fs::exists(mine)) << mine;
    const std::string first = std::regex_replace(std::string(name), std::regex("006000$"), "003000.vtk");
    EXPECT_TRUE(fs::exists(dir_ / "output" / "chuetsu-oki" / first)) << first << ": every SURFACE_STEP (30)";
    const Vtk ours = parse(read_file(mine, false));
    const Vtk ref = parse(read_file(fs::path(ONDES_SOURCE_DIR) / "tests" / "data" / "ondes3d-surface" / (std::string(name) + ".vtk.gz"), true));
    EXPECT_EQ(ours.header, ref.header) << name;
    ASSERT_EQ(ours.v.size(), ref.v.size()) << name;
    const std::string n(name);
    const char plane = n.compare(7, 2, "xy") == 0 ? 'z' : n.compare(7, 2, "xz") == 0 ? 'y' : 'x';  // its normal
    const bool disp = n.find("disp") != std::string::npos;
    const int nf = plane == 'x' ? ref.dims[1] : ref.dims[0], ns = int(ref.v.size() / 3) / nf;
    // The yz file's plane: i0 = -19 (velocity), j0 = -10 (displacement, as its code has it).
    const bool plane_in_pml = plane == 'x' ? in_pml('x', disp ? -10 : -19) : plane == 'y' && in_pml('y', -10);
    for (int c = 0; c < 3; ++c) {
      // All its points, and those of the physical domain (outside its C-PML, where the surface
      // columns follow our interior rule: codelets/surface.hpp).
      double diff = 0, norm = 0, inner_diff = 0, inner_norm = 0;
      for (int s = 0; s < ns; ++s)
        for (int f = 0; f < nf; ++f) {
          const size_t q = (size_t(s) * nf + f) * 3 + c;
          const double d = double(ours.v[q]) - ref.v[q], e = double(ref.v[q]) * ref.v[q];
          const bool inner = plane == 'z' ? !in_pml('x', f - 44) && !in_pml('y', s - 24)
                                          : !plane_in_pml && !in_pml(plane == 'x' ? 'y' : 'x', f + (plane == 'x' ? -24 : -44));
          diff += d * d, norm += e;
          if (inner) inner_diff += d * d, inner_norm += e;
        }
      ASSERT_GT(norm, 0) << name << " component " << c << " holds no motion";
      EXPECT_LT(std::sqrt(diff / norm), 1e-3) << name << " component " << c;
      if (inner_norm > 0) EXPECT_LT(std::sqrt(inner_diff / inner_norm), 5e-5) << name << " component " << c << " outside the C-PML";
    }
  }
}

// The xy file holds the HDF5 plane z = 0 of the same run (Ondes3D's axes: its vx our vy, its vy our
// vx, its vz our -vz; every grid point is among its points, the rest are 0).
TEST_F(Ondes3dSurface, FilesHoldTheRunsHdf5Planes) {
  const auto r = run("--snapshot-every 30 --steps 30");
  ASSERT_EQ(r.code, 0) << r.output;
  const fs::path out = dir_ / "output" / "chuetsu-oki";
  EXPECT_FALSE(fs::exists(out / "surfacexydisp003000.vtk")) << "Ondes3D's stock builds write the velocity only";
  const Vtk xy = parse(read_file(out / "surfacexyvel003000.vtk", false));
  const std::string h5 = (out / "chuetsu-oki_snapshots.h5").string();
  const char* ours[3] = {"vy", "vx", "vz"};
  for (int c = 0; c < 3; ++c) {
    const std::vector<float> plane = ondes::test::read_floats(h5, std::string("/z0/00000029/") + ours[c]);
    double file = 0, hdf5 = 0;
    for (size_t q = c; q < xy.v.size(); q += 3) file += double(xy.v[q]) * xy.v[q];
    for (float v : plane) hdf5 += double(v) * v;
    ASSERT_GT(hdf5, 0) << ours[c];
    EXPECT_NEAR(file, hdf5, 1e-12 * hdf5) << "its component " << c << " against our " << ours[c];
  }
}

}  // namespace

namespace {

// `convert` keeps them: the converted case, run from elsewhere on other blocks, writes the same
// files to the byte, where the .prm's run writes them.
TEST_F(Ondes3dSurface, ConvertedCaseWritesTheSameFiles) {
  ASSERT_EQ(run("--snapshot-every 30 --snapshot-quantity both").code, 0);
  const fs::path out = dir_ / "output" / "chuetsu-oki", prm_run = dir_ / "prm_run";
  fs::create_directories(prm_run);
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().extension() == ".vtk") fs::rename(e.path(), prm_run / e.path().filename());
  const auto c = ondes::test::shell("cd " + dir_.string() + " && " + ONDES_BINARY +
                                        " convert parameters/chuetsu-oki/chuetsu-oki.prm --output converted.toml",
                                    dir_ / "log.txt");
  ASSERT_EQ(c.code, 0) << c.output;
  const auto r = ondes::test::shell(std::string("cd / && ") + ONDES_BINARY + " run " + (dir_ / "converted.toml").string() +
                                        " --snapshot-every 30 --snapshot-quantity both --blocks 2x1",
                                    dir_ / "log.txt");
  ASSERT_EQ(r.code, 0) << r.output;
  int files = 0;
  for (const auto& e : fs::directory_iterator(prm_run)) {
    EXPECT_EQ(read_file(out / e.path().filename(), false), read_file(e.path(), false)) << e.path().filename();
    ++files;
  }
  EXPECT_EQ(files, 12) << "xy, xz, yz; velocity and displacement; steps 30 and 60";
}

}  // namespace

namespace {

// A restart goes on with the displacement's sums from the checkpoint (1x3 to 1x2 blocks): the files
// of step 60 those of the uninterrupted run, byte for byte (the checkpoint keeps Ondes3D's surface
// state past the grid's last column too: io/results/checkpoint.cpp surface_edge). A checkpoint of a run
// without displacement planes cannot carry them: refused with the way out (exit 2, nothing run).
TEST_F(Ondes3dSurface, RestartCarriesTheDisplacement) {
  const fs::path out = dir_ / "output" / "chuetsu-oki", whole = dir_ / "whole";
  ASSERT_EQ(run("--snapshot-every 30 --snapshot-quantity both --blocks 1x3").code, 0);
  fs::create_directories(whole);
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().extension() == ".vtk") fs::rename(e.path(), whole / e.path().filename());
  ASSERT_EQ(run("--snapshot-every 30 --snapshot-quantity both --blocks 1x3 --steps 30 --checkpoint-every 30").code, 0);
  const std::string checkpoint = " --restart output/chuetsu-oki/chuetsu-oki.checkpoint.h5 --snapshot-every 30";
  auto r = run("--blocks 1x2 --snapshot-quantity both" + checkpoint);
  ASSERT_EQ(r.code, 0) << r.output;
  int files = 0;
  for (const char* name : {"surfacexyvel006000", "surfacexzvel006000", "surfaceyzvel006000", "surfacexydisp006000",
                           "surfacexzdisp006000", "surfaceyzdisp006000"}) {
    const std::string a = read_file(out / (std::string(name) + ".vtk"), false);
    ASSERT_GT(a.size(), 1000u) << name;
    EXPECT_TRUE(a == read_file(whole / (std::string(name) + ".vtk"), false)) << name << ": restarted against uninterrupted";
    ++files;
  }
  EXPECT_EQ(files, 6);
  ASSERT_EQ(run("--blocks 1x3 --steps 30 --checkpoint-every 30").code, 0);  // velocity only (the .prm's default)
  r = run("--snapshot-quantity both" + checkpoint);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("holds no displacement sums"), std::string::npos) << r.output;
}

}  // namespace
