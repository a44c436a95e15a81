// The program as a user runs it: exit codes, messages, and the HDF5 file it leaves (or not).
#include <gtest/gtest.h>

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <tuple>
#include <vector>

#include "h5read.hpp"
#include "io/results/output_h5.hpp"
#include "shell.hpp"

namespace fs = std::filesystem;

namespace {

ondes::test::CommandResult run(const std::string& args) {
  const fs::path log = fs::temp_directory_path() / ("ondes_cli_" + std::to_string(::getpid()) + ".log");
  auto r = ondes::test::ondes3d(args, log);
  fs::remove(log);
  return r;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ondes_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The small example case with one line replaced, written into the test's folder.
  std::string small_case(const std::string& from = "", const std::string& to = "") {
    std::ifstream in(std::string(ONDES_SOURCE_DIR) + "/inputs/small_homogeneous.toml");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (!from.empty()) {
      const auto pos = text.find(from);
      EXPECT_NE(pos, std::string::npos);
      text.replace(pos, from.size(), to);
    }
    const fs::path p = dir_ / "case.toml";
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

std::string attr_string(hid_t obj, const char* name) {
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  hid_t t = H5Aget_type(a);
  std::string s(H5Tget_size(t), '\0');
  H5Aread(a, t, s.data());
  H5Tclose(t);
  H5Aclose(a);
  return s.c_str();
}

}  // namespace

TEST_F(Cli, BadCaseStopsWithTheKeyAndLeavesNoOutput) {
  const fs::path out = dir_ / "out.h5";
  const auto r = run("run " + small_case("dt = 0.008", "dt = 0.05") + " --output " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(case\.toml: time\.dt = 0\.05 s exceeds the CFL limit)")))
      << r.output;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out.string() + ".partial"));
}

TEST_F(Cli, MalformedAndMissingFiles) {
  auto r = run("run " + small_case("[grid]", "[grid"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("malformed TOML"), std::string::npos) << r.output;
  r = run("check " + (dir_ / "nope.toml").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("nope.toml: cannot open the case file"), std::string::npos) << r.output;
}

TEST_F(Cli, BadFlagsAreRefused) {
  auto r = run("run " + small_case() + " --blocks 2by2");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--blocks 2by2: expected NXxNY"), std::string::npos) << r.output;
  r = run("run " + small_case() + " --blocks 30x1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("does not divide"), std::string::npos) << r.output;
  r = run("run " + small_case() + " --sched fastest --output " + (dir_ / "o.h5").string());
  EXPECT_EQ(r.code, 2);  // refused with the case's other values, before StarPU starts
  EXPECT_NE(r.output.find("unknown scheduler 'fastest'; StarPU offers:"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "o.h5"));
  r = run("run " + small_case() + " --output /nonexistent/dir/o.h5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("does not exist"), std::string::npos) << r.output;
  // The other files a run writes, refused before it runs: a checkpoint's missing folder used to
  // stop the run at its first checkpoint, its output lost.
  for (const char* flag : {"--checkpoint", "--trace", "--summary"}) {
    r = run(fmt::format("run {} --steps 20 --checkpoint-every 10 --output {} {} /nonexistent/dir/f", small_case(),
                        (dir_ / "o.h5").string(), flag));
    EXPECT_EQ(r.code, 2) << flag;
    EXPECT_NE(r.output.find(fmt::format("{} /nonexistent/dir/f: directory /nonexistent/dir does not exist", flag)),
              std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "o.h5")) << flag;
  }
  // `check` says so as a warning (a batch job may make the folder before it runs) and exits 0.
  r = run("check " + small_case("[run]", "[output]\nfile = \"/nonexistent/dir/o.h5\"\n[run]"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: " + (dir_ / "case.toml").string() +
                          ": output.file = /nonexistent/dir/o.h5: directory /nonexistent/dir does not exist"),
            std::string::npos)
      << r.output;
  r = run("calibrate " + small_case() + " --output /nonexistent/dir/m.toml");
  EXPECT_EQ(r.code, 2);  // before any measurement
  EXPECT_NE(r.output.find("calibrate --output /nonexistent/dir/m.toml: directory /nonexistent/dir does not exist"),
            std::string::npos)
      << r.output;
}

// Command-line values are checked like case values: one readable line naming the flag, exit 2.
TEST_F(Cli, BadCommandLineValuesExitTwoWithOneLine) {
  const std::string out = " --output " + (dir_ / "o.h5").string();
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--steps -4", R"(^error: --steps: -4 is outside \[1, 100000000\])"},
      {"--steps abc", R"(^error: --steps: 'abc' is not an integer)"},
      {"--steps 3.5", R"(^error: --steps: '3\.5' is not an integer)"},
      {"--window 0", R"(^error: --window: 0 is outside \[1, 1000\])"},
      {"--blocks 0x3", R"(error: --blocks 0x3: both counts must be at least 1)"},
      {"--bogus", R"(^error: unknown option '--bogus' of 'run': ondes3d run --help lists them)"},
      {"--stpes 4", R"(^error: unknown option '--stpes' of 'run' \(did you mean '--steps'\?\))"},
  };
  for (const auto& [args, message] : bad) {
    const auto r = run("run " + small_case() + " " + args + out);
    EXPECT_EQ(r.code, 2) << args << ": " << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex(message))) << args << ": " << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << args << ": " << r.output;
  }
  EXPECT_FALSE(fs::exists(dir_ / "o.h5"));
  const auto r = run("compare " + small_case() + " " + small_case() + " --tolerance -1");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--tolerance: -1 is below 0"), std::string::npos) << r.output;
}

TEST_F(Cli, CheckPrintsTheEstimates) {
  const auto r = run("check " + small_case() + " --blocks 2x3");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\d+\.\d% of the CFL limit)"))) << r.output;
  EXPECT_NE(r.output.find("points per shortest S wavelength"), std::string::npos);
  EXPECT_NE(r.output.find("blocks 2 x 3 (as the case or --blocks sets)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("memory: largest block"), std::string::npos) << r.output;
}

// `check --restart FILE` says before a job is submitted what `run --restart FILE` would do: the
// steps left, nothing left, or the refusal `run` would give (exit 2).
TEST_F(Cli, CheckSaysWhatARestartWouldDo) {
  const std::string c = small_case(), ck = (dir_ / "ck.h5").string();
  ASSERT_EQ(run("run " + c + " --steps 30 --checkpoint-every 10 --checkpoint " + ck + " --output " +
                (dir_ / "o.h5").string())
                .code,
            0);
  auto r = run("check " + c + " --steps 45 --restart " + ck);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("holds the state after iteration 30; 15 of the case's 45 steps left"), std::string::npos)
      << r.output;
  r = run("check " + c + " --steps 30 --restart " + ck);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("nothing left to compute"), std::string::npos) << r.output;
  r = run("check " + c + " --steps 20 --restart " + ck);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("must be at least 30"), std::string::npos) << r.output;
  r = run("check " + small_case("vs = 2310.0", "vs = 2000.0") + " --steps 45 --restart " + ck);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("made for a different case"), std::string::npos) << r.output;
}

// Issue 60: `check` prints the plan `run` executes (one plan_run, one describe_plan): for a case
// that leaves its blocks to the run, one that sets them, and one whose command line sets them and
// the execution policy, every line the run logs as "plan: ..." is a line of check's output, in the
// same order.
// On GPUs asked for (--gpus 4, nothing started), a block per GPU, each on its own GPU.
TEST_F(Cli, CheckPrintsThePlanTheRunExecutes) {
  auto plan_lines = [](const std::string& out, const std::string& prefix) {
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string l; std::getline(in, l);)
      if (const size_t at = l.find(prefix); at != std::string::npos) lines.push_back(l.substr(at + prefix.size()));
    return lines;
  };
  const std::string out = (dir_ / "o.h5").string();
  for (const auto& [from, to, args] :
       {std::tuple<std::string, std::string, std::string>{"blocks = [1, 1]", "", ""},
        {"blocks = [1, 1]", "blocks = [2, 3]", ""},
        {"blocks = [1, 1]", "", " --blocks 3x1 --tune park_cpus=false"}}) {
    const std::string c = small_case(from, to);
    const auto ran = run("run " + c + args + " --steps 2 --output " + out);
    ASSERT_EQ(ran.code, 0) << ran.output;
    const std::vector<std::string> logged = plan_lines(ran.output, "info: plan: ");
    ASSERT_GE(logged.size(), 2u) << ran.output;  // blocks and the watchdog at least
    const auto checked = run("check " + c + args);
    ASSERT_EQ(checked.code, 0) << checked.output;
    std::vector<std::string> printed;
    std::istringstream in(checked.output);
    for (std::string l; std::getline(in, l);)
      if (std::find(logged.begin(), logged.end(), l) != logged.end()) printed.push_back(l);
    EXPECT_EQ(printed, logged) << "check:\n" << checked.output << "\nrun:\n" << ran.output;
    // The output says how it was computed: the same lines in /run's `plan`.
    hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    hid_t g = H5Gopen2(f, "run", H5P_DEFAULT);
    const std::string written = attr_string(g, "plan");
    H5Gclose(g);
    H5Fclose(f);
    EXPECT_EQ(written, fmt::format("{}", fmt::join(logged, "\n")));
    if (!args.empty()) EXPECT_NE(written.find("execution policy: park_cpus = false"), std::string::npos) << written;
  }
  const auto r = run("check " + small_case("blocks = [1, 1]", "") + " --gpus 4");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("blocks 1 x 4 (chosen for 4 GPU(s)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("GPU of each block: 0 1 2 3"), std::string::npos) << r.output;
  EXPECT_TRUE(plan_lines(r.output, "plan: ").empty()) << "check prints the plan, it does not log it";
}

// Issue 45: `check --gpus G` prints the arrays of the fullest GPU: with the blocks tiled over the
// GPUs, one GPU holds all the blocks' arrays (the total less the rank's seismograms), two GPUs of 2x2
// blocks about half of it and four about a quarter (the PML-balanced cuts make the blocks differ by
// a few percent), and never less than the largest block.
TEST_F(Cli, CheckPrintsTheMemoryOfTheFullestGpu) {
  auto bytes = [](const std::string& out, const std::string& what) {
    std::smatch m;
    const std::regex re("([0-9.]+) (B|KiB|MiB|GiB)" + what);
    if (!std::regex_search(out, m, re)) return -1.0;
    const double unit = m[2] == "GiB" ? 1 << 30 : m[2] == "MiB" ? 1 << 20 : m[2] == "KiB" ? 1 << 10 : 1;
    return std::stod(m[1]) * unit;
  };
  std::map<int, double> per_gpu;
  double total = 0, largest = 0;
  for (int g : {1, 2, 4}) {
    const auto r = run("check " + small_case() + " --blocks 2x2 --gpus " + std::to_string(g));
    ASSERT_EQ(r.code, 0) << r.output;
    per_gpu[g] = bytes(r.output, " of arrays on the fullest GPU");
    total = bytes(r.output, " \\(seismograms included\\)");
    largest = bytes(r.output, ", total");
    ASSERT_GT(per_gpu[g], 0) << r.output;
  }
  ASSERT_GT(total, 0);
  EXPECT_NEAR(per_gpu[1], total, 0.03 * total);  // one decimal printed
  EXPECT_NEAR(per_gpu[2], total / 2, 0.05 * total / 2);
  EXPECT_NEAR(per_gpu[4], total / 4, 0.08 * total / 4);
  EXPECT_GE(per_gpu[4], largest * 0.999);
  // Two ranks of two GPUs each: each rank's blocks tiled over its GPUs, a block a GPU.
  const auto r = run("check " + small_case() + " --blocks 2x2 --ranks 2 --gpus 2");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NEAR(bytes(r.output, " of arrays on the fullest GPU"), total / 4, 0.08 * total / 4) << r.output;
}

// Issue 17 (a): `check` prints Q(f) of the relaxation mechanisms fitted to each layer's qp and qs,
// within 5% of the target over the band (Q = 20, 50 and 600, two decades): those of the solver's
// eight mechanisms.
TEST_F(Cli, CheckPrintsTheFittedQualityFactors) {
  const std::string c = small_case("vp = 4000.0", "q_band = [0.1, 10.0]\nqp = 600\nqs = 20\nvp = 4000.0");
  const auto r = run("check " + c);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::regex line(R"(layer 1: (Qp|Qs) ([0-9.]+): Q\(f\) at ([0-9. ]+) Hz = ([0-9. ]+); worst)");
  int lines = 0;
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), line); it != std::sregex_iterator(); ++it) {
    const double target = std::stod((*it)[2]);
    std::istringstream freqs((*it)[3]), values((*it)[4]);
    double f, q, lo = 1e9, hi = 0;
    int n = 0;
    while (freqs >> f && values >> q) {
      EXPECT_NEAR(q / target, 1.0, 0.05) << (*it)[1] << " " << target << " at " << f << " Hz";
      lo = std::min(lo, f), hi = std::max(hi, f), ++n;
    }
    EXPECT_GE(n, 5);
    EXPECT_NEAR(lo, 0.1, 1e-9);  // the whole band
    EXPECT_NEAR(hi, 10.0, 1e-9);
    ++lines;
  }
  EXPECT_EQ(lines, 2) << r.output;
  const auto r50 = run("check " + small_case("vp = 4000.0", "q_band = [0.1, 10.0]\nqp = 50\nqs = 50\nvp = 4000.0"));
  ASSERT_EQ(r50.code, 0) << r50.output;
  EXPECT_TRUE(std::regex_search(r50.output, std::regex(R"(Qs 50: Q\(f\) at .* Hz = (4[89]|5[01])\.?[0-9]* )")))
      << r50.output;
}

TEST_F(Cli, RunWritesTheDocumentedHdf5Layout) {
  const fs::path out = dir_ / "run.h5";
  const auto r = run("run " + small_case() + " --steps 60 --blocks 2x2 --sched eager --output " + out.string());
  ASSERT_EQ(r.code, 0) << r.output;
  const ondes::Seismograms s = ondes::read_seismograms(out.string());
  EXPECT_EQ(s.stations, 3);
  EXPECT_EQ(s.steps, 60);
  EXPECT_DOUBLE_EQ(s.dt, 0.008);
  EXPECT_DOUBLE_EQ(s.t0, 0.004);
  EXPECT_EQ(s.names, (std::vector<std::string>{"EPI", "N1500", "E1200"}));
  // P reaches the epicentre (1 km above the source) at t0 + 0.25 s = 0.85 s, after the 60 steps
  // (0.48 s): the traces must be finite and still quiet at the surface.
  double peak = 0;
  for (float v : s.data) {
    ASSERT_TRUE(std::isfinite(v));
    peak = std::max(peak, double(std::abs(v)));
  }
  EXPECT_LT(peak, 1e-3);
  hid_t f = H5Fopen(out.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t run_group = H5Gopen2(f, "run", H5P_DEFAULT);
  EXPECT_EQ(attr_string(run_group, "blocks"), "2x2");
  EXPECT_EQ(attr_string(run_group, "scheduler"), "eager");
  EXPECT_NE(ondes::test::read_text(run_group, "case").find("[grid]"), std::string::npos);
  for (const char* a : {"wall_seconds", "cell_updates_per_second", "cpu_workers", "starpu_version"})
    EXPECT_GT(H5Aexists(run_group, a), 0) << a;
  hid_t pos = H5Dopen2(f, "/stations/position", H5P_DEFAULT);
  double p[9];
  H5Dread(pos, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, p);
  EXPECT_DOUBLE_EQ(p[3], 3900.0);  // N1500 is 1.5 km north of the epicentre
  H5Dclose(pos);
  H5Gclose(run_group);
  H5Fclose(f);
}

// compare: a source twice as strong gives traces exactly twice as large (the scheme is linear and
// doubling commutes with float rounding), so the relative L2 difference is exactly 1.
// Every path a case names is from the case's folder, its outputs' too: run from another folder, a
// case writes its output.file beside itself; without one, <case stem>.h5 in the current folder.
TEST_F(Cli, OutputsAreNamedFromTheCaseFolder) {
  fs::create_directories(dir_ / "elsewhere");
  fs::create_directories(dir_ / "res");
  const std::string from_elsewhere = "cd " + (dir_ / "elsewhere").string() + " && " + ONDES_BINARY + " run ";
  auto r = ondes::test::shell(from_elsewhere + small_case() + " --steps 5", dir_ / "log1");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "elsewhere" / "case.h5")) << r.output;
  r = ondes::test::shell(from_elsewhere + small_case("[run]", "[output]\nfile = \"res/o.h5\"\n[run]") + " --steps 5",
                         dir_ / "log2");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "res" / "o.h5")) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "elsewhere" / "res"));
}

TEST_F(Cli, CompareTellsIdenticalFromDifferentRuns) {
  const std::string a = (dir_ / "a.h5").string(), b = (dir_ / "b.h5").string(), c = (dir_ / "c.h5").string();
  ASSERT_EQ(run("run " + small_case() + " --steps 150 --output " + a).code, 0);
  ASSERT_EQ(run("run " + small_case() + " --steps 150 --blocks 3x2 --output " + b).code, 0);
  ASSERT_EQ(run("run " + small_case("m0 = 1.0e15", "m0 = 2.0e15") + " --steps 150 --output " + c).code, 0);
  auto r = run("compare " + a + " " + b);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("1350 of 1350 samples bitwise identical"), std::string::npos) << r.output;
  r = run("compare " + a + " " + c);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("worst relative L2 1.000e+00"), std::string::npos) << r.output;
  EXPECT_EQ(run("compare " + a + " " + c + " --tolerance 1.01").code, 0);
  const std::string short_run = (dir_ / "short.h5").string();
  ASSERT_EQ(run("run " + small_case() + " --steps 20 --output " + short_run).code, 0);
  r = run("compare " + a + " " + short_run);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("do not record the same stations and steps"), std::string::npos) << r.output;
}

// The command line as people type it: --version, help, a misspelled command or option named with
// the nearest one (exit 2, one line).
TEST_F(Cli, VersionHelpAndMisspelledCommands) {
  auto r = run("--version");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(^ondes3d \d+\.\d+)"))) << r.output;
  r = run("help");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find(".prm"), std::string::npos) << r.output;
  r = run("chek " + small_case());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(^error: unknown command 'chek' \(did you mean 'check'\?\): the commands are run, check)")))
      << r.output;
  r = run("--bogus");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(^error: unknown option '--bogus': a command comes first)"))) << r.output;
  r = run("run --help");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Ondes3D parameter file (.prm"), std::string::npos) << r.output;
  // StarPU's own messages only on request: -v before or after the command's arguments.
  EXPECT_NE(run("--help").output.find("-v,--verbose"), std::string::npos);
  for (const std::string& args : {"-v check " + small_case(), "check " + small_case() + " --verbose"}) {
    r = run(args);
    EXPECT_EQ(r.code, 0) << args << "\n" << r.output;
  }
}

// `race` measures cases in one process, in turn: a row per case (its median rate, their range, its
// time against the first's), the first's time 1.00, and no file written; a lone case is refused.
TEST_F(Cli, RaceTablesEveryCaseAndWritesNothing) {
  const std::string a = small_case();
  fs::rename(a, dir_ / "a.toml");
  const std::string b = small_case("blocks = [1, 1]", "blocks = [2, 1]");
  auto r = run("race " + (dir_ / "a.toml").string() + " " + b + " --steps 3 --rounds 2");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::regex row(R"(\| (\S+) \| ([0-9.e+]+) \(([0-9.e+]+)-([0-9.e+]+)\) \| ([0-9.]+) \|)");
  std::vector<std::smatch> rows;
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), row); it != std::sregex_iterator(); ++it)
    rows.push_back(*it);
  ASSERT_EQ(rows.size(), 2u) << r.output;
  EXPECT_EQ(rows[0][1].str(), (dir_ / "a.toml").string());
  EXPECT_EQ(rows[0][5].str(), "1.00");
  for (const std::smatch& m : rows) {
    EXPECT_GT(std::stod(m[2]), 0.0) << m[0];
    EXPECT_LE(std::stod(m[3]), std::stod(m[2])) << m[0];
    EXPECT_GE(std::stod(m[4]), std::stod(m[2])) << m[0];
  }
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"a.toml", "case.toml"}));
  r = run("race " + b);
  EXPECT_EQ(r.code, 2) << r.output;
}

// The progress line counts the whole run: the warm-up window (10 iterations) ends on
// "iteration 10/60", not "10/10".
TEST_F(Cli, ProgressCountsTheWholeRun) {
  const auto r = run("run " + small_case() + " --steps 60 --output " + (dir_ / "o.h5").string());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("iteration 10/60 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("iteration 60/60 "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("iteration 10/10 "), std::string::npos) << r.output;
}

// compare reads Ondes3D's station files in both of its layouts, says when runs are silent, and
// exits 2 on a file that is no run's.
TEST_F(Cli, CompareReadsBothStationLayoutsAndNamesSilentRuns) {
  fs::create_directories(dir_ / "steps");
  fs::create_directories(dir_ / "header");
  std::ofstream(dir_ / "steps" / "obs1.dat") << "1 1.0e-3 2.0e-3 -1.0e-3\n2 2.0e-3 1.0e-3 0.0\n";
  std::ofstream(dir_ / "header" / "obs1.dat") << "1 100.000000 200.000000 0.000000\n2 0.010000\n"
                                             << "1.0e-3 2.0e-3 -1.0e-3\n2.0e-3 1.0e-3 0.0 1 2 3 4 5 6\n";
  auto r = run("compare " + (dir_ / "steps").string() + " " + (dir_ / "header").string());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("6 of 6 samples bitwise identical"), std::string::npos) << r.output;
  std::ofstream(dir_ / "steps" / "obs1.dat") << "1 0.0 0.0 0.0\n2 0.0 0.0 0.0\n";
  std::ofstream(dir_ / "header" / "obs1.dat") << "1 100. 200. 0.\n2 0.01\n0.0 0.0 0.0\n0.0 0.0 0.0\n";
  r = run("compare " + (dir_ / "steps").string() + " " + (dir_ / "header").string());
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("both silent: every sample is zero: nothing was recorded to compare"), std::string::npos)
      << r.output;
  r = run("compare " + small_case() + " " + (dir_ / "steps").string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("case.toml: neither an HDF5 output of ondes3d nor a folder of Ondes3D's station files"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("HDF5-DIAG"), std::string::npos) << r.output;
}

// A case that sets no blocks (every converted Ondes3D file) gets a layout for the workers present,
// said in the log: two blocks per CPU worker, cut along y first (a block per GPU); one that
// sets them (or --blocks) keeps its own, and both give the same bits.
TEST_F(Cli, UnsetBlocksAreChosenForTheWorkers) {
  const std::string chosen = (dir_ / "chosen.h5").string(), given = (dir_ / "given.h5").string();
  auto r = run("run " + small_case("blocks = [1, 1]", "") + " --steps 30 --output " + chosen);
  ASSERT_EQ(r.code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex(R"(blocks (\d+) x (\d+) \(chosen for (\d+) CPU worker\(s\))")))
      << r.output;
  const int nbx = std::stoi(m[1]), nby = std::stoi(m[2]), workers = std::stoi(m[3]);
  EXPECT_LE(nbx, nby) << "cut along y first";
  // Two blocks per worker, fewer where the 48-cell grid cannot hold them (2 x 2 always fits).
  if (workers > 1) {
    EXPECT_LE(nbx * nby, 2 * workers);
    EXPECT_GE(nbx * nby, std::min(4, 2 * workers));
  }
  r = run("run " + small_case("blocks = [1, 1]", "") + " --steps 30 --blocks 1x1 --output " + given);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.find("chosen for"), std::string::npos) << r.output;
  const auto a = ondes::test::read_floats(chosen, "/seismograms/velocity"), b = ondes::test::read_floats(given, "/seismograms/velocity");
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b) << "the layout changed the seismograms";
}
