#include "io/ondes3d/ondes3d_sources.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>

#include "core/case_error.hpp"
#include "io/ondes3d/legacy_tokens.hpp"
#include "physics/source.hpp"

namespace ondes {
namespace {

constexpr long kMaxPoints = 100000000;
constexpr size_t kWarningsNamed = 5;  // skipped points named one by one; the rest in one line

struct Point {
  std::array<double, 3> file{};  // the file's coordinates (Ondes3D's axes)
  std::string where;             // its line in the position file
  bool read = false;
};

std::vector<Point> read_positions(LegacyTokens& in) {
  const long n = in.integer("the number of source points", 1, kMaxPoints);
  for (const char* c : {"the hypocentre's x", "the hypocentre's y", "the hypocentre's z"}) in.number(c);
  std::vector<Point> points(n);
  for (long p = 0; p < n; ++p) {
    const std::string where = in.where();
    const long i = in.integer("a point's number n", 1, n) - 1;
    if (points[i].read) in.fail(fmt::format("point {} is given twice (first at {})", i + 1, points[i].where));
    const double x = in.number("the point's x (m, east)"), y = in.number("the point's y (m, north)");
    const double z = in.number("the point's z (m, up)");
    points[i] = {{x, y, z}, where, true};
  }
  if (!in.done()) in.fail(fmt::format("more values after the {} points the file announces", n));
  return points;
}

std::string interval(double lo, double hi, bool closed) {
  return fmt::format("[{}, {}{}", lo, hi, closed ? "]" : ")");
}

}  // namespace

std::string FileBox::describe() const {
  std::string out;
  for (int a = 0; a < 3; ++a)  // an unbounded axis (a geological model's stations' z) says nothing
    if (std::isfinite(lo[a]) || std::isfinite(hi[a]))
      out += fmt::format("{}{} in {} m", out.empty() ? "" : ", ", "xyz"[a], interval(lo[a], hi[a], closed));
  return out;
}

void warn_skipped(const std::string& title, const std::vector<std::string>& what) {
  if (what.empty()) return;
  for (size_t i = 0; i < what.size() && i < kWarningsNamed; ++i) spdlog::warn("{}: {}", title, what[i]);
  if (what.size() > kWarningsNamed) spdlog::warn("{}: {} more skipped likewise", title, what.size() - kWarningsNamed);
}

std::vector<Source> read_ondes3d_sources(const Ondes3dSourceFiles& f, std::string* text) {
  LegacyTokens map(f.map, "Ondes3D source position file");
  const std::vector<Point> points = read_positions(map);
  LegacyTokens hist(f.history, "Ondes3D source history file");
  hist.skip_lines(2);
  const double ds = hist.number("the subfault size dsbiem (m)"), dt = hist.number("the sampling step dtbiem (s)");
  if (!(ds > 0) || !(dt > 0)) hist.fail(fmt::format("dsbiem = {} m and dtbiem = {} s must both be positive", ds, dt));
  const long samples = hist.integer("the number of samples", 2, 100000000);
  std::vector<Source> out;
  std::vector<std::string> skipped;
  std::vector<bool> seen(points.size(), false);
  for (size_t p = 0; p < points.size(); ++p) {
    const long i = hist.integer("a point's number n", 1, static_cast<long>(points.size())) - 1;
    if (seen[i]) hist.fail(fmt::format("point {} has two histories", i + 1));
    seen[i] = true;
    const double strike = hist.number("the strike (degrees)"), dip = hist.number("the dip (degrees)");
    const double rake = hist.number("the rake (degrees)");
    Source s;
    s.kind = SourceKind::Moment;
    const auto& [x, y, z] = points[i].file;
    s.position = {f.offset[0] + y, f.offset[1] + x, f.offset[2] - z};
    s.label = points[i].where;
    s.stf.kind = StfKind::Held;
    s.stf.step = dt;
    s.stf.samples.resize(samples);
    for (double& v : s.stf.samples)
      v = hist.number(fmt::format("a moment-rate sample of point {} (N m / s / m^2)", i + 1));
    const double area = normalise_samples(s.stf);  // sum(samples) x dtbiem: the moment per unit area
    if (!f.keep.contains(points[i].file)) {
      skipped.push_back(fmt::format("point {} at ({}, {}, {}) m ({}) lies outside the computed region, not included",
                                    i + 1, x, y, z, points[i].where));
      continue;
    }
    if (area == 0) continue;  // no moment
    s.moment = double_couple(strike, dip, rake, ds * ds * area);
    out.push_back(s);
  }
  if (!hist.done())
    spdlog::warn("{}: holds more than the {} histories of the position file's points; the rest are not read (as "
                 "Ondes3D reads them)",
                 hist.where(), points.size());
  if (out.empty() && !skipped.empty())
    throw CaseError(fmt::format("{}: no source inside the computed region ({}): {}{}", f.map, f.keep.describe(),
                                skipped.front(),
                                points.size() > 1 ? fmt::format(" ({} of the {} points lie outside it, the others carry "
                                                                "no moment)", skipped.size(), points.size())
                                                  : ""));
  if (out.empty()) throw CaseError(fmt::format("{}: every point's history sums to zero: no source", f.history));
  warn_skipped(f.map, skipped);
  if (text) *text = map.text() + hist.text();
  return out;
}

}  // namespace ondes
