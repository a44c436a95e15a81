// The exact response of a point source in a homogeneous viscoelastic full space (issue 17, test
// (b)): by the correspondence principle, the frequency-domain elastic solution of analytic.hpp
// (Aki & Richards eq. 4.23) with the rheology's complex, frequency-dependent moduli, transformed
// back to time. Time dependence e^{i w t}: a spectrum is S(w) = sum s(t) e^{-i w t} dt, and a
// modulus M(w) with Im M > 0 attenuates. Elastic media are the case of real moduli.
#pragma once
#include <array>
#include <cmath>
#include <complex>
#include <functional>
#include <vector>

#include "analytic.hpp"

namespace ondes::viscoelastic {

using cd = std::complex<double>;
using Vec3 = std::array<double, 3>;

// The moduli at angular frequency w: P-wave modulus lambda + 2 mu, and mu; the density, or a
// complex one (a velocity damped as dv/dt = ... - gamma v is a density rho (1 - i gamma / w)).
struct Rheology {
  std::function<cd(double)> p_modulus, mu;
  double rho = 0;
  std::function<cd(double)> density = nullptr;  // if set, rho is not used
};

// Spectrum of the displacement u_n at offset x of a unit force along p with a unit spectrum.
inline cd stokes_spectrum(const Rheology& m, const Vec3& x, int n, int p, double w) {
  const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  const double g[3] = {x[0] / r, x[1] / r, x[2] / r};
  const double dnp = n == p ? 1.0 : 0.0;
  const cd mp = m.p_modulus(w), mu = m.mu(w), rho = m.density ? m.density(w) : cd(m.rho);
  const cd a = r / std::sqrt(mp / rho), b = r / std::sqrt(mu / rho);  // travel times, complex
  const cd iw(0.0, w);
  // Near field: the transform of the integral of tau s(t - tau) over [a, b], i.e. S(w) times
  // integral of tau e^{-i w tau}, whose primitive is e^{-i w tau} (1 + i w tau) / w^2 (an analytic
  // function of the limits, so it holds for complex ones); at w = 0, (b^2 - a^2) / 2.
  const cd near = w == 0.0 ? (b * b - a * a) / 2.0
                           : (std::exp(-iw * b) * (1.0 + iw * b) - std::exp(-iw * a) * (1.0 + iw * a)) / (w * w);
  const cd k = 1.0 / (4 * M_PI * rho);
  return k * ((3 * g[n] * g[p] - dnp) / (r * r * r) * near + g[n] * g[p] / (mp / rho * r) * std::exp(-iw * a) -
              (g[n] * g[p] - dnp) / (mu / rho * r) * std::exp(-iw * b));
}

// Discrete Fourier transforms of n samples (n a power of two), in place: sign -1 forward, +1 back
// (unscaled).
inline void fft(std::vector<cd>& a, int sign) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const cd wl = std::polar(1.0, sign * 2 * M_PI / len);
    for (size_t i = 0; i < n; i += len) {
      cd w = 1;
      for (size_t j = 0; j < len / 2; ++j, w *= wl) {
        const cd u = a[i + j], v = a[i + j + len / 2] * w;
        a[i + j] = u + v;
        a[i + j + len / 2] = u - v;
      }
    }
  }
}

// Velocity time series (n samples at dt, n a power of two, long enough for the response to have
// died out) at offset x of a moment tensor (Mxx Myy Mzz Mxy Mxz Myz) with moment rate M s(t):
// v_n = -M_pq d/dx_q u_n^(p), as in analytic.hpp, the x derivative by central differences of
// the spectra.
inline std::vector<Vec3> moment_velocity(const Rheology& m, const std::function<double(double)>& s, const Vec3& x,
                                         const std::array<double, 6>& M6, double dt, int n) {
  const double M[3][3] = {{M6[0], M6[3], M6[4]}, {M6[3], M6[1], M6[5]}, {M6[4], M6[5], M6[2]}};
  std::vector<cd> spec(n);
  for (int i = 0; i < n; ++i) spec[i] = s(i * dt) * dt;
  fft(spec, -1);
  const double r = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), dx = 1e-4 * r;
  std::array<std::vector<cd>, 3> v;
  for (auto& c : v) c.assign(n, 0.0);
  for (int i = 0; i <= n / 2; ++i) {
    const double w = 2 * M_PI * i / (n * dt);
    for (int c = 0; c < 3; ++c) {
      cd sum = 0;
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q) {
          if (M[p][q] == 0) continue;
          sum -= M[p][q] * analytic::derivative_along(x, q, dx, [&](const Vec3& y) { return stokes_spectrum(m, y, c, p, w); });
        }
      v[c][i] = sum * spec[i];
      if (i > 0 && i < n / 2) v[c][n - i] = std::conj(v[c][i]);  // a real signal
    }
  }
  std::vector<Vec3> out(n);
  for (int c = 0; c < 3; ++c) {
    fft(v[c], +1);
    for (int i = 0; i < n; ++i) out[i][c] = v[c][i].real() / (n * dt);
  }
  return out;
}

}  // namespace ondes::viscoelastic
