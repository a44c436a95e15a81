// Full-space analytic solutions (Aki & Richards 2002, eq. 4.23 and 4.29), for the tests.
// The moment-tensor response is obtained from the point-force one: for a moment rate M s(t),
// v_n = -M_pq d/dx_q u_n^(p), where u^(p) is the displacement of a unit force along p with time
// function s; so one formula (Stokes) serves both.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "physics/stf.hpp"

namespace ondes::analytic {

struct Medium {
  double vp, vs, rho;
};

using Vec3 = std::array<double, 3>;

// Displacement at offset x (receiver - source) of a unit force along p with time function s.
inline double stokes_displacement(const Medium& m, const std::function<double(double)>& s, const Vec3& x, int n,
                                  int p, double t) {
  const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  const double g[3] = {x[0] / r, x[1] / r, x[2] / r};
  const double dnp = n == p ? 1.0 : 0.0;
  const double a = r / m.vp, b = r / m.vs;
  // Near field: integral of tau s(t - tau) over [r/vp, r/vs], Simpson's rule.
  const int steps = 2000;
  const double step = (b - a) / steps;
  double near = 0;
  for (int i = 0; i <= steps; ++i) {
    const double tau = a + i * step;
    const double w = (i == 0 || i == steps) ? 1 : (i % 2 ? 4 : 2);
    near += w * tau * s(t - tau);
  }
  near *= step / 3;
  const double k = 1.0 / (4 * M_PI * m.rho);
  return k * ((3 * g[n] * g[p] - dnp) / (r * r * r) * near +
              g[n] * g[p] / (m.vp * m.vp * r) * s(t - a) -
              (g[n] * g[p] - dnp) / (m.vs * m.vs * r) * s(t - b));
}

// Velocity of a point force F s(t).
inline Vec3 force_velocity(const Medium& m, const std::function<double(double)>& s, const Vec3& x, const Vec3& F,
                           double t) {
  const double dt = 1e-5;
  Vec3 v{};
  for (int n = 0; n < 3; ++n)
    for (int p = 0; p < 3; ++p)
      v[n] += F[p] * (stokes_displacement(m, s, x, n, p, t + dt) - stokes_displacement(m, s, x, n, p, t - dt)) /
              (2 * dt);
  return v;
}

// (f(x + dx e_q) - f(x - dx e_q)) / (2 dx): the spatial derivative a moment response takes of
// a point-force one.
template <class F>
auto derivative_along(const Vec3& x, int q, double dx, F&& f) {
  Vec3 xp = x, xm = x;
  xp[q] += dx;
  xm[q] -= dx;
  return (f(xp) - f(xm)) / (2 * dx);
}

// Velocity of a moment tensor (Mxx Myy Mzz Mxy Mxz Myz) with moment rate M s(t).
inline Vec3 moment_velocity(const Medium& m, const std::function<double(double)>& s, const Vec3& x,
                            const std::array<double, 6>& M6, double t) {
  const double M[3][3] = {{M6[0], M6[3], M6[4]}, {M6[3], M6[1], M6[5]}, {M6[4], M6[5], M6[2]}};
  const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  const double dx = 1e-4 * r;
  Vec3 v{};
  for (int n = 0; n < 3; ++n)
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) {
        if (M[p][q] == 0) continue;
        v[n] -= M[p][q] * derivative_along(x, q, dx, [&](const Vec3& y) { return stokes_displacement(m, s, y, n, p, t); });
      }
  return v;
}

// Time before which no wave reflected off the PML's inner faces can reach the station: the
// pulse's onset plus the P travel time along the shortest mirrored path. `faces[a][side]` says
// whether that face (low/high along axis a, at `lo[a]`/`hi[a]` metres) is a PML face.
inline double reflection_free_until(const Vec3& src, const Vec3& st, const Vec3& lo, const Vec3& hi,
                                    const bool faces[3][2], double vp, double onset) {
  double shortest = 1e300;
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side) {
      if (!faces[a][side]) continue;
      const double mirrored = 2 * (side ? hi[a] : lo[a]) - st[a];
      double d2 = 0;
      for (int b = 0; b < 3; ++b) {
        const double x = (b == a ? mirrored : st[b]) - src[b];
        d2 += x * x;
      }
      shortest = std::min(shortest, std::sqrt(d2));
    }
  return onset + shortest / vp;
}

// Onset of a Gaussian pulse exp(-(pi f0 (t - t0))^2): where it reaches `level` of its peak.
inline double gaussian_onset(double f0, double t0, double level) {
  return t0 - std::sqrt(-std::log(level)) / (M_PI * f0);
}

// Relative L2 misfit |a - b| / |b| over samples [0, n).
template <class A, class B>
double relative_misfit(const A& a, const B& b, int n) {
  double num = 0, den = 0;
  for (int i = 0; i < n; ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace ondes::analytic
