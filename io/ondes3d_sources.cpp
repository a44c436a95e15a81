#include "io/ondes3d_sources.hpp"

#include <fmt/format.h>

#include "core/case_error.hpp"
#include "io/legacy_tokens.hpp"
#include "physics/medium.hpp"
#include "physics/source.hpp"

namespace ondes {
namespace {

constexpr long kMaxPoints = 100000000;

struct Point {
  std::array<double, 3> position{};  // the project's axes
  std::string where;                 // its line in the position file
  bool read = false;
};

std::vector<Point> read_positions(LegacyTokens& in, const std::array<double, 3>& offset) {
  const long n = in.integer("the number of source points", 1, kMaxPoints);
  for (const char* c : {"the hypocentre's x", "the hypocentre's y", "the hypocentre's z"}) in.number(c);
  std::vector<Point> points(n);
  for (long p = 0; p < n; ++p) {
    const std::string where = in.where();
    const long i = in.integer("a point's number n", 1, n) - 1;
    if (points[i].read) in.fail(fmt::format("point {} is given twice (first at {})", i + 1, points[i].where));
    const double x = in.number("the point's x (m, east)"), y = in.number("the point's y (m, north)");
    const double z = in.number("the point's z (m, up)");
    points[i] = {{offset[0] + y, offset[1] + x, offset[2] - z}, where, true};
  }
  if (!in.done()) in.fail(fmt::format("more values after the {} points the file announces", n));
  return points;
}

}  // namespace

std::vector<Source> read_ondes3d_sources(const Ondes3dSourceFiles& f, const Medium& medium, std::string* text) {
  LegacyTokens map(f.map, "Ondes3D source position file");
  const std::vector<Point> points = read_positions(map, f.offset);
  LegacyTokens hist(f.history, "Ondes3D source history file");
  hist.skip_lines(2);
  const double ds = hist.number("the subfault size ds (m)"), dt = hist.number("the sampling step dt (s)");
  if (!(ds > 0) || !(dt > 0)) hist.fail(fmt::format("ds = {} m and dt = {} s must both be positive", ds, dt));
  const long samples = hist.integer("the number of samples", 2, 100000000);
  std::vector<Source> out;
  std::vector<bool> seen(points.size(), false);
  for (size_t p = 0; p < points.size(); ++p) {
    const long i = hist.integer("a point's number n", 1, static_cast<long>(points.size())) - 1;
    if (seen[i]) hist.fail(fmt::format("point {} has two histories", i + 1));
    seen[i] = true;
    const double strike = hist.number("the strike (degrees)"), dip = hist.number("the dip (degrees)");
    const double rake = hist.number("the rake (degrees)");
    Source s;
    s.kind = SourceKind::Moment;
    s.position = points[i].position;
    s.label = points[i].where;
    s.stf.kind = StfKind::Sampled;
    s.stf.step = dt;
    s.stf.samples.resize(samples);
    for (double& v : s.stf.samples) v = hist.number(fmt::format("a slip-rate sample of point {} (m/s)", i + 1));
    const double slip = normalise_samples(s.stf);  // the slip-rate samples' integral
    if (slip == 0) continue;                        // no slip: no moment
    const Layer l = properties_at(medium, s.position[0], s.position[1], s.position[2]);
    s.moment = double_couple(strike, dip, rake, l.rho * l.vs * l.vs * ds * ds * slip);
    out.push_back(s);
  }
  if (!hist.done()) hist.fail(fmt::format("more values after the histories of the {} points", points.size()));
  if (out.empty()) throw CaseError(fmt::format("{}: every point's slip is zero: no source", f.history));
  if (text) *text = map.text() + hist.text();
  return out;
}

}  // namespace ondes
