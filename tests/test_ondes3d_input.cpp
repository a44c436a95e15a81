// Ondes3D's own input files (issue 18), written by the test: both parameter dialects describe one
// layered case; each runs, its `ondes3d convert` output runs to the same bits, the grids follow
// each dialect's geometry, and bad files are refused with the file, line or key named.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "h5read.hpp"
#include "helpers.hpp"
#include "io/case/case_reader.hpp"
#include "io/ondes3d/ondes3d_prm.hpp"
#include "physics/medium.hpp"
#include "shell.hpp"

using namespace ondes;
namespace fs = std::filesystem;

namespace {

class Ondes3dInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("ondes3d_input_{}_{}", getpid(), counter_++);
    fs::create_directories(dir_ / "out");
    write("src.map", "2\n150. -50. -1200.\n2 250. -50. -1250.\n1 150. -50. -1200.\n");
    write("src.hist", history(2));
    write("stations.txt", "3\n1 0. 0. 0.\n2 600. 300. 0.\n3 -400. 500. -300.\n");
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A history file of `points` Gaussian histories of 40 samples.
  static std::string history(int points) {
    std::string hist = fmt::format("a {}-point history\nfree line\n100. 0.02\n40\n", points);
    for (int p = 1; p <= points; ++p) {
      hist += fmt::format("{} 30. 60. {}\n", p, 80 + 10 * p);
      for (int k = 0; k < 40; ++k) hist += fmt::format("{:.6e} ", 0.5 * std::exp(-std::pow((k * 0.02 - 0.3) / 0.12, 2)));
      hist += "\n";
    }
    return hist;
  }
  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  // The case in the tagged dialect, with `extra` appended.
  fs::path tagged(const std::string& extra = "") {
    return write("tagged.prm",
                 "Ondes3D (tagged): text outside tags is a comment.\n<dt>0.008</dt> <ds>100.</ds> <tmax>100</tmax>\n"
                 "<xMin>-15</xMin> <xMax>16</xMax>\n<yMin>-12</yMin> <yMax>13</yMax>\n<zMin>-20</zMin>\n<fd0>1.5</fd0>\n"
                 "<dir>out</dir>\n<fsrcMap>src.map</fsrcMap>\n<fsrcHist>src.hist</fsrcHist>\n"
                 "<fstatMap>stations.txt</fstatMap>\n<nlayer>2</nlayer>\n"
                 "<layer1> <rho>2500</rho> <vp>4000</vp> <vs>2300</vs> <depth>0.</depth> <q0>40</q0> </layer1>\n"
                 "<layer2> <rho>2700</rho> <vp>5000</vp> <vs>2900</vs> <depth>-0.9</depth> <q0>0</q0> </layer2>\n"
                 "<f0>1.0</f0>\n" + extra);
  }
  // The same case in the KEY = value dialect (its grid is two cells wider in x and y: that port's
  // arrays are MAX - MIN + 1 + 2 DELTA cells, not MAX - MIN - 1 + 2 DELTA).
  fs::path key_value(const std::string& extra = "", const std::string& from = "", const std::string& to = "") {
    std::string text =
                 "# Ondes3D (KEY = value)\nNDIM = 4\nXMIN = -14\nXMAX = 15\nYMIN = -11\nYMAX = 12\nZMIN = -19\n"
                 "TIME_STEPS = 100\nDS = 100.\nDT = 0.008\nDF = 1.5\nOUTPUT_DIR = out\nSOURCES = src.map\n"
                 "SOURCE_TIME_FUNCTION = src.hist\nSTATIONS = stations.txt\nMODEL_TYPE = 1D\nNB_LAYERS = 2\n"
                 "# layer top vp vs rho q\nLAYER_1\t1.\t4000.\t2300.\t2500.\t-1.\nLAYER_2\t-0.9\t5000.\t2900.\t2700.\t-1.\n" +
                     extra;
    if (!from.empty()) text.replace(text.find(from), from.size(), to);
    return write("kv.prm", text);
  }
  // Runs `prm`, converts it, runs the TOML: bitwise the same seismograms; returns the case.
  Case expect_conversion_bitwise(const fs::path& prm) {
    Case c = read_case(prm.string());
    EXPECT_NO_THROW(validate_case(c));
    c.run.set_blocks(1, 2);  // cut along one axis: Ondes3D's surface (io/case/case_validation.cpp)
    const auto direct = test::run(c);
    std::vector<Provenance> where;
    std::ifstream in(prm);
    std::stringstream text;
    text << in.rdbuf();
    const fs::path toml = dir_ / (prm.stem().string() + ".toml");
    std::ofstream(toml) << ondes3d_to_toml(read_ondes3d_prm(prm.string(), text.str(), &where), where, toml.string());
    Case t = read_case(toml.string());
    EXPECT_NO_THROW(validate_case(t));
    t.run.set_blocks(3, 1);
    const auto converted = test::run(t);
    EXPECT_GT(direct.size(), 0u);
    EXPECT_EQ(direct.size(), converted.size());
    double peak = 0;
    for (float x : direct) peak = std::max(peak, double(std::abs(x)));
    EXPECT_GT(peak, 0) << "nothing recorded";
    EXPECT_TRUE(std::all_of(direct.begin(), direct.end(), [](float x) { return std::isfinite(x); })) << "not finite";
    EXPECT_EQ(std::memcmp(direct.data(), converted.data(), direct.size() * sizeof(float)), 0)
        << prm << " and its conversion differ";
    return c;
  }
  // Runs `file` (in the test's folder) whole with `whole`, to a checkpoint with `part` (which names
  // ck.h5, taken after iteration `after`) and from it with `restart`; the whole and the restarted
  // seismograms into the vectors.
  void run_and_restart(const std::string& file, const std::string& whole, const std::string& part,
                       const std::string& restart, int after, std::vector<float>& full, std::vector<float>& restarted) {
    auto run = [&](const std::string& args) {
      return test::shell("cd " + dir_.string() + " && " + ONDES_BINARY + " run " + file + " " + args, dir_ / "log.txt");
    };
    for (const std::string& args : {whole + " --output full.h5", part + " --output part.h5",
                                    restart + " --restart ck.h5 --output restarted.h5"}) {
      const auto r = run(args);
      ASSERT_EQ(r.code, 0) << args << "\n" << r.output;
      if (args.find("--restart") != std::string::npos)
        EXPECT_NE(r.output.find(fmt::format("restarted from ck.h5 after iteration {}", after)), std::string::npos)
            << r.output;
    }
    full = test::read_floats((dir_ / "full.h5").string(), "/seismograms/velocity");
    restarted = test::read_floats((dir_ / "restarted.h5").string(), "/seismograms/velocity");
  }
  void expect_refused(const fs::path& prm, const std::string& pattern) {
    try {
      Case c = read_case(prm.string());
      validate_case(c);
      ADD_FAILURE() << prm << " was accepted; expected an error matching " << pattern;
    } catch (const CaseError& e) {
      EXPECT_TRUE(std::regex_search(e.what(), std::regex(pattern))) << e.what() << "\n  expected: " << pattern;
    }
  }
  fs::path dir_;
  static inline int counter_ = 0;
};

}  // namespace

TEST_F(Ondes3dInput, TaggedFileRunsAndItsConversionGivesTheSameBits) {
  const Case c = expect_conversion_bitwise(tagged());
  // [xMin - 8, xMax + 10] cells along Ondes3D's x (east), our y, and one more west under its free
  // surface (the cells beside its first vx plane: core/case.hpp PmlProfile::Ondes3d); our x is its y.
  EXPECT_EQ(c.grid.nx, 13 + 12 + 19);
  EXPECT_EQ(c.grid.ny, 16 + 15 + 19 + 1);
  EXPECT_EQ(c.grid.nz, 10 + 20);
  EXPECT_TRUE(c.boundaries.free_surface);
  ASSERT_EQ(c.medium.layers.size(), 2u);
  EXPECT_DOUBLE_EQ(c.medium.layers[1].top, 900);
  EXPECT_DOUBLE_EQ(c.medium.layers[0].q0, 40);
  EXPECT_DOUBLE_EQ(c.medium.q0_frequency, 1.0);
  // Station 2 at Ondes3D's (600 east, 300 north, 0): 300 m north and 600 m east of station 1.
  ASSERT_EQ(c.stations.size(), 3u);
  EXPECT_EQ(c.stations[1].name, "obs2");
  EXPECT_DOUBLE_EQ(c.stations[1].position[0] - c.stations[0].position[0], 300);
  EXPECT_DOUBLE_EQ(c.stations[1].position[1] - c.stations[0].position[1], 600);
  EXPECT_DOUBLE_EQ(c.stations[2].position[2], 300) << "z up: -300 m is 300 m deep";
  EXPECT_EQ(c.sources.size(), 2u);
  EXPECT_TRUE(c.exports.ondes3d_text);
}

// A tagged file's flat free surface is Ondes3D's (velocities extrapolated above it in its loop
// order, codelets/surface.hpp) and so is its C-PML profile: the seismograms are the same bits on
// every layout cut along one axis and across a checkpoint restart on another one (the surface keeps
// the previous step's values of the neighbours' columns); a layout cut along both is refused.
TEST_F(Ondes3dInput, TaggedFreeSurfaceIsOndes3dsOnEveryOneAxisLayout) {
  Case c = read_case(tagged().string());
  EXPECT_EQ(c.boundaries.surface, SurfaceScheme::Ondes3d);
  EXPECT_EQ(c.boundaries.pml_profile, PmlProfile::Ondes3d);
  c.run.set_blocks(1, 1);
  const auto one = test::run(c);
  ASSERT_FALSE(one.empty());
  for (auto [nbx, nby] : {std::pair{1, 3}, std::pair{4, 1}}) {
    c.run.set_blocks(nbx, nby);
    const auto other = test::run(c);
    ASSERT_EQ(other.size(), one.size());
    EXPECT_EQ(std::memcmp(other.data(), one.data(), one.size() * sizeof(float)), 0) << nbx << "x" << nby;
  }
  c.run.set_blocks(2, 2);
  try {
    validate_case(c);
    ADD_FAILURE() << "2 x 2 blocks accepted with Ondes3D's surface";
  } catch (const CaseError& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex(R"(cut along one axis only: \[1, N\] or \[N, 1\])"))) << e.what();
  }
  // The imaging surface the TOML cases have by default is another scheme: other numbers.
  Case imaging = read_case(tagged().string());
  imaging.boundaries.surface = SurfaceScheme::Imaging;
  const auto other = test::run(imaging);
  ASSERT_EQ(other.size(), one.size());
  EXPECT_NE(std::memcmp(other.data(), one.data(), one.size() * sizeof(float)), 0);
  std::vector<float> full, restarted;
  run_and_restart("tagged.prm", "--blocks 3x1 --steps 40", "--blocks 3x1 --steps 20 --checkpoint-every 20 --checkpoint ck.h5",
                  "--blocks 1x2 --steps 40", 20, full, restarted);
  ASSERT_FALSE(full.empty());
  ASSERT_EQ(restarted.size(), full.size());
  EXPECT_EQ(std::memcmp(full.data(), restarted.data(), full.size() * sizeof(float)), 0) << "restart changed the bits";
}

TEST_F(Ondes3dInput, KeyValueFileRunsAndItsConversionGivesTheSameBits) {
  // MODEL_TYPE = 3D without MODEL_FILE runs the layers, as the StarPU port (which reads none) does.
  const Case c = expect_conversion_bitwise(key_value("", "MODEL_TYPE = 1D", "MODEL_TYPE = 3D"));
  EXPECT_EQ(c.grid.nx, 12 + 11 + 21);
  EXPECT_EQ(c.grid.ny, 15 + 14 + 21);
  EXPECT_EQ(c.grid.nz, 1 + 19 + 10);
  EXPECT_DOUBLE_EQ(c.medium.layers[0].top, 0) << "LAYER_1's top above the surface";
  EXPECT_EQ(c.medium.layers[0].q0, 0) << "q = -1: elastic";
}

// Both dialects place the sources and stations alike relative to each other, whatever their grids.
TEST_F(Ondes3dInput, BothDialectsPlaceSourcesAndStationsAlike) {
  const Case a = read_case(tagged().string()), b = read_case(key_value().string());
  ASSERT_EQ(a.sources.size(), b.sources.size());
  for (size_t s = 0; s < a.sources.size(); ++s)
    for (int ax = 0; ax < 3; ++ax) {
      EXPECT_DOUBLE_EQ(a.sources[s].position[ax] - a.stations[0].position[ax],
                       b.sources[s].position[ax] - b.stations[0].position[ax]);
      EXPECT_DOUBLE_EQ(a.sources[s].moment[ax], b.sources[s].moment[ax]);
    }
}

TEST_F(Ondes3dInput, BadFilesAreRefusedWithFileAndLine) {
  expect_refused(write("notag.prm", "<dt>0.008</dt><tmax>10</tmax>"), R"(notag\.prm: <ds> is missing: the cell size)");
  std::ifstream in(tagged());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("<nlayer>2"), 9, "<nlayer>3");
  expect_refused(write("three.prm", text), R"(three\.prm: <layer3> is missing: layer 3 of <nlayer> 3 is needed)");
  expect_refused(write("bad_dt.prm", "<tmax>1</tmax><ds>100</ds><dt>fast</dt>"), R"(bad_dt\.prm:1: <dt> = 'fast' is not a number)");
  expect_refused(key_value("", "NDIM = 4", "NDIM = 2"), R"(kv\.prm:2: NDIM = 2 is outside the allowed range \[4, 4\])");
  write("stations.txt", "3\n1 0. 0. 0.\n2 600. 300.\n");
  expect_refused(tagged(), R"(stations\.txt:4 \(Ondes3D station file\): the file ends where its z \(m, up\) was expected)");
  write("stations.txt", "1\n1 0. 0. 0.\n");
  write("src.hist", "x\ny\n100. 0.02\n3\n1 30. 60. 90.\n0.0 0.5 zero\n");
  expect_refused(tagged(), R"(src\.hist:6 \(Ondes3D source history file\): 'zero' where a moment-rate sample of point 1)");
  write("src.map", "1\n0 0 0\n1 150. -50. 1200.\n");  // above the surface, where Ondes3D computes none
  write("src.hist", "x\ny\n100. 0.02\n3\n1 30. 60. 90.\n0.0 0.5 0.0\n");
  expect_refused(tagged(), R"(src\.map: no source inside the computed region \(x in \[-1400, 1600\) m, y in \[-1100, 1300\) m, z in \[-1900, 200\) m\): point 1 at \(150, -50, 1200\) m \(.*src\.map:3\))");
  write("src.map", "1\n0 0 0\n1 150. -50. -1200.\n");
  write("src.hist", "x\ny\n100. 0.02\n3\n1 30. 60. 90.\n0.0 0.0 0.0\n");
  expect_refused(tagged(), R"(src\.hist: every point's history sums to zero: no source)");
  expect_refused(tagged("<fgeo>model.geo</fgeo>"), R"(tagged\.prm:3: <xMin> must be 1 with a geological model)");
}

// Files named in a .prm are found as Ondes3D finds them: from the current folder, else beside the
// .prm (said once), never in a folder above; a missing one names the key and both paths tried.
TEST_F(Ondes3dInput, FilesAreFoundFromTheCurrentFolderOrBesideThePrmOnly) {
  const fs::path prm = tagged(), nested = dir_ / "walk" / "a" / "b";
  fs::create_directories(nested);
  // Beside the .prm: found, one warning for all of them.
  auto r = test::shell("cd " + nested.string() + " && " + ONDES_BINARY + " check ../../../tagged.prm", dir_ / "log.txt");
  EXPECT_EQ(r.code, 0) << r.output;
  const std::regex said("not in the current folder .* where Ondes3D looks: taken from the parameter file's folder");
  EXPECT_EQ(std::distance(std::sregex_iterator(r.output.begin(), r.output.end(), said), std::sregex_iterator()), 1)
      << r.output;
  // A .prm in the current folder naming files kept three folders up: not found (no walk upwards).
  fs::copy_file(prm, nested / "up.prm");
  r = test::shell("cd " + nested.string() + " && " + ONDES_BINARY + " check up.prm", dir_ / "log.txt");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(up\.prm:\d+ \(<fsrcMap>\): file 'src\.map' is not found: looked for .*walk/a/b/src\.map \(from the current folder.*\) and .*walk/a/b/src\.map \(beside the parameter file\))")))
      << r.output;
  // A missing history file: the key, the value and the paths, no folder doubled.
  fs::remove(dir_ / "src.hist");
  r = test::shell("cd " + dir_.string() + " && " + ONDES_BINARY + " check tagged.prm", dir_ / "log.txt");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(tagged\.prm:\d+ \(<fsrcHist>\): file 'src\.hist' is not found: looked for )" +
                                                      dir_.string() + R"(/src\.hist)"))) << r.output;
  // The output folder: where Ondes3D writes it, from the current folder, never one found above it.
  write("src.hist", history(2));
  fs::create_directories(dir_ / "walk" / "out");
  fs::remove_all(dir_ / "out");
  r = test::shell("cd " + nested.string() + " && " + ONDES_BINARY + " run ../../../tagged.prm --steps 2", dir_ / "log.txt");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("directory " + (nested / "out").string() + " does not exist")))
      << r.output;
  EXPECT_TRUE(fs::is_empty(dir_ / "walk" / "out"));
}

// Typos: an unknown tag or key is a warning naming the nearest known one (Ondes3D ignores it, so a
// run goes on as Ondes3D's would); a misspelled required tag leaves the file Ondes3D's, its value
// missing; a .prm of neither dialect names the markers looked for.
TEST_F(Ondes3dInput, TyposAreNamedWithTheNearestKnownName) {
  auto check = [&](const fs::path& prm) {
    return test::shell("cd " + dir_.string() + " && " + ONDES_BINARY + " check " + prm.filename().string(),
                       dir_ / "log.txt");
  };
  auto r = check(tagged("<surfce>absorbing</surfce>\n"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(tagged\.prm:\d+: <surfce> is not one of Ondes3D's tags: ignored, as Ondes3D ignores it \(did you mean <surface>\?\))")))
      << r.output;
  std::ifstream in(tagged());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("<q0>40</q0>"), 11, "<Q0>40</Q0>");
  r = check(write("layer_typo.prm", text));
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(layer_typo\.prm:\d+: <Q0> is not one of Ondes3D's tags.*did you mean <q0>)")))
      << r.output;
  text.replace(text.find("<tmax>100</tmax>"), 16, "<tmx>100</tmx>");
  r = check(write("typo_tmax.prm", text));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(did you mean <tmax>)"))) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(typo_tmax\.prm: <tmax> is missing)"))) << r.output;
  EXPECT_EQ(r.output.find("TOML"), std::string::npos) << r.output;
  r = check(key_value("FOO = bar\nTIME_STEP = 3\n"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(kv\.prm:\d+: FOO is not one of Ondes3D's keys: ignored, as Ondes3D ignores it\n)")))
      << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(kv\.prm:\d+: TIME_STEP is not one of .*did you mean TIME_STEPS)")))
      << r.output;
  r = check(write("neither.prm", "dt 0.01\nsteps 100\n"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(neither\.prm: not an Ondes3D parameter file: none of its tags \(<dt>...</dt>, <ds>, <tmax>, ...\) nor a line of its KEY = value keys)")))
      << r.output;
}

// The command: `ondes3d convert` writes the TOML case (and nothing when the input is no Ondes3D
// file); `ondes3d run` takes the .prm itself and writes Ondes3D's station text files beside ours.
TEST_F(Ondes3dInput, ConvertAndRunCommands) {
  const fs::path prm = tagged(), toml = dir_ / "converted.toml";
  const std::string bin = ONDES_BINARY;
  ASSERT_EQ(std::system((bin + " convert " + prm.string() + " -o " + toml.string() + " > /dev/null 2>&1").c_str()), 0);
  std::ifstream in(toml);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("format = \"ondes3d\""), std::string::npos) << text;
  EXPECT_NE(text.find("# from " + prm.string() + ":2 (<dt>)"), std::string::npos) << text;
  EXPECT_NE(text.find("dt = 0.008  # from"), std::string::npos) << "the shortest number that reads back: " << text;
  const fs::path not_prm = dir_ / "again.toml";
  EXPECT_NE(std::system((bin + " convert " + toml.string() + " -o " + not_prm.string() + " > /dev/null 2>&1").c_str()), 0);
  EXPECT_FALSE(fs::exists(not_prm));
  // -o naming a folder: refused before converting (exit 2), the folder and its files untouched.
  fs::create_directories(dir_ / "cases");
  std::ofstream(dir_ / "cases" / "mine.toml") << "# mine\n";
  const std::string to_folder = bin + " convert " + prm.string() + " -o " + (dir_ / "cases").string();
  const int code = std::system((to_folder + " > /dev/null 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(code), 2);
  EXPECT_TRUE(fs::exists(dir_ / "cases" / "mine.toml"));
  ASSERT_EQ(std::system(("cd " + dir_.string() + " && " + bin + " run tagged.prm --steps 20 > /dev/null 2>&1").c_str()), 0);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "tagged.h5"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "obs3.dat")) << "Ondes3D's station files in its <dir>";
  // The stations also where the station file put them, in its axes (x east, y north, z up).
  const std::vector<float> at = test::read_floats((dir_ / "out" / "tagged.h5").string(), "stations/file_position");
  EXPECT_EQ(at, (std::vector<float>{0, 0, 0, 600, 300, 0, -400, 500, -300}));
  // Converted into another folder, the case names its outputs from its own folder as it does its
  // inputs: run from any folder, it writes where the .prm run from here did.
  fs::create_directories(dir_ / "sub");
  fs::remove(dir_ / "out" / "tagged.h5");
  ASSERT_EQ(std::system(("cd " + dir_.string() + " && " + bin + " convert tagged.prm -o sub/converted.toml > /dev/null 2>&1").c_str()), 0);
  const std::string elsewhere = "cd " + fs::temp_directory_path().string() + " && " + bin;
  ASSERT_EQ(std::system((elsewhere + " run " + (dir_ / "sub" / "converted.toml").string() + " --steps 5 > /dev/null 2>&1").c_str()), 0);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "tagged.h5"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "obs3.dat"));
}

namespace {
// A geological model of 20 x 16 x 12 cells under <zMax> = 14, origin (5000, 7000, -1000) m, so
// that cell k lies at z = -1000 + (k - 1) 100: the west half (i <= 10) rock up to k = 12, of which
// Ondes3D makes the file's last level vacuum (IO.c ReadGeoFile fills the air from nz up when
// <zMax> > nz), so rock up to k = 11 (0 m); the east half rock up to k = 8 and "out" above it, which
// becomes sea below z = 0 (k = 9, 10) and stays vacuum from z = 0 up.
std::string geology(const std::string& stray = "") {
  std::string t = "nx 20\nny 16\nnz 12\nx0 5000.\ny0 7000.\nz0 -1000.\ndx 100.\ndy 100.\ndz 100.\nnodata -9999\n";
  for (int k = 1; k <= 12; ++k)
    for (int j = 1; j <= 16; ++j) {
      for (int i = 1; i <= 20; ++i) t += (i <= 10 || k <= 8) ? "rock " : "out ";
      t += "\n";
    }
  return t + stray;
}
}  // namespace

TEST_F(Ondes3dInput, GeologicalModelWithSeaAndAirRunsAndConverts) {
  write("geo.txt", geology());
  write("src.map", "1\n0 0 0\n1 5800. 7900. -700.\n");
  std::string hist = "one point\nfree line\n100. 0.02\n40\n1 30. 60. 90.\n";
  for (int k = 0; k < 40; ++k) hist += fmt::format("{:.6e} ", 0.5 * std::exp(-std::pow((k * 0.02 - 0.3) / 0.12, 2)));
  write("src.hist", hist + "\n");
  write("stations.txt", "2\n1 5400. 7800.\n2 6600. 7800.\n");  // west (land), east (sea floor)
  const auto prm = write("geo.prm",
                         "<dt>0.008</dt><ds>100.</ds><tmax>100</tmax><xMin>1</xMin><xMax>20</xMax><yMin>1</yMin>"
                         "<yMax>16</yMax><zMin>1</zMin><zMax>14</zMax><fd0>1.5</fd0><dir>out</dir>"
                         "<fsrcMap>src.map</fsrcMap><fsrcHist>src.hist</fsrcHist><fstatMap>stations.txt</fstatMap>"
                         "<fgeo>geo.txt</fgeo><x0>5000.</x0><y0>7000.</y0><z0>-1000.</z0><nlayer>3</nlayer>"
                         "<layer1><name>out</name><rho>1730.</rho><vp>0.0</vp><vs>0.0</vs></layer1>"
                         "<layer2><name>eau</name><rho>1030.</rho><vp>1530.</vp><vs>0.0</vs></layer2>"
                         "<layer3><name>rock</name><rho>2600.</rho><vp>4000.</vp><vs>2300.</vs></layer3>");
  const Case c = expect_conversion_bitwise(prm);
  // The converted model is compressed (a categorical model is a few materials), read back to the bit.
  ASSERT_TRUE(c.medium.model);
  const fs::path model = dir_ / "geo_model.h5";
  ASSERT_TRUE(fs::exists(model));
  EXPECT_LT(fs::file_size(model), sizeof(float) * 3 * c.medium.model->vp.size() / 2) << "stored as raw floats";
  EXPECT_EQ(c.grid.nx, 16 + 18);
  EXPECT_EQ(c.grid.ny, 20 + 18);
  EXPECT_EQ(c.grid.nz, 14 + 8);
  ASSERT_TRUE(c.medium.model);
  EXPECT_TRUE(c.medium.model->nearest);
  // The stations sit on the ground of their column: k = 11 (west), k = 8 (east, under 2 cells of sea).
  ASSERT_EQ(c.stations.size(), 2u);
  EXPECT_DOUBLE_EQ(c.stations[0].position[2], (14 - 11) * 100.0);
  EXPECT_DOUBLE_EQ(c.stations[1].position[2], (14 - 8) * 100.0);
  const auto& st = c.stations[1].position;
  const Layer sea = properties_at(c.medium, st[0], st[1], st[2] - 100), air = properties_at(c.medium, st[0], st[1], st[2] - 300);
  EXPECT_EQ(sea.vs, 0);
  EXPECT_EQ(sea.vp, 1530) << "the east's k = 9 is sea";
  EXPECT_EQ(air.vp, 0) << "the east's k = 11 (z = 0) is vacuum";
  // The source 700 m below sea level, in the west's rock: cell k = 4, 1000 m under the grid's top.
  EXPECT_DOUBLE_EQ(c.sources[0].position[2], (14 - 4) * 100.0);
  // A source in the air is refused by name.
  write("src.map", "1\n0 0 0\n1 6600. 7900. 50.\n");
  expect_refused(prm, R"(src\.map:3: point source at .* lies in vacuum)");
  write("src.map", "1\n0 0 0\n1 5800. 7900. -700.\n");
  write("geo.txt", geology("granite\n"));
  expect_refused(prm, R"(geo\.txt:\d+ \(Ondes3D geological model\): more values after the last cell)");
  std::string bad = geology();
  bad.replace(bad.find("rock"), 4, "lava");
  write("geo.txt", bad);
  expect_refused(prm, R"(cell \(1, 1, 1\) is 'lava', which no <layerN> <name> is)");
  // q0 on a geological model: Ondes3D's ANOTHER method exits there (computeStress.c).
  write("geo.txt", geology());
  std::ifstream in(prm);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("<vs>2300.</vs>"), 14, "<vs>2300.</vs><q0>50</q0>");
  expect_refused(write("geo_q0.prm", text), R"(layer3.*has q0: Ondes3D's ANOTHER method stops on a geological model)");
  // Kristek and Moczo on a geological model: Ondes3D's own run crashes in ChooseY at its first step.
  text.replace(text.find("<q0>50</q0>"), 11, "<Qp>80</Qp><Qs>40</Qs>");
  for (const char* m : {"<name>out</name>", "<name>eau</name>"}) text.replace(text.find(m), 0, "<Qp>1e4</Qp><Qs>1e4</Qs>");
  text.replace(text.find("<nlayer>"), 0, "<wmin>0.6</wmin><wmax>60</wmax>");
  expect_refused(write("geo_km.prm", text),
                 R"(geo_km\.prm:\d+: <wmin> is Ondes3D's KRISTEKandMOCZO method, which runs on layers only \(on a geological model)");
}

// Ondes3D's leniency, as its readers have it (original/src/IO.c ReadSrc and ReadStation; the StarPU
// port's ondes3D-functs.c): a KEY = value set shaped like that port's Aquila set, a one-point
// position file whose history file holds more histories than that, and stations of which some lie
// outside the computed region, runs unchanged: the extra histories are not read, the stations
// outside are skipped with a warning naming them, the others keep Ondes3D's numbers (their lines),
// duplicate station numbers included; its station files are Ondes3D's, in Ondes3D's axes.
TEST_F(Ondes3dInput, AquilaShapedSetRunsUnchanged) {
  write("src.map", "1\n150. -50. -1200.\n1 150. -50. -1200.\n");
  write("src.hist", history(3));  // more histories than the map's one point
  // 5 stations: the 2nd east of XMAX, the 4th below ZMIN; numbers repeated as Ondes3D ignores them.
  write("stations.txt", "5\n7 0. 0. 0.\n7 9000. 0. 0.\n7 600. 300. 0.\n8 0. 0. -9000.\n9 -400. 500. -300.\n");
  const fs::path prm = key_value();
  const auto r = test::shell("cd " + dir_.string() + " && " + ONDES_BINARY + " run kv.prm --steps 30", dir_ / "log.txt");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("holds more than the 1 histories of the position file's points; the rest are not read"),
            std::string::npos) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(warning: .*stations\.txt .*: station 2 at \(9000, 0, 0\) m .* lies outside the computed region, not recorded)")))
      << r.output;
  EXPECT_NE(r.output.find("station 4 at (0, 0, -9000) m"), std::string::npos) << r.output;
  const Case c = read_case(prm.string());
  ASSERT_EQ(c.stations.size(), 3u);
  EXPECT_EQ(c.stations[0].name, "obs1");
  EXPECT_EQ(c.stations[1].name, "obs3");
  EXPECT_EQ(c.stations[2].name, "obs5");
  for (const char* f : {"obs1.dat", "obs3.dat", "obs5.dat"}) EXPECT_TRUE(fs::exists(dir_ / "out" / f)) << f;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "obs2.dat"));
  // obs3 lies 600 m east of the source's column and level with the surface: its file holds 30 steps
  // of (east, north, up) in Ondes3D's format, the HDF5 file the same in (north, east, down).
  std::ifstream in(dir_ / "out" / "obs3.dat");
  int steps = 0, step = 0;
  double e = 0, n = 0, u = 0, last[3] = {};
  while (in >> step >> e >> n >> u) ++steps, last[0] = e, last[1] = n, last[2] = u;
  EXPECT_EQ(steps, 30);
  EXPECT_EQ(step, 30);
  const std::vector<float> v = test::read_floats((dir_ / "out" / "kv.h5").string(), "/seismograms/velocity");
  ASSERT_EQ(v.size(), 3u * 3 * 30);
  const size_t s = 1;  // obs3 is the case's second station
  EXPECT_FLOAT_EQ(float(last[0]), v[(s * 3 + 1) * 30 + 29]) << "east is our y";
  EXPECT_FLOAT_EQ(float(last[1]), v[(s * 3 + 0) * 30 + 29]) << "north is our x";
  EXPECT_FLOAT_EQ(float(last[2]), -v[(s * 3 + 2) * 30 + 29]) << "up is our -z";
  EXPECT_NE(last[0], 0.0) << "nothing recorded";
}

// Outputs at real sizes: a case with 20,000 Ondes3D point sources and 1,200 stations (its text,
// 70 KB, and its physics fingerprint outgrow what an HDF5 attribute holds) writes its output and a
// checkpoint, and restarts from it on another layout to the uninterrupted run's bits. The
// checkpoint is the last of a shorter run, taken while the sources' histories still act, and the
// restart goes on to the case's end: the held moment (sample ceil(t / dtbiem), accumulated) must not
// depend on where the first run ended.
TEST_F(Ondes3dInput, TwentyThousandSourcesAndAThousandStationsCheckpointAndRestart) {
  constexpr int kPoints = 20000, kStations = 1200, kSamples = 10;
  std::string map = fmt::format("{}\n1500. 1500. -1000.\n", kPoints), hist = "many points\nfree line\n100. 0.008\n";
  hist += fmt::format("{}\n", kSamples);
  for (int p = 0; p < kPoints; ++p) {
    const double x = 700 + (p % 151) * 10.0, y = 700 + ((p / 151) % 131) * 11.5, z = -700 - (p % 61) * 9.8;
    map += fmt::format("{} {} {} {}\n", p + 1, x, y, z);
    hist += fmt::format("{} {} 60. {}\n", p + 1, (p * 7) % 360, 90 - p % 180);
    for (int k = 0; k < kSamples; ++k) hist += fmt::format("{} ", 1e9 * std::sin(M_PI * k / (kSamples - 1)));
    hist += "\n";
  }
  write("many.map", map);
  write("many.hist", hist);
  std::string toml =
      "# 20,000 points and 1,200 stations\n[grid]\nnx = 30\nny = 30\nnz = 20\nh = 100.0\n[time]\ndt = 0.008\n"
      "steps = 40\n[medium]\nvp = 4000.0\nvs = 2300.0\nrho = 2500.0\n[boundaries]\npml_width = 5\n"
      "[[faults]]\nformat = \"ondes3d\"\nfile = \"many.map\"\nhistory = \"many.hist\"\n";
  for (int s = 0; s < kStations; ++s)
    toml += fmt::format("[[stations]]\nname = \"station{:04d}\"\nposition = [{}, {}, 0.0]\n", s, 600 + (s % 40) * 42.5,
                        600 + (s / 40) * 56.0);
  ASSERT_GT(toml.size(), 65536u);
  write("many.toml", toml);
  std::vector<float> full, restarted;
  run_and_restart("many.toml", "--blocks 2x1", "--blocks 2x1 --steps 6 --checkpoint-every 3 --checkpoint ck.h5",
                  "--blocks 1x3", 6, full, restarted);
  ASSERT_EQ(full.size(), size_t(kStations) * 3 * 40);
  ASSERT_EQ(restarted.size(), full.size());
  EXPECT_EQ(std::memcmp(full.data(), restarted.data(), full.size() * sizeof(float)), 0) << "restart changed the bits";
  EXPECT_GT(*std::max_element(full.begin(), full.end()), 0.0f) << "nothing recorded";
  const hid_t f = H5Fopen((dir_ / "full.h5").string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t g = H5Gopen2(f, "run", H5P_DEFAULT);
  EXPECT_EQ(test::read_text(g, "case"), toml) << "the case's whole text, as a dataset";
  const hid_t faults = H5Gopen2(g, "faults", H5P_DEFAULT);
  EXPECT_EQ(test::read_text(faults, "text_0"), map + hist) << "the fault's files, deflated";
  H5Gclose(faults);
  H5Gclose(g);
  H5Fclose(f);
}

// A point outside Ondes3D's computed region is skipped by the .prm and by its converted TOML alike
// (the [[faults]] entry carries the region): the same sources, the same bits.
TEST_F(Ondes3dInput, SkippedPointsStaySkippedInTheConvertedCase) {
  write("src.map", "3\n150. -50. -1200.\n2 250. -50. -1250.\n1 150. -50. -1200.\n3 9000. -50. -1200.\n");
  write("src.hist", history(3));
  const fs::path prm = tagged();
  EXPECT_EQ(read_case(prm.string()).sources.size(), 2u) << "point 3 lies east of xMax";
  expect_conversion_bitwise(prm);
  std::ifstream in(dir_ / "tagged.toml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("region_min = [-1400.0, -1100.0, -1900.0]"), std::string::npos) << text;
  EXPECT_NE(text.find("region_max = [1600.0, 1300.0, 200.0]"), std::string::npos) << text;
}
