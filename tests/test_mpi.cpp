// Distributed runs through StarPU-MPI, as a user starts them: `mpirun -np R ondes3d run ...`.
// The seismograms must be bitwise those of one process, whatever the ranks, block layout and
// mapping, and so must the snapshots; a bad case must stop every rank quickly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "h5read.hpp"
#include "io/output_h5.hpp"
#include "partition/mapping.hpp"
#include "shell.hpp"

namespace fs = std::filesystem;
using namespace ondes;

namespace {

// A 40 x 40 x 24 half-space with a force near the -x,-y corner, a moment tensor near the +x,+y
// corner (so with 2 or 4 ranks the sources sit on different ranks) and stations: one on the
// corner where four blocks meet in 2x2 (its corners come from four ranks), one on a block face,
// one far from both sources.
const char* kCase = R"(
[grid]
nx = 40
ny = 40
nz = 24
h = 100.0
[time]
dt = 0.008
steps = 90
[boundaries]
free_surface = true
pml_width = 6
[medium]
vp = 4000.0
vs = 2310.0
rho = 2600.0
[[sources]]
type = "force"
position = [1050.0, 1130.0, 300.0]
force = [1.0e12, -2.0e12, 3.0e12]
stf = { type = "ricker", f0 = 3.0, t0 = 0.35 }
[[sources]]
type = "moment"
position = [2870.0, 2930.0, 800.0]
moment = [1.0e15, -2.0e15, 1.0e15, 3.0e15, -1.0e15, 2.0e15]
stf = { type = "gaussian", f0 = 3.0, t0 = 0.3 }
[[stations]]
name = "CORNER"
position = [2000.0, 2000.0, 0.0]
[[stations]]
name = "FACE"
position = [2000.0, 1420.0, 450.0]
[[stations]]
name = "FAR"
position = [3000.0, 900.0, 0.0]
[output]
file = "unused.h5"
)";

using Result = test::CommandResult;
using test::shell;

std::string mpirun(int ranks) {
  std::string cmd = std::string(ONDES_MPIEXEC) + " --oversubscribe --bind-to none -np " + std::to_string(ranks);
  if (::geteuid() == 0) cmd += " --allow-run-as-root";
  // A hang must fail the test, not the whole suite's time limit.
  return "timeout 120 " + cmd + " ";
}

class Mpi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("ondes_mpi_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "case.toml") << kCase;
    // One process, one block: the reference.
    const Result r = shell(std::string(ONDES_BINARY) + " run " + (dir_ / "case.toml").string() + " --output " +
                               (dir_ / "reference.h5").string(),
                           dir_ / "reference.log");
    ASSERT_EQ(r.code, 0) << r.output;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // Runs the case on `ranks` ranks and compares every sample's bits with the reference.
  void expect_same_as_one_process(int ranks, const std::string& blocks, const std::string& mapping) {
    const std::string name = fmt_name(ranks, blocks, mapping);
    const fs::path out = dir_ / (name + ".h5");
    const Result r = shell(mpirun(ranks) + ONDES_BINARY + " run " + (dir_ / "case.toml").string() + " --blocks " +
                               blocks + " --mapping " + mapping + " --output " + out.string(),
                           dir_ / (name + ".log"));
    ASSERT_EQ(r.code, 0) << r.output;
    expect_bitwise_reference(out, name, r.seconds);
  }

  // Every sample of the run's seismograms has the bits of the one-process reference.
  static void expect_bitwise_reference(const fs::path& out, const std::string& name, double seconds) {
    const Seismograms ref = read_seismograms((dir_ / "reference.h5").string());
    const Seismograms got = read_seismograms(out.string());
    ASSERT_EQ(got.data.size(), ref.data.size());
    ASSERT_EQ(got.names, ref.names);
    size_t differ = 0;
    float peak = 0;
    for (size_t i = 0; i < ref.data.size(); ++i) {
      differ += std::memcmp(&ref.data[i], &got.data[i], sizeof(float)) != 0;
      peak = std::max(peak, std::abs(ref.data[i]));
    }
    EXPECT_GT(peak, 0.0f) << "the reference recorded nothing";
    EXPECT_EQ(differ, 0u) << name << ": " << differ << " of " << ref.data.size() << " samples differ";
    std::cout << name << ": " << ref.data.size() << " samples, bitwise identical: " << (differ == 0) << " (run "
              << seconds << " s)\n";
  }

  static std::string fmt_name(int ranks, const std::string& blocks, const std::string& mapping) {
    return std::to_string(ranks) + "ranks_" + blocks + "_" + mapping;
  }
  static fs::path dir_;
};
fs::path Mpi::dir_;

}  // namespace

TEST(Mapping, TilesAreContiguousAndCutTheFewestFaces) {
  const Grid g{128, 32, 8, 100.0};
  const Decomposition d = decompose(g, 4, 4);
  const RankMap m = map_blocks(g, d, 4, Mapping::Tiles);
  // A grid 4 times as long in x as in y is cut across x only: 4 x 1 ranks, 3 cuts of 32 x 8 cells
  // (2 x 2 would cut 32 x 8 + 128 x 8).
  EXPECT_EQ(m.px, 4);
  EXPECT_EQ(m.py, 1);
  EXPECT_EQ(cut_face_cells(d, m), 3LL * 32 * 8);
  for (const BlockInfo& b : d.blocks) EXPECT_EQ(m.owner(b.id), b.bx) << "block " << b.id;
}

TEST(Mapping, CyclicSpreadsNeighboursOverRanks) {
  const Grid g{32, 32, 8, 100.0};
  const Decomposition d = decompose(g, 4, 4);
  const RankMap m = map_blocks(g, d, 4, Mapping::Cyclic);
  std::set<int> used;
  for (const BlockInfo& b : d.blocks) {
    used.insert(m.owner(b.id));
    for (int dir = 0; dir < kDirections; ++dir)
      if (b.neighbour[dir] >= 0) EXPECT_NE(m.owner(b.id), m.owner(b.neighbour[dir]));
  }
  EXPECT_EQ(used.size(), 4u);
  // Every interior face is cut: 2 x 3 x 4 faces of 8 x 8 cells.
  EXPECT_EQ(cut_face_cells(d, m), 24LL * 8 * 8);
}

TEST(Mapping, MoreRanksThanBlocksIsRefused) {
  const Grid g{32, 32, 8, 100.0};
  const Decomposition d = decompose(g, 2, 1);
  EXPECT_THROW(map_blocks(g, d, 4, Mapping::Tiles), std::invalid_argument);
  EXPECT_THROW(map_blocks(g, d, 3, Mapping::Tiles), std::invalid_argument);  // 3 x 1 does not fit 2 x 1
  EXPECT_THROW(parse_mapping("random"), std::invalid_argument);
}

TEST_F(Mpi, OneRankMatchesOneProcess) { expect_same_as_one_process(1, "2x2", "tiles"); }
TEST_F(Mpi, TwoRanksMatchOneProcess) {
  expect_same_as_one_process(2, "2x2", "tiles");
  expect_same_as_one_process(2, "3x1", "tiles");
}
TEST_F(Mpi, FourRanksMatchOneProcess) {
  expect_same_as_one_process(4, "2x2", "tiles");
  expect_same_as_one_process(4, "4x2", "cyclic");
}

// A checkpoint written by 4 ranks (rank 0 gathers the blocks into one file) restarts on 2 ranks,
// on 3 ranks with another layout and on one process: the seismograms are the uninterrupted
// one-process run's, bit for bit.
TEST_F(Mpi, CheckpointOnFourRanksRestartsOnAnyRanks) {
  const std::string run = ONDES_BINARY + std::string(" run ") + (dir_ / "case.toml").string();
  const fs::path ck = dir_ / "four.checkpoint.h5";
  Result r = shell(mpirun(4) + run + " --blocks 2x2 --checkpoint-every 40 --checkpoint " + ck.string() + " --output " +
                       (dir_ / "four.h5").string(),
                   dir_ / "four.log");
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_NE(r.output.find("checkpoint after iteration 80"), std::string::npos) << r.output;
  expect_bitwise_reference(dir_ / "four.h5", "4 ranks with checkpoints", r.seconds);
  for (const auto& [ranks, blocks] : {std::pair{2, "2x2"}, std::pair{3, "3x1"}, std::pair{0, "1x1"}}) {
    const std::string name = "restart_" + std::to_string(ranks) + "_" + blocks;
    const fs::path out = dir_ / (name + ".h5");
    r = shell((ranks ? mpirun(ranks) : std::string()) + run + " --blocks " + blocks + " --restart " + ck.string() +
                  " --output " + out.string(),
              dir_ / (name + ".log"));
    ASSERT_EQ(r.code, 0) << name << ": " << r.output;
    EXPECT_NE(r.output.find("restarted from"), std::string::npos) << r.output;
    expect_bitwise_reference(out, name, r.seconds);
  }
}

TEST_F(Mpi, BadCaseStopsEveryRankQuickly) {
  std::string text = kCase;
  text.replace(text.find("dt = 0.008"), 10, "dt = 0.08");  // far above the CFL limit
  std::ofstream(dir_ / "bad.toml") << text;
  const fs::path out = dir_ / "bad.h5";
  const Result r = shell(mpirun(4) + ONDES_BINARY + " run " + (dir_ / "bad.toml").string() + " --blocks 2x2 --output " +
                             out.string(),
                         dir_ / "bad.log");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.code, 124) << "timed out: a rank hung";
  EXPECT_LT(r.seconds, 30.0);
  EXPECT_NE(r.output.find("time.dt"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Mpi, MoreRanksThanBlocksStopsEveryRank) {
  const fs::path out = dir_ / "few.h5";
  const Result r = shell(mpirun(4) + ONDES_BINARY + " run " + (dir_ / "case.toml").string() + " --blocks 2x1 --output " +
                             out.string(),
                         dir_ / "few.log");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.code, 124) << "timed out: a rank hung";
  EXPECT_NE(r.output.find("every rank needs a block"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

// Snapshots over ranks: rank 0 gathers every block's planes and peaks; the snapshot file of a 2-
// and a 4-rank run (2x2 tiles, 4x2 cyclic) holds bitwise the one-process values.
TEST_F(Mpi, SnapshotsOverRanksEqualOneProcess) {
  std::ifstream in(dir_ / "case.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text += "\n[snapshots]\nevery = 30\nplanes = [\"z=0\", \"y=2000\", \"x=1500\"]\n";
  std::ofstream(dir_ / "snap.toml") << text;
  const fs::path one = dir_ / "snap1.h5";
  ASSERT_EQ(shell(std::string(ONDES_BINARY) + " run " + (dir_ / "snap.toml").string() + " --output " + one.string(),
                  dir_ / "snap1.log")
                .code,
            0);
  const std::vector<std::string> datasets = {"/z0/00000029/vx", "/z0/00000089/norm", "/y20/00000059/vz",
                                             "/x15/00000089/vy", "/pgv/horizontal",   "/pgv/norm"};
  for (auto [ranks, layout] : {std::pair{2, std::string("2x2 --mapping tiles")}, std::pair{4, std::string("4x2 --mapping cyclic")}}) {
    const fs::path out = dir_ / ("snap" + std::to_string(ranks) + ".h5");
    const Result r = shell(mpirun(ranks) + ONDES_BINARY + " run " + (dir_ / "snap.toml").string() + " --blocks " +
                               layout + " --output " + out.string(),
                           dir_ / ("snap" + std::to_string(ranks) + ".log"));
    ASSERT_EQ(r.code, 0) << r.output;
    for (const std::string& ds : datasets) {
      const auto a = test::read_floats((dir_ / "snap1_snapshots.h5").string(), ds);
      const auto b = test::read_floats((dir_ / ("snap" + std::to_string(ranks) + "_snapshots.h5")).string(), ds);
      ASSERT_FALSE(a.empty()) << ds;
      EXPECT_EQ(a, b) << ranks << " ranks, " << ds;
      EXPECT_GT(*std::max_element(a.begin(), a.end()), 0.0f) << ds;
    }
    EXPECT_TRUE(fs::exists(dir_ / ("snap" + std::to_string(ranks) + "_snapshots.xdmf")));
  }
}
