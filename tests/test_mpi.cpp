// Distributed runs through StarPU-MPI, as a user starts them: `mpirun -np R ondes3d run ...`.
// The seismograms must be bitwise those of one process, whatever the ranks, block layout and
// mapping, and so must the snapshots; a bad case must stop every rank quickly.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "h5read.hpp"
#include "io/results/compare.hpp"
#include "io/results/model_reader.hpp"
#include "io/results/output_h5.hpp"
#include "partition/mapping.hpp"
#include "physics/model3d.hpp"
#include "shell.hpp"
#include "tasks/ipc_halos.hpp"

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
  void expect_same_as_one_process(int ranks, const std::string& blocks, const std::string& mapping,
                                  int edge_strip = 0) {
    const std::string name = fmt_name(ranks, blocks, mapping) + (edge_strip ? "_strip" : "");
    const fs::path out = dir_ / (name + ".h5");
    const Result r = shell(mpirun(ranks) + ONDES_BINARY + " run " + (dir_ / "case.toml").string() + " --blocks " +
                               blocks + " --mapping " + mapping + " --edge-strip " + std::to_string(edge_strip) +
                               " --output " + out.string(),
                           dir_ / (name + ".log"));
    ASSERT_EQ(r.code, 0) << r.output;
    // CPU ranks cannot chain their steps (tasks/chain.hpp) and, agreeing on it, say nothing of it.
    EXPECT_EQ(r.output.find("chain"), std::string::npos) << r.output;
    expect_bitwise_reference(out, name, r.seconds);
  }

  // Every sample of the run's seismograms has the bits of the one-process reference.
  static void expect_bitwise_reference(const fs::path& out, const std::string& name, double seconds,
                                       const std::string& reference = "reference.h5") {
    const Seismograms ref = read_seismograms((dir_ / reference).string());
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

// Edge strips are blocks of their own, tiled with the block they were cut from: the rank
// boundaries stay where they were and only the strips next to them are frontier blocks.
TEST(Mapping, EdgeStripsStayWithTheirBlocksRank) {
  const Grid g{64, 32, 8, 100.0};
  const Decomposition d = decompose(g, 2, 1, 6);
  ASSERT_EQ(d.nbx, 4);
  const int x0[] = {0, 26, 32, 38}, owner[] = {0, 0, 1, 1};
  const RankMap m = map_blocks(g, d, 2, Mapping::Tiles);
  for (const BlockInfo& b : d.blocks) {
    EXPECT_EQ(b.x0, x0[b.bx]) << "block " << b.id;
    EXPECT_EQ(m.owner(b.id), owner[b.bx]) << "block " << b.id;
  }
  EXPECT_EQ(cut_face_cells(d, m), 32LL * 8);
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
  Mapping m = Mapping::Tiles;
  EXPECT_FALSE(parse_choice("random", m));
  EXPECT_TRUE(parse_choice("cyclic", m) && m == Mapping::Cyclic);
}

TEST_F(Mpi, OneRankMatchesOneProcess) { expect_same_as_one_process(1, "2x2", "tiles"); }
TEST_F(Mpi, TwoRanksMatchOneProcess) {
  expect_same_as_one_process(2, "2x2", "tiles");
  expect_same_as_one_process(2, "3x1", "tiles");
  expect_same_as_one_process(2, "1x2", "tiles", 4);  // edge strips: frontier strips at priority 1
}
TEST_F(Mpi, FourRanksMatchOneProcess) {
  expect_same_as_one_process(4, "2x2", "tiles");
  expect_same_as_one_process(4, "4x2", "cyclic");
}

// Ondes3D's surface and grid faces (what .prm files get): over ranks, cut along x or y, bitwise one
// process (the surface reads the neighbours' columns from their halos, as they come from other ranks).
TEST_F(Mpi, Ondes3dSurfaceOverRanksMatchesOneProcess) {
  std::string text = kCase;
  const std::string key = "free_surface = true\n";
  text.replace(text.find(key), key.size(), key + "surface = \"ondes3d\"\npml_profile = \"ondes3d\"\n");
  std::ofstream(dir_ / "o3d.toml") << text;
  const std::string run = std::string(ONDES_BINARY) + " run " + (dir_ / "o3d.toml").string();
  Result r = shell(run + " --blocks 1x1 --output " + (dir_ / "o3d_reference.h5").string(), dir_ / "o3d.log");
  ASSERT_EQ(r.code, 0) << r.output;
  for (auto [ranks, blocks] : {std::pair{2, "1x2"}, std::pair{3, "3x1"}}) {
    const fs::path out = dir_ / ("o3d_" + std::to_string(ranks) + ".h5");
    r = shell(mpirun(ranks) + run + " --blocks " + blocks + " --output " + out.string(), dir_ / "o3d.log");
    ASSERT_EQ(r.code, 0) << r.output;
    expect_bitwise_reference(out, "Ondes3D's surface on " + std::string(blocks), r.seconds, "o3d_reference.h5");
  }
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

// The same in an attenuating medium (issue 17): the anelastic memory variables travel with the
// checkpoint from 4 ranks to rank 0's file and back to 2 ranks with another layout and to one
// process, and the seismograms are the one-process run's, bit for bit.
TEST_F(Mpi, AttenuatingRunOverRanksAndItsRestartsEqualOneProcess) {
  // Coarse-grained: cube cells by global index; model: Q from a 3D model's /qp, /qs (a class per cell).
  for (const std::string scheme : {"every_cell", "coarse_grained", "model"}) {
    std::string text = kCase;
    const std::string medium = "vp = 4000.0\nvs = 2310.0\nrho = 2600.0\n";
    if (scheme == "model") {
      Model3D m;
      m.nx = 3, m.ny = 3, m.nz = 2;
      m.spacing = {2000, 2000, 2400};
      for (int q = 0; q < 18; ++q) {
        m.vp.push_back(4000), m.vs.push_back(2310), m.rho.push_back(2600);
        m.inv_qp.push_back(1.0f / float(40 + 10 * q)), m.inv_qs.push_back(1.0f / float(20 + 5 * q));
      }
      write_model((dir_ / "q_model.h5").string(), m);
      text.replace(text.find(medium), medium.size(), "model = \"q_model.h5\"\nq_band = [0.5, 10.0]\n");
    } else {
      text.replace(text.find(medium), medium.size(),
                   medium + "qp = 40.0\nqs = 20.0\nq_band = [0.5, 10.0]\nq_scheme = \"" + scheme + "\"\n");
    }
    const std::string q = "q_" + scheme;
    const fs::path c = dir_ / (q + ".toml");
    std::ofstream(c) << text;
    const std::string run = ONDES_BINARY + std::string(" run ") + c.string();
    Result r = shell(run + " --output " + (dir_ / (q + "_reference.h5")).string(), dir_ / (q + "_reference.log"));
    ASSERT_EQ(r.code, 0) << r.output;
    const fs::path ck = dir_ / (q + ".checkpoint.h5");
    r = shell(mpirun(4) + run + " --blocks 2x2 --checkpoint-every 40 --checkpoint " + ck.string() + " --output " +
                  (dir_ / (q + "_four.h5")).string(),
              dir_ / (q + "_four.log"));
    ASSERT_EQ(r.code, 0) << r.output;
    expect_bitwise_reference(dir_ / (q + "_four.h5"), scheme + ", 4 ranks with checkpoints", r.seconds,
                             q + "_reference.h5");
    for (const auto& [ranks, blocks] : {std::pair{2, "3x1"}, std::pair{0, "1x1"}}) {
      const std::string name = q + "_restart_" + std::to_string(ranks) + "_" + blocks;
      r = shell((ranks ? mpirun(ranks) : std::string()) + run + " --blocks " + blocks + " --restart " + ck.string() +
                    " --output " + (dir_ / (name + ".h5")).string(),
                dir_ / (name + ".log"));
      ASSERT_EQ(r.code, 0) << name << ": " << r.output;
      EXPECT_NE(r.output.find("restarted from"), std::string::npos) << r.output;
      expect_bitwise_reference(dir_ / (name + ".h5"), name, r.seconds, q + "_reference.h5");
    }
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

namespace {

int run_attr(const fs::path& file, const char* name) { return test::run_attribute(file.string(), name); }

// A distributed run in the background, as a batch system sees it: each rank writes its pid to
// NAME.pid.RANK, mpirun's exit status goes to NAME.status.
class BackgroundRun {
 public:
  BackgroundRun(const fs::path& dir, const std::string& name, int ranks, const std::string& args)
      : dir_(dir), name_(name), ranks_(ranks) {
    const std::string rank_cmd = "sh -c 'echo $$ > " + (dir / (name + ".pid.")).string() +
                                 "$OMPI_COMM_WORLD_RANK; exec \"$0\" \"$@\"' " + ONDES_BINARY + " " + args;
    const std::string cmd = "(" + mpirun(ranks) + rank_cmd + " > " + (dir / (name + ".log")).string() +
                            " 2>&1; echo $? > " + (dir / (name + ".status.tmp")).string() + "; mv " +
                            (dir / (name + ".status.tmp")).string() + " " + (dir / (name + ".status")).string() +
                            ") &";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  std::vector<pid_t> pids() const {
    std::vector<pid_t> out;
    for (int r = 0; r < ranks_; ++r) {
      std::ifstream in(dir_ / (name_ + ".pid." + std::to_string(r)));
      pid_t p = 0;
      if (in >> p) out.push_back(p);
    }
    return out;
  }
  // mpirun's exit status, or -1 if it has not ended within `seconds`.
  int wait_status(double seconds) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(dir_ / (name_ + ".status"));
      int s = 0;
      if (in >> s) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
  std::string log() const {
    std::ifstream in(dir_ / (name_ + ".log"));
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

 private:
  fs::path dir_;
  std::string name_;
  int ranks_;
};

bool wait_for_file(const fs::path& f, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!fs::exists(f) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return fs::exists(f);
}

}  // namespace

// What a batch system's time limit does (SIGTERM to the job's processes), to one rank or to all:
// every rank stops after the same iteration within 60 s, the checkpoint and the flagged partial
// seismograms are written, the status is 128 + 15; the checkpoint restarts on 2 ranks to the
// uninterrupted one-process run's seismograms, bit for bit.
TEST_F(Mpi, SigtermToOneOrEveryRankStopsThemAllWithACheckpoint) {
  std::string text = kCase;
  text.replace(text.find("steps = 90"), 10, "steps = 800");
  std::ofstream(dir_ / "long.toml") << text;
  const std::string run = " run " + (dir_ / "long.toml").string();
  const fs::path reference = dir_ / "long_reference.h5";
  ASSERT_EQ(shell(std::string(ONDES_BINARY) + run + " --output " + reference.string(), dir_ / "long_reference.log").code, 0);
  for (const std::string who : {"one", "every"}) {
    const std::string name = "term_" + who;
    const fs::path ck = dir_ / (name + ".ck.h5"), out = dir_ / (name + ".h5");
    BackgroundRun job(dir_, name, 2, run + " --blocks 2x1 --checkpoint-every 100 --checkpoint " + ck.string() +
                                         " --output " + out.string());
    // The first checkpoint shows every rank is in its time loop, signal handlers installed.
    ASSERT_TRUE(wait_for_file(ck, 60)) << "no checkpoint within 60 s\n" << job.log();
    const std::vector<pid_t> pids = job.pids();
    ASSERT_EQ(pids.size(), 2u);
    if (who == "one")
      kill(pids[1], SIGTERM);
    else
      for (pid_t p : pids) kill(p, SIGTERM);
    const auto sent = std::chrono::steady_clock::now();
    const int status = job.wait_status(60);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
    ASSERT_NE(status, -1) << who << ": the ranks were still running 60 s after SIGTERM\n" << job.log();
    EXPECT_EQ(status, 128 + SIGTERM) << job.log();
    const std::string log = job.log();
    EXPECT_NE(log.find("stopped by signal 15"), std::string::npos) << log;
    ASSERT_TRUE(fs::exists(out)) << log;
    EXPECT_EQ(run_attr(out, "complete"), 0);
    const int done = run_attr(out, "steps_completed");
    EXPECT_GT(done, 0);
    EXPECT_LT(done, 800) << "the run ended before the signal: make the case longer";
    std::cout << "SIGTERM to " << who << " rank(s): all stopped after iteration " << done << ", " << seconds
              << " s after the signal\n";
    const fs::path restarted = dir_ / (name + "_restarted.h5");
    const Result r = shell(mpirun(2) + ONDES_BINARY + run + " --blocks 2x2 --restart " + ck.string() + " --output " +
                               restarted.string(),
                           dir_ / (name + "_restarted.log"));
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("after iteration " + std::to_string(done)), std::string::npos) << r.output;
    const Comparison cmp = compare_seismograms(reference.string(), restarted.string());
    EXPECT_TRUE(cmp.bitwise()) << who << ": " << cmp.identical << " of " << cmp.samples << " samples identical";
  }
}

// A rank that dies (SIGKILL: no handler runs) takes the others down within 60 s, with a failing
// status, and no output file claims to be complete.
TEST_F(Mpi, KilledRankTakesTheOthersDown) {
  std::string text = kCase;
  text.replace(text.find("steps = 90"), 10, "steps = 3000");
  std::ofstream(dir_ / "killed.toml") << text;
  const fs::path ck = dir_ / "killed.ck.h5", out = dir_ / "killed.h5";
  BackgroundRun job(dir_, "killed", 2, "run " + (dir_ / "killed.toml").string() +
                                           " --blocks 2x1 --checkpoint-every 100 --checkpoint " + ck.string() +
                                           " --output " + out.string());
  ASSERT_TRUE(wait_for_file(ck, 60)) << "no checkpoint within 60 s\n" << job.log();
  const std::vector<pid_t> pids = job.pids();
  ASSERT_EQ(pids.size(), 2u);
  kill(pids[1], SIGKILL);
  const int status = job.wait_status(60);
  ASSERT_NE(status, -1) << "rank 0 was still running 60 s after rank 1 died\n" << job.log();
  EXPECT_NE(status, 0) << job.log();
  if (fs::exists(out)) EXPECT_EQ(run_attr(out, "complete"), 0);
  EXPECT_TRUE(fs::exists(ck)) << "the last whole checkpoint must survive";
}

// A watchdog alarm on one rank (a source on rank 0 only, a limit the wave soon exceeds) stops
// every rank after the same iteration: status 3 on all, the seismograms up to the alarm written
// and flagged, NaN after it.
TEST_F(Mpi, WatchdogAlarmOnOneRankStopsEveryRank) {
  std::string text = kCase;
  text.replace(text.find("steps = 90"), 10, "steps = 600");
  text += "\n[run]\nwatchdog_every = 5\nwatchdog_max_velocity = 1e-9\n";
  std::ofstream(dir_ / "alarm.toml") << text;
  const fs::path out = dir_ / "alarm.h5";
  const Result r = shell(mpirun(2) + ONDES_BINARY + " run " + (dir_ / "alarm.toml").string() +
                             " --blocks 2x1 --output " + out.string(),
                         dir_ / "alarm.log");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("watchdog"), std::string::npos) << r.output;
  ASSERT_TRUE(fs::exists(out)) << r.output;
  EXPECT_EQ(run_attr(out, "complete"), 0);
  const int done = run_attr(out, "steps_completed");
  EXPECT_GT(done, 0);
  EXPECT_LT(done, 600);
  const Seismograms s = read_seismograms(out.string());
  const size_t steps = 600;
  EXPECT_TRUE(std::isnan(s.data[steps - 1])) << "samples after the alarm must be NaN";
  EXPECT_FALSE(std::isnan(s.data[0]));
}

// CUDA IPC halos (tasks/ipc_halos.hpp): a task writing a field's boundary buffers holds their
// tokens RW, one reading the neighbours' buffers of the other field holds theirs R, each token on
// main memory, the task's other buffers where the worker is; blocks without tokens add nothing.
TEST(IpcHalos, TokensOrderTheWriterBeforeTheReader) {
  auto fake = [](uintptr_t v) { return reinterpret_cast<starpu_data_handle_t>(v); };
  std::vector<BlockData> blocks(3);
  blocks[0].info.neighbour[YP] = 1;  // 0 | 1 | 2 along y
  blocks[1].info.neighbour[YM] = 0;
  blocks[1].info.neighbour[YP] = 2;
  blocks[2].info.neighbour[YM] = 1;
  blocks[0].routes.h_velocity_token[YP] = fake(0x10);  // 0's velocity towards 1 crosses by IPC
  blocks[1].routes.h_stress_token[YM] = fake(0x20);    // 1's stress towards 0 too
  blocks[1].routes.h_velocity_token[YP] = fake(0x30);  // 1's velocity towards 2
  starpu_data_descr d[8];
  std::vector<int> nodes;
  // Block 0's velocity update: writes its velocity buffer towards 1, reads 1's stress buffer.
  int n = add_tokens(blocks, blocks[0], true, true, true, d, 3, nodes);
  ASSERT_EQ(n, 5);
  EXPECT_EQ(d[3].handle, fake(0x10));
  EXPECT_EQ(d[3].mode, STARPU_RW);
  EXPECT_EQ(d[4].handle, fake(0x20));
  EXPECT_EQ(d[4].mode, STARPU_R);
  EXPECT_EQ(nodes, (std::vector<int>{STARPU_SPECIFIC_NODE_LOCAL, STARPU_SPECIFIC_NODE_LOCAL,
                                     STARPU_SPECIFIC_NODE_LOCAL, STARPU_SPECIFIC_NODE_CPU, STARPU_SPECIFIC_NODE_CPU}));
  // Block 1's stress update: writes its stress buffer towards 0, reads 0's velocity buffer (2's
  // towards 1 has no token).
  nodes.clear();
  n = add_tokens(blocks, blocks[1], false, true, true, d, 0, nodes);
  ASSERT_EQ(n, 2);
  EXPECT_EQ(d[0].handle, fake(0x20));
  EXPECT_EQ(d[0].mode, STARPU_RW);
  EXPECT_EQ(d[1].handle, fake(0x10));
  EXPECT_EQ(d[1].mode, STARPU_R);
  // A save task writes tokens only; block 2 has none at all.
  nodes.clear();
  EXPECT_EQ(add_tokens(blocks, blocks[1], true, true, false, d, 1, nodes), 2);
  EXPECT_EQ(d[1].handle, fake(0x30));
  EXPECT_TRUE(has_ipc_outputs(blocks[1]));
  nodes.clear();
  EXPECT_EQ(add_tokens(blocks, blocks[2], true, true, true, d, 4, nodes), 4);
  EXPECT_TRUE(nodes.empty());
  EXPECT_FALSE(has_ipc_outputs(blocks[2]));
}

