// Ondes3D's own files against Ondes3D's own answers (issue 43): the public parameter sets and the
// station files the original CPU Ondes3D wrote for variants of its Chuetsu-oki and Ligurian sets
// (../shared/ondes3d-sets beside the clone: its README says what they hold). Each variant runs
// from its folder, as Ondes3D runs, and every trace of every station must stay within the relative
// L2 and peak limits of the original's; the sets as shipped must stop or run as the original does.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "ondes3d_sets.hpp"
#include "shell.hpp"

namespace fs = std::filesystem;

namespace {

fs::path sets() { return ondes::test::ondes3d_sets(); }

// An Ondes3D station file: "step vx vy vz" a line (x east, y north, z up).
std::array<std::vector<double>, 3> read_obs(const fs::path& file) {
  std::array<std::vector<double>, 3> v;
  std::ifstream in(file);
  double step = 0, x = 0, y = 0, z = 0;
  while (in >> step >> x >> y >> z) v[0].push_back(x), v[1].push_back(y), v[2].push_back(z);
  return v;
}

class Ondes3dReference : public ondes::test::WithOndes3dSets {
 protected:
  ondes::test::CommandResult run_in(const fs::path& folder, const std::string& args) {
    return ondes::test::shell("cd " + folder.string() + " && " + ONDES_BINARY + " " + args, dir_ / "log.txt");
  }
  // Compares every trace of the original's station files in `folder` (their first `steps` samples;
  // 0: all of them, as many as ours) with ours in `ours`: relative L2 below `l2`, peak |ours| / peak
  // |original| within 1 +- `peak`. Returns the traces compared, and the worst figures in `worst`.
  // Over the first steps, the traces nothing has reached yet (peaks below 1e-9 of the set's
  // largest: rounding noise, down to 1e-50 m/s) are left out.
  int compare_traces(const fs::path& folder, const fs::path& ours_dir, const std::string& variant, double l2,
                     double peak, size_t steps, std::array<double, 2>& worst) {
    int traces = 0;
    worst = {0, 0};
    double loudest = 0;
    for (const auto& e : fs::directory_iterator(folder / "ondes3d-output"))
      for (auto& trace : read_obs(e.path()))
        for (size_t t = 0; t < trace.size() && (!steps || t < steps); ++t) loudest = std::max(loudest, std::abs(trace[t]));
    for (const auto& e : fs::directory_iterator(folder / "ondes3d-output")) {
      auto ref = read_obs(e.path());
      const auto ours = read_obs(ours_dir / e.path().filename());
      for (int c = 0; c < 3; ++c) {
        if (steps) ref[c].resize(std::min(steps, ref[c].size()));
        EXPECT_EQ(ours[c].size(), ref[c].size()) << e.path().filename() << ": step count";
        if (ours[c].size() != ref[c].size()) return traces;
        double diff = 0, norm = 0, peak_ours = 0, peak_ref = 0;
        for (size_t t = 0; t < ref[c].size(); ++t) {
          diff += (ours[c][t] - ref[c][t]) * (ours[c][t] - ref[c][t]);
          norm += ref[c][t] * ref[c][t];
          peak_ours = std::max(peak_ours, std::abs(ours[c][t]));
          peak_ref = std::max(peak_ref, std::abs(ref[c][t]));
        }
        if (steps && peak_ref < 1e-9 * loudest) continue;
        EXPECT_GT(norm, 0) << e.path() << " holds no motion";
        const double rel = std::sqrt(diff / norm), ratio = peak_ours / peak_ref;
        EXPECT_LT(rel, l2) << variant << " " << e.path().filename() << " " << "xyz"[c] << ": relative L2";
        EXPECT_NEAR(ratio, 1.0, peak) << variant << " " << e.path().filename() << " " << "xyz"[c] << ": peak ratio";
        worst = {std::max(worst[0], rel), std::max(worst[1], std::abs(ratio - 1))};
        ++traces;
      }
    }
    return traces;
  }
  // Runs a reference variant as Ondes3D would, from its folder, and compares every trace of its
  // `stations` with the original's (compare_traces).
  void expect_like_the_original(const std::string& variant, double l2, double peak,
                                const std::string& prm = "parameters/chuetsu-oki/chuetsu-oki.prm", int stations = 6,
                                const std::string& blocks = "2x1") {
    const fs::path folder = sets() / "reference" / variant;
    const fs::path out = dir_ / (variant + ".h5");
    const auto r = run_in(folder, "run " + prm + " --blocks " + blocks + " --output " + out.string());
    ASSERT_EQ(r.code, 0) << r.output;
    std::array<double, 2> worst;
    const int traces = compare_traces(folder, dir_ / (variant + "_obs"), variant, l2, peak, 0, worst);
    const double worst_l2 = worst[0], worst_peak = worst[1];
    EXPECT_EQ(traces, 3 * stations) << stations << " stations x 3 components";
    // The same from the command line, as for any other run of the original: `ondes3d compare`
    // reads the original's output folder as it reads an output file.
    const auto c = ondes::test::shell(fmt::format("{} compare {} {} --tolerance {}", ONDES_BINARY,
                                                    (folder / "ondes3d-output").string(), out.string(), l2),
                                        dir_ / "compare.txt");
    EXPECT_EQ(c.code, 0) << c.output;
    EXPECT_TRUE(std::regex_search(c.output, std::regex(R"(obs6 .*%.*%.*%)"))) << c.output;
    std::cout << fmt::format("{}: {} traces, worst relative L2 {:.2e}, worst peak ratio off by {:.2e}\n", variant,
                             traces, worst_l2, worst_peak);
  }
};

}  // namespace

// One layer, the source 4 km deep: every trace within 1e-4 (L2) and 1e-5 (peak) of the original's,
// with no time shift: Ondes3D's step n is our step n, at the surface too (its free surface,
// codelets/surface.hpp; its C-PML and the fields it computes at the grid's faces, PmlProfile::Ondes3d,
// codelets/faces.hpp). The figures measured: docs/user-guide.md, Ondes3D's own answers.
TEST_F(Ondes3dReference, ChuetsuHomogeneousLikeTheOriginal) { expect_like_the_original("chuetsu-homog", 1e-4, 1e-5); }

// Three layers whose interfaces lie half-way between grid levels (Ondes3D gives a point on an
// interface the upper layer), its C-PML taking each level's own layer's vp: within 1e-4 (L2) and
// 1e-5 (peak).
TEST_F(Ondes3dReference, ChuetsuLayeredLikeTheOriginal) { expect_like_the_original("chuetsu-layered", 1e-4, 1e-5); }

// The same with Ondes3D's ANOTHER attenuation (q0 20 / 40 / 80 by layer): velocity and stress
// damped after each update, the values above the surface in their cells' turn. Within 0.5% (L2 and
// peak).
TEST_F(Ondes3dReference, ChuetsuLayeredQ0LikeTheOriginal) { expect_like_the_original("chuetsu-layered-q0", 5e-3, 5e-3); }

// Ondes3D's DAYandBRADLEY (Qp 40 / 80 / 160, Qs 20 / 40 / 80 by layer, taum 0.0025 s, tauM 5 s,
// w0 1 rad/s) as its code runs it in one process (core/case.hpp DayBradley: each cell's relaxation
// time by its indices' C parities, its surface's fold and images, its misplaced yz drive,
// codelets/day_bradley.hpp): within 1% (L2 and peak).
TEST_F(Ondes3dReference, ChuetsuLayeredDayBradleyLikeTheOriginal) {
  // Cut along y: its misplaced yz drive crosses x (io/case/case_validation.cpp).
  expect_like_the_original("chuetsu-layered-daybradley", 1e-2, 1e-2, "parameters/chuetsu-oki/chuetsu-oki.prm", 6, "1x2");
  // Its converted TOML case (q_scheme = "day_bradley" with q_tau, q_w0, q_origin, q_yz_skew) runs
  // the same bits, in other blocks too.
  const fs::path folder = sets() / "reference" / "chuetsu-layered-daybradley", toml = dir_ / "db.toml";
  ASSERT_EQ(run_in(folder, "convert parameters/chuetsu-oki/chuetsu-oki.prm -o " + toml.string()).code, 0);
  ASSERT_EQ(run_in(dir_, "run db.toml --blocks 1x3 --output converted.h5").code, 0);
  const auto x_cut = run_in(dir_, "run db.toml --blocks 2x1 --steps 2 --output x_cut.h5");
  EXPECT_EQ(x_cut.code, 2) << x_cut.output;
  EXPECT_NE(x_cut.output.find("with Ondes3D's Day and Bradley (medium.q_yz_skew, every layered .prm with <taum>) the "
                              "blocks are cut along y only: [1, N]"),
            std::string::npos)
      << x_cut.output;
  const auto c = ondes::test::shell(fmt::format("{} compare {} {}", ONDES_BINARY, (dir_ / "chuetsu-layered-daybradley.h5").string(),
                                                (dir_ / "converted.h5").string()),
                                    dir_ / "compare.txt");
  EXPECT_NE(c.output.find("7200 of 7200 samples bitwise identical"), std::string::npos) << c.output;
}

// A geological model with topography and sea (150 x 120 x 130 cells, the 16,471-point fault, 38
// stations on the ground, 1000 steps): Ondes3D's nodes at its vx points, its averages of them, its
// vacuum with a density, its C-PML's vp per field point (PmlLayout's cell coefficients). Within
// 1e-4 (L2) and 1e-5 (peak).
TEST_F(Ondes3dReference, LigurianCropLikeTheOriginal) {
  expect_like_the_original("ligurian-crop", 1e-4, 1e-5, "parameters/ligurian-crop/ligurian-crop.prm", 38);
}

// Ondes3D's Day and Bradley on a geological model (every material's <Qp> <Qs>; its nodes' moduli
// unrelaxed, each stress point's Qs the harmonic mean of the two nodes Ondes3D averages there:
// physics/grid_setup.cpp fill_corner_classes; its misplaced yz drive in the column's own cell:
// codelets/day_bradley.hpp). At Q = 1e6 (the most a .prm takes) in every material its memory and
// its unrelaxing all but vanish (gains of 3e-6), so the attenuating path on nodes, C-PML and x cuts
// included, must give the original's elastic station files: within 1e-3 (L2 and peak) over the
// first 400 steps (its figures, and against the original's own Day and Bradley run of this crop with
// Q 40 to 1e4 by material, made outside the project: docs/user-guide.md). Its converted TOML case
// (the model's Q, q_yz_levels) runs the same bits.
TEST_F(Ondes3dReference, LigurianCropDayBradleyAtHighQLikeTheElasticOriginal) {
  const fs::path folder = sets() / "reference" / "ligurian-crop";
  std::ifstream in(folder / "parameters/ligurian-crop/ligurian-crop.prm");
  std::stringstream text;
  text << in.rdbuf();
  auto with_q = [&](const std::string& q) {
    const std::string prm = std::regex_replace(text.str(), std::regex("</layer(\\d)>"),
                                               "<Qp> " + q + " </Qp> <Qs> " + q + " </Qs>\n</layer$1>");
    return std::regex_replace(prm, std::regex("<nlayer>"), "<taum> 0.01 </taum> <tauM> 2. </tauM> <w0> 6.28 </w0>\n<nlayer>");
  };
  fs::create_directories(dir_ / "q");
  std::ofstream(dir_ / "q" / "ligurian-crop.prm") << with_q("1e6");
  const auto r = run_in(folder, "run " + (dir_ / "q" / "ligurian-crop.prm").string() + " --steps 400 --blocks 2x2 --output " +
                                    (dir_ / "q.h5").string());
  ASSERT_EQ(r.code, 0) << r.output;
  std::array<double, 2> worst;
  const int traces = compare_traces(folder, dir_ / "q_obs", "ligurian-crop, Q 1e6", 1e-3, 1e-3, 400, worst);
  EXPECT_GE(traces, 30) << "traces in motion within the first 400 steps (35 when written)";
  std::cout << fmt::format("ligurian-crop, Day and Bradley at Q 1e6: {} traces, worst relative L2 {:.2e}, peak {:.2e}\n",
                           traces, worst[0], worst[1]);

  fs::create_directories(dir_ / "q40");
  std::ofstream(dir_ / "q40" / "ligurian-crop.prm") << with_q("40");
  ASSERT_EQ(run_in(folder, "run " + (dir_ / "q40" / "ligurian-crop.prm").string() + " --steps 20 --output " +
                               (dir_ / "q40.h5").string()).code, 0);
  ASSERT_EQ(run_in(folder, "convert " + (dir_ / "q40" / "ligurian-crop.prm").string() + " -o " + (dir_ / "q40.toml").string())
                .code, 0);
  ASSERT_EQ(run_in(dir_, "run q40.toml --steps 20 --blocks 3x1 --output q40_toml.h5").code, 0);
  const auto c = ondes::test::shell(fmt::format("{} compare {} {}", ONDES_BINARY, (dir_ / "q40.h5").string(),
                                                (dir_ / "q40_toml.h5").string()),
                                    dir_ / "compare.txt");
  EXPECT_NE(c.output.find("2280 of 2280 samples bitwise identical"), std::string::npos) << c.output;
}

// Ondes3D's KRISTEKandMOCZO (Qp 40 / 80 / 160, Qs 20 / 40 / 80 by layer, wmin 0.6, wmax 60 rad/s)
// as its code runs it in one process (codelets/kristek_moczo.hpp: each cell's pulsation by its
// local indices' parities, its memory advanced from the new velocities before the stress, the
// stress taking the memory of the point and its six neighbours; its surface, C-PML and misplaced
// xz tap; its memory above the surface in the C-PML's columns, which grows without bound, driven
// by its FREEABS velocities: codelets/surface.hpp free_abs_term). Every trace of all 400 steps
// within 1% (L2 and peak) of the original's. It runs as one block: a cut is refused with the
// reason. Its converted TOML case (q_scheme = "kristek_moczo") runs the same bits.
TEST_F(Ondes3dReference, ChuetsuLayeredKristekMoczoLikeTheOriginal) {
  const std::string variant = "chuetsu-layered-kristekmoczo";
  const fs::path folder = sets() / "reference" / variant, toml = dir_ / "km.toml";
  const auto r = run_in(folder, "run parameters/chuetsu-oki/chuetsu-oki.prm --output " + (dir_ / "km.h5").string());
  ASSERT_EQ(r.code, 0) << r.output;
  std::array<double, 2> worst;
  EXPECT_EQ(compare_traces(folder, dir_ / "km_obs", variant, 1e-2, 1e-2, 0, worst), 18);
  std::cout << fmt::format("{}: worst relative L2 {:.2e}, peak {:.2e}\n", variant, worst[0], worst[1]);
  const auto cut = run_in(folder, "run parameters/chuetsu-oki/chuetsu-oki.prm --blocks 1x2 --steps 2 --output " +
                                      (dir_ / "cut.h5").string());
  EXPECT_EQ(cut.code, 2) << cut.output;
  EXPECT_NE(cut.output.find("Ondes3D's Kristek and Moczo (every .prm with <wmin> <wmax>) runs as one block"),
            std::string::npos)
      << cut.output;
  ASSERT_EQ(run_in(folder, "convert parameters/chuetsu-oki/chuetsu-oki.prm -o " + toml.string()).code, 0);
  ASSERT_EQ(run_in(dir_, "run km.toml --steps 100 --output converted.h5").code, 0);
  ASSERT_EQ(run_in(folder, "run parameters/chuetsu-oki/chuetsu-oki.prm --steps 100 --output " +
                               (dir_ / "km100.h5").string()).code, 0);
  const auto c = ondes::test::shell(fmt::format("{} compare {} {}", ONDES_BINARY, (dir_ / "km100.h5").string(),
                                                (dir_ / "converted.h5").string()),
                                    dir_ / "compare.txt");
  EXPECT_NE(c.output.find("1800 of 1800 samples bitwise identical"), std::string::npos) << c.output;
}

// The set as shipped: its source lies outside the 10 x 10 x 6-cell domain, where the original
// computes nothing; the run stops with one line naming the point in the file's coordinates.
TEST_F(Ondes3dReference, ShippedChuetsuOkiStopsWithOneLine) {
  const auto r = run_in(sets(), "check parameters/chuetsu-oki/chuetsu-oki.prm");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(chuetsu-oki\.map: no source inside the computed region \(x in \[-400, 500\) m, y in \[-400, 500\) m, z in \[-400, 200\) m\): point 1 at \(-2000, 0, -4000\) m)")))
      << r.output;
  std::istringstream lines(r.output);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) count += !line.empty();
  EXPECT_EQ(count, 1) << r.output;
}
