#include "physics/source.hpp"

#include <algorithm>
#include <cmath>

namespace ondes {

std::array<double, 6> double_couple(double strike, double dip, double rake, double m0) {
  const double d2r = M_PI / 180.0;
  const double phi = strike * d2r, del = dip * d2r, lam = rake * d2r;
  const double sd = std::sin(del), cd = std::cos(del), s2d = std::sin(2 * del), c2d = std::cos(2 * del);
  const double sl = std::sin(lam), cl = std::cos(lam);
  const double sp = std::sin(phi), cp = std::cos(phi), s2p = std::sin(2 * phi), c2p = std::cos(2 * phi);
  const double mxx = -m0 * (sd * cl * s2p + s2d * sl * sp * sp);
  const double myy = m0 * (sd * cl * s2p - s2d * sl * cp * cp);
  const double mzz = m0 * s2d * sl;
  const double mxy = m0 * (sd * cl * c2p + 0.5 * s2d * sl * s2p);
  const double mxz = -m0 * (cd * cl * cp + c2d * sl * sp);
  const double myz = -m0 * (cd * cl * sp - c2d * sl * cp);
  return {mxx, myy, mzz, mxy, mxz, myz};
}

double normalise_samples(TimeFunction& f) {
  double area = 0;
  if (f.kind == StfKind::Held)  // Ondes3D's sum (original/src/IO.c, ReadSrc: slip += vel * dtbiem)
    for (double x : f.samples) area += x * f.step;
  else
    for (size_t i = 1; i < f.samples.size(); ++i) area += 0.5 * (f.samples[i - 1] + f.samples[i]) * f.step;
  if (!(std::isfinite(area) && area != 0)) return 0;
  for (double& x : f.samples) x /= area;
  return area;
}

double scalar_moment(const std::array<double, 6>& m) {
  return std::sqrt(0.5 * (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) + m[3] * m[3] + m[4] * m[4] + m[5] * m[5]);
}

double seismic_moment(const std::vector<Source>& sources) {
  double m0 = 0;
  for (const Source& s : sources)
    if (s.kind == SourceKind::Moment) m0 += scalar_moment(s.moment);
  return m0;
}

double moment_magnitude(double m0) { return (std::log10(m0) - 9.1) / 1.5; }

namespace {
// A sampled function of unit area: its largest |sample| is about the inverse of its duration.
double sampled_peak(const TimeFunction& f) {
  double peak = 0;
  for (double x : f.samples) peak = std::max(peak, std::abs(x));
  return peak;
}
}  // namespace

double stf_max_frequency(const TimeFunction& f) {
  switch (f.kind) {
    // 1.2 x peak / area: a Gaussian gives 2.1 f0, a triangle 2.4 / duration.
    case StfKind::Sampled:
    case StfKind::Held: return std::min(1.2 * sampled_peak(f), 0.5 / f.step);
    case StfKind::Gaussian: return 2.0 * f.f0;   // spectrum exp(-(f/f0)^2): 2% left at 2 f0
    case StfKind::Ricker: return 2.5 * f.f0;     // standard rule of thumb
    case StfKind::Triangle: return 4.0 / f.duration;
    case StfKind::SmoothRamp: return 0.7 / f.duration;  // spectrum 1 / (1 + (2 pi f T)^2): 5% left
  }
  return 0;
}

double stf_dominant_frequency(const TimeFunction& f) {
  switch (f.kind) {
    case StfKind::Triangle: return 1.0 / f.duration;
    case StfKind::SmoothRamp: return 1.0 / (2.0 * M_PI * f.duration);  // corner frequency
    case StfKind::Sampled:
    case StfKind::Held: return 0.35 * sampled_peak(f);  // a Gaussian's 0.62 f0
    default: return f.f0;
  }
}

}  // namespace ondes
