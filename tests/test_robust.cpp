// Robust runs: the watchdog stops a blowing-up run and keeps what it recorded; checkpoints survive
// SIGKILL and restart bitwise (also with another block layout and scheduler); SIGTERM stops
// cleanly; damaged checkpoints and impossible memory needs are refused with clear messages; a
// result never replaces a folder it would not write again in full.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "app/driver.hpp"
#include "engine/node_share.hpp"
#include "h5read.hpp"
#include "helpers.hpp"
#include "io/case/case_reader.hpp"
#include "io/results/checkpoint.hpp"
#include "io/results/compare.hpp"
#include "io/results/output_h5.hpp"
#include "io/results/partial_file.hpp"
#include "physics/stability.hpp"
#include "shell.hpp"

namespace fs = std::filesystem;
using namespace ondes;

namespace {

using Result = test::CommandResult;
Result cli(const std::string& args, const fs::path& log) { return test::ondes3d(args, log); }

int int_attr(const std::string& file, const char* name) { return test::run_attribute(file, name); }

const std::string kLayered = std::string(ONDES_SOURCE_DIR) + "/inputs/layered.toml";

class Robust : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ondes_robust_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // layered.toml for 60 steps with a checkpoint every 30 in `ck`; the exit status.
  int run_with_checkpoints(const std::string& ck, const std::string& output, const std::string& extra) const {
    return cli("run " + kLayered + " --steps 60 --checkpoint-every 30 --checkpoint " + ck + " --output " + path(output) +
                   extra,
               dir_ / (output + ".log"))
        .code;
  }
  fs::path dir_;
};

}  // namespace

// A time step 30% above the CFL limit: the scheme is unstable and the amplitudes grow without
// bound. The watchdog must stop the run, name the iteration and block, and keep the seismograms
// recorded before it, finite, with NaN after. In 2x2 blocks (watch_velocity tasks) and in one (the
// lone block's window measures the peak).
TEST_F(Robust, WatchdogStopsAnUnstableRunAndKeepsWhatItRecorded) {
  for (const int blocks : {2, 1}) {
    SCOPED_TRACE(std::to_string(blocks) + "x" + std::to_string(blocks) + " blocks");
    Case c = test::cube(32, 100.0, 4000, 2310, 2600, 0, 2000, 6, true);
    c.time.dt = 1.3 * cfl_limit(c.grid.h, 4000);
    test::add_force_and_moment(c, {1500, 1400, 900}, {1700, 1800, 1200});
    c.stations = {test::station("A", 1600, 1600, 0), test::station("B", 800, 2200, 500)};
    c.run.set_blocks(blocks, blocks);
    
    c.run.watchdog_every = 10;
    c.output = path("unstable_" + std::to_string(blocks) + ".h5");
    ASSERT_EQ(run_case(c, RunControl{}), kExitWatchdog);
    ASSERT_TRUE(fs::exists(c.output));
    EXPECT_EQ(int_attr(c.output, "complete"), 0);
    const int done = int_attr(c.output, "steps_completed");
    EXPECT_GT(done, 0);
    EXPECT_LT(done, c.time.steps);
    EXPECT_EQ(done % 10, 0) << "the watchdog looks every 10 iterations";
    const Seismograms s = read_seismograms(c.output);
    for (int st = 0; st < s.stations; ++st)
      for (int comp = 0; comp < 3; ++comp)
        for (int t = 0; t < s.steps; ++t) {
          const float v = s.data[(st * 3 + comp) * s.steps + t];
          if (t < done - 10) {
            ASSERT_TRUE(std::isfinite(v)) << "station " << st << " step " << t;
          } else if (t >= done) {
            ASSERT_TRUE(std::isnan(v)) << "step " << t << " was never validly computed";
          }
        }
    std::cout << "watchdog stopped the unstable run in " << blocks << "x" << blocks << " blocks after iteration "
              << done << " of " << c.time.steps << "\n";
  }
}

TEST_F(Robust, WatchdogStaysQuietOnAStableRun) {
  Case c = test::cube(32, 100.0, 4000, 2310, 2600, 0.01, 150, 6, true);
  test::add_force_and_moment(c, {1500, 1400, 900}, {1700, 1800, 1200});
  c.stations = {test::station("A", 1600, 1600, 0)};
  c.run.watchdog_every = 5;
  c.run.watchdog_max_velocity = 10.0;  // ten times the peak these sources make at their own cells
  c.output = path("stable.h5");
  ASSERT_EQ(run_case(c, RunControl{}), 0);
  EXPECT_EQ(int_attr(c.output, "complete"), 1);
  EXPECT_EQ(int_attr(c.output, "steps_completed"), 150);
}

// The run is killed (SIGKILL: no chance to clean up) after its first checkpoint; restarting from
// that checkpoint gives the uninterrupted run's seismograms bit for bit, with the same layout and
// with another layout and scheduler.
TEST_F(Robust, KilledRunRestartsBitwiseFromItsCheckpoint) {
  const std::string steps = " --steps 360";
  ASSERT_EQ(cli("run " + kLayered + steps + " --blocks 2x2 --output " + path("full.h5"), dir_ / "full.log").code, 0);

  const std::string ck = path("ck.h5");
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string out = path("killed.h5");
    execl(ONDES_BINARY, ONDES_BINARY, "run", kLayered.c_str(), "--steps", "360", "--blocks", "2x2",
          "--checkpoint-every", "40", "--checkpoint", ck.c_str(), "--output", out.c_str(), (char*)nullptr);
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(ck) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(fs::exists(ck)) << "no checkpoint within 60 s";
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run finished before it could be killed";
  EXPECT_FALSE(fs::exists(path("killed.h5"))) << "a killed run must not leave an output";

  for (const std::string layout : {" --blocks 2x2", " --blocks 3x1 --sched eager"}) {
    const std::string out = path("restarted.h5");
    const Result r = cli("run " + kLayered + steps + layout + " --restart " + ck + " --output " + out,
                         dir_ / "restart.log");
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("restarted from"), std::string::npos) << r.output;
    const Comparison cmp = compare_seismograms(path("full.h5"), out);
    EXPECT_TRUE(cmp.bitwise()) << layout << ": " << cmp.identical << " of " << cmp.samples
                               << " samples identical, worst relative L2 " << cmp.worst_relative_l2;
    std::cout << "restart with" << layout << ": " << cmp.identical << "/" << cmp.samples << " samples identical\n";
  }
}

TEST_F(Robust, SigtermWritesACheckpointAndTheSeismogramsSoFar) {
  const pid_t pid = fork();
  const std::string out = path("stopped.h5"), ck = path("stopped.ck.h5");
  if (pid == 0) {
    execl(ONDES_BINARY, ONDES_BINARY, "run", kLayered.c_str(), "--steps", "2000", "--checkpoint-every", "50",
          "--checkpoint", ck.c_str(), "--output", out.c_str(), (char*)nullptr);
    _exit(127);
  }
  // The first checkpoint shows the time loop (and the signal handlers) are running.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(ck) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(fs::exists(ck)) << "no checkpoint within 60 s";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  ASSERT_TRUE(fs::exists(out));
  ASSERT_TRUE(fs::exists(ck));
  EXPECT_EQ(int_attr(out, "complete"), 0);
  const int done = int_attr(out, "steps_completed");
  EXPECT_GT(done, 0);
  EXPECT_LT(done, 2000);
  // The checkpoint holds the same iteration and opens for this case.
  Case c = read_case(kLayered);
  c.time.steps = 2000;
  EXPECT_EQ(CheckpointReader(ck, c).iteration(), done);
}

// Checkpoints that cannot be used are refused before anything is allocated, naming the file.
TEST_F(Robust, BadCheckpointsAreRefused) {
  const std::string ck = path("good.h5");
  ASSERT_EQ(run_with_checkpoints(ck, "o.h5", ""), 0);
  const auto size = fs::file_size(ck);
  fs::copy_file(ck, path("truncated.h5"));
  fs::resize_file(path("truncated.h5"), size / 2);
  std::ofstream(path("text.h5")) << "not hdf5 at all\n";
  struct Bad {
    std::string restart, extra, message;
  } cases[] = {
      {path("missing.h5"), "", "cannot open"},
      {path("text.h5"), "", "cannot open"},
      {path("truncated.h5"), "", "damaged or truncated"},
      {ck, " --steps 59", "holds the state after iteration 60, the case asks for 59 steps"},
      {path("o.h5"), "", "not an ondes3d checkpoint"},  // an output file, not a checkpoint
  };
  for (const Bad& b : cases) {
    const std::string out = path("never.h5");
    const Result r = cli("run " + kLayered + (b.extra.empty() ? " --steps 60" : b.extra) + " --restart " + b.restart +
                             " --output " + out,
                         dir_ / "bad.log");
    EXPECT_EQ(r.code, 2) << b.restart << "\n" << r.output;
    EXPECT_NE(r.output.find(b.message), std::string::npos) << b.restart << "\n" << r.output;
    EXPECT_NE(r.output.find(b.restart), std::string::npos) << "the message must name the file\n" << r.output;
    EXPECT_FALSE(fs::exists(out));
  }
}

// A finished run goes on further: its last checkpoint (N divides its steps) restarts with more
// steps, on another layout and scheduler, to the bits of one run of that length; the first run's
// seismograms are the beginning of those.
TEST_F(Robust, AFinishedRunGoesOnFromItsLastCheckpoint) {
  const std::string ck = path("end.h5");
  ASSERT_EQ(run_with_checkpoints(ck, "first.h5", " --blocks 2x2"), 0);
  Case c = read_case(kLayered);
  c.time.steps = 60;
  ASSERT_EQ(CheckpointReader(ck, c).iteration(), 60) << "the last iteration's checkpoint";
  const Result r = cli("run " + kLayered + " --steps 100 --blocks 3x1 --sched eager --restart " + ck + " --output " +
                           path("further.h5"),
                       dir_ / "further.log");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("after iteration 60"), std::string::npos) << r.output;
  ASSERT_EQ(cli("run " + kLayered + " --steps 100 --blocks 2x2 --output " + path("whole.h5"), dir_ / "whole.log").code, 0);
  const Comparison cmp = compare_seismograms(path("whole.h5"), path("further.h5"));
  EXPECT_TRUE(cmp.bitwise()) << cmp.identical << " of " << cmp.samples << " samples identical";
  EXPECT_EQ(int_attr(path("further.h5"), "complete"), 1);
  const auto first = test::read_floats(path("first.h5"), "/seismograms/velocity");
  const auto whole = test::read_floats(path("whole.h5"), "/seismograms/velocity");
  ASSERT_EQ(first.size() / 60, whole.size() / 100) << "traces";
  for (size_t t = 0; t < first.size() / 60; ++t)
    ASSERT_EQ(std::memcmp(&first[t * 60], &whole[t * 100], 60 * sizeof(float)), 0) << "trace " << t;
  EXPECT_GT(*std::max_element(first.begin(), first.end()), 0.0f) << "nothing recorded";
}

// What a starting run reads of the others on its node: CPU lists as /proc writes them, and the
// CPUs held by single-CPU threads of processes of its own name, in a /proc tree made here.
TEST_F(Robust, ARunSeesTheCoresOtherRunsHold) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::set<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("\t5"), (std::set<int>{5}));
  EXPECT_TRUE(parse_cpu_list("3-1").empty());
  EXPECT_TRUE(parse_cpu_list("x").empty());
  EXPECT_TRUE(parse_cpu_list("2-").empty());
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  const fs::path proc = dir_ / "proc";
  auto thread = [&](int pid, const std::string& comm, int tid, const std::string& cpus) {
    fs::create_directories(proc / std::to_string(pid) / "task" / std::to_string(tid));
    std::ofstream(proc / std::to_string(pid) / "comm") << comm << "\n";
    std::ofstream(proc / std::to_string(pid) / "task" / std::to_string(tid) / "status")
        << "Name:\t" << comm << "\nCpus_allowed:\tff\nCpus_allowed_list:\t" << cpus << "\nMems_allowed:\t1\n";
  };
  thread(100, "ondes3d", 100, "0-7");  // the main thread: not bound
  thread(100, "ondes3d", 101, "1");    // a worker
  thread(100, "ondes3d", 102, "2");
  thread(200, "other", 200, "0");      // another program's bound thread
  thread(300, "ondes3d", 301, "6");    // this process: left out
  thread(400, "ondes3d", 401, "4-5");  // bound to two CPUs: not one's
  fs::create_directories(proc / "self");
  const BoundCpus b = cpus_bound_by("ondes3d", 300, proc.string());
  EXPECT_EQ(b.cpus, (std::set<int>{1, 2}));
  EXPECT_EQ(b.holders, (std::set<int>{100}));
  EXPECT_TRUE(cpus_bound_by("ondes3d", 300, (dir_ / "none").string()).cpus.empty());
}

// Runs starting together take turns through the node's lock file, but one stuck in its start does
// not hold the others for ever: past the wait they go on without the lock.
TEST_F(Robust, RunsStartingTogetherTakeTurnsButNeverWaitForEver) {
  const std::string file = path("start.lock");
  std::optional<NodeLock> first(std::in_place, file);
  EXPECT_TRUE(first->held());
  const auto t0 = std::chrono::steady_clock::now();
  const NodeLock second(file, std::chrono::milliseconds(200));
  EXPECT_FALSE(second.held()) << "the lock is the first one's";
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200)) << "it waited its turn";
  first.reset();
  EXPECT_TRUE(NodeLock(file, std::chrono::milliseconds(200)).held()) << "released with the first";
  EXPECT_FALSE(NodeLock(path("no/such/folder/start.lock")).held()) << "no lock file: the run goes on";
}

// Two independent runs on one node: StarPU would bind the second one's worker to the core the
// first one's worker holds (core 0: both at half speed; on four H200s four one-GPU runs each ran
// 3.6 times slower). The second sees it and leaves its threads unbound; a placement the user chose
// (STARPU_WORKERS_CPUID) stays.
TEST_F(Robust, ASecondRunOnTheNodeLeavesTheFirstOnesCoresAlone) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("STARPU_NCPU", "1", 1);
    const std::string out = path("first.h5"), log = path("first.log");
    freopen(log.c_str(), "w", stdout);
    freopen(log.c_str(), "a", stderr);
    execl(ONDES_BINARY, ONDES_BINARY, "run", kLayered.c_str(), "--steps", "100000", "--output", out.c_str(),
          (char*)nullptr);
    _exit(127);
  }
  bool bound = false, alive = true;
  for (auto t = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       !bound && alive && std::chrono::steady_clock::now() < t;) {
    bound = cpus_bound_by("ondes3d", ::getpid()).holders.count(pid) > 0;
    alive = waitpid(pid, nullptr, WNOHANG) == 0;
    if (!bound) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!bound) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    ASSERT_TRUE(alive) << "the first run ended early:\n" << std::ifstream(path("first.log")).rdbuf();
    GTEST_SKIP() << "StarPU binds no thread to a core on this machine (a first run's threads never showed bound)";
  }
  const Result second = cli("run " + kLayered + " --steps 20 --output " + path("second.h5"), dir_ / "second.log");
  const Result placed = test::shell("STARPU_WORKERS_CPUID=0 " + std::string(ONDES_BINARY) + " run " + kLayered +
                                        " --steps 20 --output " + path("placed.h5"),
                                    dir_ / "placed.log");
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_EQ(second.code, 0) << second.output;
  const auto said = second.output.find("held by the threads of another ondes3d on this node (pid");
  ASSERT_NE(said, std::string::npos) << second.output;
  EXPECT_NE(second.output.find(std::to_string(pid), said), std::string::npos) << "names the first run\n" << second.output;
  ASSERT_EQ(placed.code, 0) << placed.output;
  EXPECT_EQ(placed.output.find("held by the threads"), std::string::npos) << placed.output;
}

// Snapshots across a restart (a batch job resubmitted with the same output): the restarted run's
// snapshot file holds every frame and the peak ground velocity of the whole run, bitwise those of
// one uninterrupted run, though the restart has another layout; before, it held the frames from
// the restart on and the peaks of those steps only.
TEST_F(Robust, ARestartedRunsSnapshotsAreThoseOfTheWholeRun) {
  std::ifstream in(kLayered);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  text.replace(text.find("[run]"), 5, "[snapshots]\nevery = 10\nplanes = [\"z=0\", \"y=2000\"]\npgv = true\n\n[run]");
  const std::string c = path("snap.toml");
  std::ofstream(c) << text;
  ASSERT_EQ(cli("run " + c + " --steps 100 --blocks 2x2 --output " + path("whole.h5"), dir_ / "whole.log").code, 0);
  ASSERT_EQ(cli("run " + c + " --steps 60 --blocks 2x2 --checkpoint-every 30 --output " + path("job.h5"),
                dir_ / "first.log")
                .code,
            0);
  const Result plan = cli("check " + c + " --steps 100 --restart " + path("job.checkpoint.h5"), dir_ / "check.log");
  EXPECT_NE(plan.output.find("peak ground velocity: goes on from the checkpoint's map"), std::string::npos)
      << plan.output;
  EXPECT_NE(plan.output.find("snapshots: 12 frames before the restart come from " + path("job_snapshots.h5")),
            std::string::npos)
      << plan.output;
  const Result r = cli("run " + c + " --steps 100 --blocks 3x1 --restart " + path("job.checkpoint.h5") +
                           " --output " + path("job.h5"),
                       dir_ / "second.log");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("12 snapshot frames of the 60 iterations before the restart carried over"), std::string::npos)
      << r.output;
  std::vector<std::string> sets = {"/pgv/horizontal", "/pgv/norm"};
  for (const char* plane : {"z0", "y20"})
    for (int it = 9; it < 100; it += 10)  // a frame after every 10th step
      for (const char* v : {"vx", "vy", "vz", "norm"}) sets.push_back(fmt::format("/{}/{:08d}/{}", plane, it, v));
  for (const std::string& d : sets) {
    const auto whole = test::read_floats(path("whole_snapshots.h5"), d);
    const auto job = test::read_floats(path("job_snapshots.h5"), d);
    ASSERT_FALSE(whole.empty()) << d;
    ASSERT_EQ(job.size(), whole.size()) << d;
    EXPECT_EQ(std::memcmp(job.data(), whole.data(), whole.size() * sizeof(float)), 0) << d << " differs";
  }
  const auto pgv = test::read_floats(path("whole_snapshots.h5"), "/pgv/norm");
  EXPECT_GT(*std::max_element(pgv.begin(), pgv.end()), 0.0f) << "no motion at the surface";
  std::ifstream wx(path("whole_snapshots.xdmf")), jx(path("job_snapshots.xdmf"));
  std::stringstream w, j;
  w << wx.rdbuf(), j << jx.rdbuf();
  std::string ws = w.str();
  for (auto at = ws.find("whole_snapshots.h5"); at != std::string::npos; at = ws.find("whole_snapshots.h5", at))
    ws.replace(at, 18, "job_snapshots.h5");
  EXPECT_EQ(j.str(), ws) << "the XDMF lists every frame";
}

TEST_F(Robust, ACaseThatCannotFitInMemoryIsRefusedWithTheFigures) {
  std::ifstream in(std::string(ONDES_SOURCE_DIR) + "/inputs/small_homogeneous.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string t = ss.str();
  // 11 x 11 blocks: each under StarPU's 2^32 values per handle, which validation checks first.
  for (auto [from, to] : {std::pair{"nx = 48", "nx = 6000"}, std::pair{"ny = 48", "ny = 6000"},
                          std::pair{"nz = 32", "nz = 2000"}, std::pair{"blocks = [1, 1]", "blocks = [11, 11]"}})
    t.replace(t.find(from), std::string(from).size(), to);
  std::ofstream(path("huge.toml")) << t;
  const Result r = cli("run " + path("huge.toml") + " --output " + path("huge.h5"), dir_ / "huge.log");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("of memory"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("is available"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("huge.h5")));
}

namespace {
void write_text(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

// Results go through <path>.partial and replace <path> when complete. A folder of a rerun (the SAC
// files of the same stations) gives way; a folder holding anything the new one does not write
// again, or a folder where a file is to go, stays as it was, and what the run wrote stays at
// <path>.partial, which the error names.
TEST_F(Robust, AResultNeverReplacesAFolderItWouldNotWriteAgain) {
  const fs::path sac = dir_ / "run_sac";
  fs::create_directories(sac);
  write_text(sac / "A.sac", "old");
  auto write_folder = [](const std::string& tmp) {
    fs::create_directory(tmp);
    write_text(fs::path(tmp) / "A.sac", "new");
  };
  write_through(sac.string(), write_folder);  // a rerun: every file written again
  EXPECT_EQ(read_text(sac / "A.sac"), "new");

  write_text(sac / "notes.txt", "the user's");
  try {
    write_through(sac.string(), write_folder);
    ADD_FAILURE() << "a folder holding notes.txt was replaced";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("holding notes.txt, which this run does not write"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("run_sac.partial"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_text(sac / "notes.txt"), "the user's");
  EXPECT_EQ(read_text(dir_ / "run_sac.partial" / "A.sac"), "new");  // nothing lost either side

  EXPECT_THROW(write_through(sac.string(), [](const std::string& tmp) { write_text(tmp, "a file"); }),
               std::runtime_error);
  EXPECT_EQ(read_text(sac / "notes.txt"), "the user's");
  EXPECT_EQ(read_text(dir_ / "run_sac.partial"), "a file");
}

// An output, checkpoint, trace or summary named after an existing folder, a snapshots file in a
// folder that does not exist, and an output over the case file, are refused before the run.
TEST_F(Robust, AnOutputNamedAfterAFolderIsRefusedBeforeTheRun) {
  fs::create_directories(dir_ / "results");
  write_text(dir_ / "results" / "mine.txt", "keep");
  const std::string c = std::string(ONDES_SOURCE_DIR) + "/inputs/small_homogeneous.toml";
  auto r = cli(fmt::format("run {} --steps 5 --output {}", c, path("results")), dir_ / "log1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("output.file = " + path("results") + ": is a directory"), std::string::npos) << r.output;
  r = cli(fmt::format("run {} --steps 5 --output {} --trace {}", c, path("o.h5"), path("results")), dir_ / "log2");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--trace " + path("results") + ": is a directory"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "o.h5"));
  EXPECT_EQ(read_text(dir_ / "results" / "mine.txt"), "keep");
  // The snapshots' file, in a folder that does not exist: one line naming the key, before the run
  // (it was HDF5's error stack and exit 1 at set-up).
  std::string text = read_text(c);
  text.replace(text.find("[run]"), 5, "[snapshots]\nevery = 5\nfile = \"/nonexistent/dir/s.h5\"\n\n[run]");
  write_text(dir_ / "snap.toml", text);
  r = cli(fmt::format("run {} --steps 10 --output {}", path("snap.toml"), path("o.h5")), dir_ / "log3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("snapshots.file = /nonexistent/dir/s.h5: directory /nonexistent/dir does not exist"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "o.h5"));
  // The output over the case file itself (a slip of the command line), by another spelling of its path.
  r = cli(fmt::format("run {} --steps 5 --output {}/../{}/snap.toml", path("snap.toml"), dir_.string(),
                      dir_.filename().string()),
          dir_ / "log4");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("is the input file " + path("snap.toml") + " itself"), std::string::npos) << r.output;
  EXPECT_EQ(read_text(dir_ / "snap.toml"), text);
}
