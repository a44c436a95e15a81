// Invalid cases are refused before anything is allocated, with a message naming file, line and key.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "io/case/case_reader.hpp"

using namespace ondes;

namespace {

const std::string kValid = R"(
[grid]
nx = 40
ny = 40
nz = 30
h = 100.0
[time]
dt = 0.008
steps = 100
[boundaries]
free_surface = true
pml_width = 8
[medium]
vp = 4000.0
vs = 2300.0
rho = 2500.0
[[sources]]
type = "moment"
position = [2000.0, 2000.0, 1000.0]
strike = 10.0
dip = 45.0
rake = 90.0
m0 = 1e15
stf = { type = "ricker", f0 = 2.0 }
[[stations]]
name = "A"
position = [2500.0, 2000.0, 0.0]
[run]
blocks = [2, 2]
)";

// Replaces the first occurrence of `from` in the valid case.
std::string edit(const std::string& from, const std::string& to) {
  std::string s = kValid;
  const auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return s.replace(pos, from.size(), to);
}

void load(const std::string& text) {
  const Case c = parse_case(text, "case.toml");
  validate_case(c);
}

struct Bad {
  const char* what;
  std::string text;
  const char* message;  // a regular expression the error must match
};

}  // namespace

TEST(CaseValidation, ValidCaseLoads) {
  Case c = parse_case(kValid, "case.toml");
  EXPECT_NO_THROW(validate_case(c));
  EXPECT_EQ(c.grid.nx, 40);
  EXPECT_EQ(c.run.nbx, 2);
  EXPECT_NEAR(c.sources[0].stf.t0, 1.2 / 2.0, 1e-12);  // default delay
}

// A sampled time function: the samples are scaled to unit area (trapezoids), so m0 stays the moment.
TEST(CaseValidation, SampledTimeFunctionIsScaledToUnitArea) {
  Case c = parse_case(edit("{ type = \"ricker\", f0 = 2.0 }",
                           "{ type = \"sampled\", step = 0.05, t0 = 0.1, samples = [0.0, 2.0, 4.0, 2.0, 0.0] }"),
                      "case.toml");
  EXPECT_NO_THROW(validate_case(c));
  const TimeFunction& f = c.sources[0].stf;
  ASSERT_EQ(f.kind, StfKind::Sampled);
  EXPECT_DOUBLE_EQ(f.t0, 0.1);
  ASSERT_EQ(f.samples.size(), 5u);
  EXPECT_DOUBLE_EQ(f.samples[2], 4.0 / (0.05 * 8.0));  // area 0.05 x (1 + 3 + 3 + 1) = 0.4
}

// A source or station inside the PML is run (docs/user-guide.md promises a warning, not a refusal): the
// warning names it and the PML's width.
TEST(CaseValidation, SourcesAndStationsInThePmlAreWarnings) {
  auto pml_warning = [](const std::string& text) {
    const std::vector<std::string> w = validate_case(parse_case(text, "case.toml"));
    std::vector<std::string> pml;
    for (const std::string& s : w)
      if (s.find("PML") != std::string::npos) pml.push_back(s);
    EXPECT_EQ(pml.size(), 1u);
    return pml.empty() ? std::string() : pml.front();
  };
  const std::string source = pml_warning(edit("[2000.0, 2000.0, 1000.0]", "[300.0, 2000.0, 1000.0]"));
  EXPECT_TRUE(std::regex_search(source, std::regex(R"(1 source point\(s\) lie inside the 8-cell PML.*sources\[0\]\.position)")))
      << source;
  const std::string station = pml_warning(edit("[2500.0, 2000.0, 0.0]", "[2500.0, 3800.0, 0.0]"));
  EXPECT_TRUE(std::regex_search(station, std::regex(R"(1 station\(s\) lie inside the 8-cell PML.*stations\[0\]\.position \(A\))")))
      << station;
  for (const std::string& warning : validate_case(parse_case(kValid, "case.toml")))
    EXPECT_EQ(warning.find("PML"), std::string::npos) << warning;  // the valid case has none
}

// Non-ASCII text is fine where TOML allows it (strings, comments, after an ASCII line-ending
// backslash), even though the guard against toml++'s bug refuses it elsewhere.
TEST(CaseValidation, NonAsciiInStringsAndCommentsIsAccepted) {
  const std::string text = edit("name = \"A\"", "name = \"\"\"Montréal \\\n   Ville Ébène\"\"\"  # café, 東京");
  Case c = parse_case(text, "case.toml");
  EXPECT_NO_THROW(validate_case(c));
  EXPECT_EQ(c.stations[0].name, "Montréal Ville Ébène");
}

TEST(CaseValidation, BadCasesAreRejectedWithTheKey) {
  const std::vector<Bad> bad = {
      {"malformed TOML", edit("nx = 40", "nx = = 40"), R"(case\.toml:3: malformed TOML)"},
      {"dt above CFL", edit("dt = 0.008", "dt = 0.02"), R"(time\.dt = 0\.02 s exceeds the CFL limit)"},
      {"source outside", edit("[2000.0, 2000.0, 1000.0]", "[2000.0, 5000.0, 1000.0]"),
       R"(sources\[0\]\.position: y = 5000 m is outside the grid \[0, 3900\] m)"},
      {"station outside", edit("[2500.0, 2000.0, 0.0]", "[2500.0, 2000.0, -1.0]"),
       R"(stations\[0\]\.position \(A\): z = -1 m is outside the grid)"},
      {"negative vp", edit("vp = 4000.0", "vp = -4000.0"), R"(case\.toml:14: medium\.vp: -4000 is outside)"},
      {"zero rho", edit("rho = 2500.0", "rho = 0"), R"(case\.toml:16: medium\.rho: 0 is outside the allowed range \(0, )"},
      {"vs too high", edit("vs = 2300.0", "vs = 2900.0"), R"(medium\.vs: vs = 2900 must be below vp/sqrt\(2\))"},
      {"too many blocks", edit("blocks = [2, 2]", "blocks = [20, 2]"),
       R"(run\.blocks = \[20, 2\] does not divide the 40 x 40 grid sensibly)"},
      {"one sample", edit("{ type = \"ricker\", f0 = 2.0 }", "{ type = \"sampled\", step = 0.01, samples = [1.0] }"),
       R"(sources\[0\]\.stf\.samples: must be an array of at least 2 numbers)"},
      {"samples of zero area", edit("{ type = \"ricker\", f0 = 2.0 }", "{ type = \"sampled\", step = 0.01, samples = [1.0, -1.0] }"),
       R"(stf\.samples: have zero area)"},
      {"no sample step", edit("{ type = \"ricker\", f0 = 2.0 }", "{ type = \"sampled\", samples = [0.0, 1.0, 0.0] }"),
       R"(stf\.step: missing)"},
      {"vacuum with a shear velocity", edit("vp = 4000.0", "vp = 0.0"), R"(medium\.vp: vp = 0 is vacuum, which needs vs = 0 too)"},
      {"attenuation in a fluid", edit("vs = 2300.0", "vs = 0.0\nqp = 50.0\nqs = 20.0"),
       R"(medium\.qs: attenuation \(qp, qs\) in a fluid or vacuum layer)"},
      {"station in the air", edit("[medium]\nvp = 4000.0\nvs = 2300.0\nrho = 2500.0\n", "[medium]\n[[medium.layers]]\ntop = 0.0\nvp = 0.0\nvs = 0.0\nrho = 1.0\n[[medium.layers]]\ntop = 475.0\nvp = 4000.0\nvs = 2300.0\nrho = 2500.0\n"),
       R"(stations\[0\]\.position \(A\) at \(2500, 2000, 0\) m lies in vacuum)"},
      {"edge strip wider than a block allows", edit("blocks = [2, 2]", "blocks = [2, 2]\nedge_strip = 17"),
       R"(run\.edge_strip = 17 with run\.blocks = \[2, 2\] on the 40 x 40 grid leaves a block 3 cells wide)"},
      {"edge strip narrower than a block may be", edit("blocks = [2, 2]", "blocks = [2, 2]\nedge_strip = 2"),
       R"(run\.edge_strip = 2 .* leaves a block 2 cells wide; every block and every strip needs at least 4 cells)"},
      {"negative edge strip", edit("blocks = [2, 2]", "blocks = [2, 2]\nedge_strip = -1"), R"(run\.edge_strip)"},
      {"zero blocks", edit("blocks = [2, 2]", "blocks = [0, 2]"), R"(run\.blocks: must be two positive integers)"},
      {"fractional blocks", edit("blocks = [2, 2]", "blocks = [1.5, 2]"), R"(run\.blocks: must be two positive integers \[nbx, nby\])"},
      {"unknown key", edit("h = 100.0", "h = 100.0\nhh = 3"), R"(case\.toml:7: grid\.hh: unknown key)"},
      {"unknown section", kValid + "\n[outputs]\nfile = \"x.h5\"\n", R"(outputs: unknown key)"},
      {"wrong type", edit("nx = 40", "nx = \"forty\""), R"(grid\.nx: must be an integer)"},
      {"float for integer", edit("steps = 100", "steps = 100.0"), R"(time\.steps: must be an integer)"},
      {"missing section", edit("[time]\ndt = 0.008\nsteps = 100\n", ""), R"(time: missing \(required\))"},
      {"missing key", edit("h = 100.0\n", ""), R"(grid\.h: missing)"},
      {"grid too small", edit("nx = 40", "nx = 4"), R"(grid\.nx: 4 is outside the allowed range \[8)"},
      {"PML too wide", edit("pml_width = 8", "pml_width = 19"), R"(boundaries\.pml_width = 19 leaves)"},
      {"non-ASCII outside strings", edit("[run]", "[run]\nblöcks = [1, 1]"),
       R"(malformed TOML: non-ASCII character outside a string)"},
      {"unknown mapping", kValid + "mapping = \"random\"\n", R"(run\.mapping: 'random': allowed values are tiles, cyclic)"},
      {"negative watchdog", kValid + "watchdog_every = -5\n", R"(run\.watchdog_every: -5 is outside the allowed range \[0, )"},
      {"window of 0 iterations", kValid + "window = 0\n", R"(run\.window.*\[1, 1000\])"},
      {"unknown small_tasks", kValid + "small_tasks = \"gpu\"\n", R"(run\.small_tasks.*auto, any)"},
      {"qp without q_band", edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 20"), R"(medium\.q_band: missing)"},
      {"qp without qs", edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nq_band = [0.1, 10.0]"), R"(medium\.qs: missing)"},
      {"negative qs", edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = -2\nq_band = [0.1, 10.0]"),
       R"(medium\.qs: -2 is outside the allowed range)"},
      {"reversed q_band", edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 20\nq_band = [10.0, 0.1]"),
       R"(medium\.q_band: \[10, 0\.1\] Hz: need 0 < f_min < f_max)"},
      {"q_band over five decades", edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 20\nq_band = [0.001, 100.0]"),
       R"(medium\.q_band: \[0\.001, 100\] Hz spans 5\.00 decades; at most 4 are supported)"},
      {"block over 2^32 values", edit("nx = 40\nny = 40\nnz = 30", "nx = 3000\nny = 3000\nnz = 400"),
       R"(run\.blocks = \[2, 2\]: a block's largest array would hold \d+ values, more than StarPU's 2\^32 per handle; use at least 2 times)"},
      {"q_band without Q", edit("rho = 2500.0", "rho = 2500.0\nq_band = [0.1, 10.0]"),
       R"(medium\.q_band: given without any qp/qs)"},
      {"unknown q_scheme", edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 20\nq_band = [0.1, 10.0]\nq_scheme = \"sparse\""),
       R"(medium\.q_scheme: "sparse": the allowed values are "every_cell" \(default\), "coarse_grained", "day_bradley" and "kristek_moczo")"},
      {"kristek_moczo without q_w",
       edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 20\nq_scheme = \"kristek_moczo\"\nlayer_sampling = \"ondes3d\""),
       R"(medium\.q_w: missing: \[wmin, wmax\] in rad/s)"},
      {"kristek_moczo with averaged layers",
       edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 20\nq_scheme = \"kristek_moczo\"\nq_w = [0.6, 60.0]"),
       R"(medium\.q_scheme: "kristek_moczo" runs on layers sampled as Ondes3D samples them: layer_sampling = "ondes3d")"},
      {"kristek_moczo band reversed",
       edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 20\nq_scheme = \"kristek_moczo\"\nlayer_sampling = \"ondes3d\"\nq_w = [60.0, 0.6]"),
       R"(medium\.q_w: \[60, 0\.6\] rad/s: need 0 < wmin < wmax)"},
      {"day_bradley without q_tau", edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 20\nq_scheme = \"day_bradley\"\nq_w0 = 1.0"),
       R"(medium\.q_tau: missing: \[taum, tauM\] in s)"},
      {"day_bradley with q_band",
       edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 20\nq_scheme = \"day_bradley\"\nq_band = [0.1, 10.0]"),
       R"(medium\.q_band: not with q_scheme = "day_bradley")"},
      {"day_bradley times reversed",
       edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 20\nq_scheme = \"day_bradley\"\nq_tau = [5.0, 0.01]\nq_w0 = 1.0"),
       R"(medium\.q_tau: \[5, 0\.01\] s: need 0 < taum < tauM)"},
      {"coarse-grained at low Q",
       edit("rho = 2500.0", "rho = 2500.0\nqp = 50\nqs = 10\nq_band = [0.1, 10.0]\nq_scheme = \"coarse_grained\""),
       R"(medium\.q_scheme: coarse-grained needs every qp and qs >= 20 .*; Q = 10 here: use "every_cell")"},
      {"q0 without q0_frequency", edit("rho = 2500.0", "rho = 2500.0\nq0 = 20"),
       R"(medium\.q0_frequency: missing: the frequency f0 \(Hz\) of the q0 damping)"},
      {"q0 with qp", edit("rho = 2500.0", "rho = 2500.0\nq0 = 20\nqp = 50\nqs = 20\nq_band = [0.1, 10.0]"),
       R"(medium\.q0: Ondes3D's q0 damping and qp/qs attenuation exclude each other)"},
      {"q0_frequency without q0", edit("rho = 2500.0", "rho = 2500.0\nq0_frequency = 2.0"),
       R"(medium\.q0_frequency: given without any q0)"},
      {"q_scheme without Q", edit("rho = 2500.0", "rho = 2500.0\nq_scheme = \"coarse_grained\""),
       R"(medium\.q_scheme: is only meaningful with qp/qs and q_band)"},
      {"unknown cpu_compute", kValid + "cpu_compute = \"half\"\n", R"(run\.cpu_compute: 'half': allowed values are auto, any)"},
      {"unknown balance", kValid + "balance = \"half\"\n", R"(run\.balance: 'half': allowed values are pml, even)"},
      {"balanced blocks too narrow", edit("blocks = [2, 2]", "blocks = [1, 10]"),
       R"(run\.blocks = \[1, 10\] with run\.balance = "pml" .* leaves a block [0-3] cells wide .*run\.balance = "even")"},
      {"Ondes3D's C-PML over nine layer velocities",
       [] {
         std::string layers = "[medium]\n";
         for (int i = 0; i < 9; ++i)
           layers += "[[medium.layers]]\ntop = " + std::to_string(100 * i) + ".0\nvp = " + std::to_string(3000 + 100 * i) +
                     ".0\nvs = 1700.0\nrho = 2500.0\n";
         std::string t = edit("[medium]\nvp = 4000.0\nvs = 2300.0\nrho = 2500.0\n", layers);
         return t.replace(t.find("pml_width = 8"), 13, "pml_width = 8\npml_profile = \"ondes3d\"");
       }(),
       R"(boundaries\.pml_profile = "ondes3d" takes each layer's vp, at most 8 distinct ones; the medium has 9)"},
      {"unknown stf", edit("type = \"ricker\"", "type = \"sinc\""), R"(sources\[0\]\.stf\.type: 'sinc')"},
      {"stf without f0", edit("{ type = \"ricker\", f0 = 2.0 }", "{ type = \"ricker\" }"),
       R"(sources\[0\]\.stf\.f0: missing)"},
      {"unknown source type", edit("type = \"moment\"", "type = \"explosion\""), R"(sources\[0\]\.type: 'explosion' is not one of force, moment)"},
      {"moment and angles", edit("m0 = 1e15", "m0 = 1e15\nmoment = [1, 1, 1, 0, 0, 0]"), R"(sources\[0\]\.strike: give either moment or strike/dip/rake/m0, not both)"},
      {"dip out of range", edit("dip = 45.0", "dip = 120.0"), R"(sources\[0\]\.dip: 120)"},
      {"position not 3", edit("[2500.0, 2000.0, 0.0]", "[2500.0, 2000.0]"), R"(stations\[0\]\.position: must be an array of 3 numbers)"},
      {"duplicate station", kValid + "[[stations]]\nname = \"A\"\nposition = [1.0, 1.0, 0.0]\n",
       R"(stations\[1\]\.name: 'A' is empty or used twice)"},
      {"no sources", edit("[[sources]]", "[[sourcez]]"), R"(case\.toml:1: sources: at least one \[\[sources\]\] or \[\[faults\]\] is required)"},
      {"layers not increasing",
       edit("vp = 4000.0\nvs = 2300.0\nrho = 2500.0",
            "[[medium.layers]]\ntop = 0.0\nvp = 4000.0\nvs = 2300.0\nrho = 2500.0\n"
            "[[medium.layers]]\ntop = 0.0\nvp = 5000.0\nvs = 2900.0\nrho = 2600.0"),
       R"(medium\.layers\[1\]\.top: layers must be listed with increasing top depth)"},
      {"layer with bad vs",
       edit("vp = 4000.0\nvs = 2300.0\nrho = 2500.0",
            "[[medium.layers]]\ntop = 0.0\nvp = 4000.0\nvs = 2300.0\nrho = 2500.0\n"
            "[[medium.layers]]\ntop = 500.0\nvp = 5000.0\nvs = 3900.0\nrho = 2600.0"),
       R"(medium\.layers\[1\]\.vs: vs = 3900 must be below)"},
      {"bool for number", edit("h = 100.0", "h = true"), R"(grid\.h: must be a number)"},
      {"bad network code", edit("[run]", "[output]\nnetwork = \"xyz\"\n[run]"),
       R"(output\.network: 'xyz' is not an FDSN network code)"},
      {"bad origin time", edit("[run]", "[output]\norigin_time = \"2019-02-30T00:00:00\"\n[run]"),
       R"(output\.origin_time: '2019-02-30T00:00:00' is not a UTC time)"},
      {"origin off the Earth", edit("[run]", "[output]\norigin = [95.0, 0.0]\n[run]"), R"(output\.origin: must be \[latitude, longitude\] in degrees, \|latitude\| <= 89)"},
      {"snapshots every 0", edit("[run]", "[snapshots]\nevery = 0\n[run]"), R"(snapshots\.every: 0 is outside)"},
      {"plane outside the grid", edit("[run]", "[snapshots]\nevery = 10\nplanes = [\"y=9000\"]\n[run]"),
       R"(snapshots\.planes: 'y=9000': outside the grid \[0, 3900\] m)"},
      {"plane not AXIS=METRES", edit("[run]", "[snapshots]\nevery = 10\nplanes = [\"top\"]\n[run]"),
       R"(snapshots\.planes: 'top': expected AXIS=METRES)"},
      {"smooth ramp without rise time", edit("{ type = \"ricker\", f0 = 2.0 }", "{ type = \"smooth_ramp\" }"),
       R"(sources\[0\]\.stf\.rise_time: missing)"},
      {"fault file missing", edit("[run]", "[[faults]]\nfile = \"nope.txt\"\n[run]"), R"(case\.toml:\d+: faults\[0\]\.file: nope\.txt: cannot open the fault file)"},
      {"model and layers", edit("rho = 2500.0", "rho = 2500.0\nmodel = \"m.h5\""), R"(case\.toml:14: medium\.vp: give either model or vp/vs/rho / \[\[medium\.layers\]\], not both)"},
  };
  for (const Bad& b : bad) {
    try {
      load(b.text);
      ADD_FAILURE() << b.what << ": accepted";
    } catch (const CaseError& e) {
      EXPECT_TRUE(std::regex_search(e.what(), std::regex(b.message))) << b.what << ": got \"" << e.what() << "\"";
    }
  }
}

TEST(CaseValidation, MissingFileIsNamed) {
  try {
    read_case("/nonexistent/case.toml");
    FAIL() << "accepted";
  } catch (const CaseError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/case.toml: cannot open the case file");
  }
}

TEST(CaseValidation, TooFewPointsPerWavelengthWarns) {
  const Case c = parse_case(edit("f0 = 2.0", "f0 = 4.0"), "case.toml");
  const auto warnings = validate_case(c);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("points per shortest S wavelength"), std::string::npos);
}
