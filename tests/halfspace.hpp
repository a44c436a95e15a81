// The velocity at the free surface of an elastic half-space above a buried explosion (Lamb's
// problem with a buried source), by wavenumber integration, for the tests.
//
// Derivation (z down, free surface z = 0, source at depth d, time dependence exp(-i w t)):
// the explosion's potential is phi = A exp(i ka R) / R with A = -M0 S(w) / (4 pi rho vp^2)
// (full space: Aki & Richards 2002, eq. 4.23 with the force -M0 grad delta), written by
// Sommerfeld's integral as A int k / na exp(-na |z - d|) J0(k r) dk, na = sqrt(k^2 - ka^2) and
// nb = sqrt(k^2 - kb^2) with Re >= 0. The surface reflects it into a P potential Rp and an SV
// potential Rs (u = grad phi + curl curl (psi z)); szz = srz = 0 at z = 0 give, with
// c = 2 k^2 - kb^2 and Rayleigh's function F = c^2 - 4 k^2 na nb,
//   1 + Rp = -8 k^2 na nb / F,  1 - Rp = 2 c^2 / F,  Rs = -4 c na / F,
// so that the surface displacement is
//   uz(r) = -2 A kb^2 int k c exp(-na d) J0(k r) / F dk,
//   ur(r) =  4 A kb^2 int k^2 nb exp(-na d) J1(k r) / F dk.
// (At r = 0 and high frequency this is twice the incident P: the doubling FreeSurface tests.)
// Without the surface (`reflect` false) the same integrals give the incident wave alone,
//   uz = A int k exp(-na d) J0 dk, ur = -A int k^2 / na exp(-na d) J1 dk,
// which the tests compare with the closed form (analytic.hpp) to check the integration.
//
// Integration: Bouchon's discrete wavenumber sum (Bouchon 1981, BSSA 71:959) with Dk = 2 pi / L,
// L four times the P path over the analysis period (checked against the closed form: the incident
// wave within 1.4e-4 to 2 km), and complex frequency w + i eta (Phinney's
// damping, undone in the time domain) so that the Rayleigh pole lies off the real k axis.
// A moment rate M0 s(t) gives the velocity (the displacement of the moment M0 int s).
#pragma once
#include <cmath>
#include <complex>
#include <functional>
#include <vector>

#include "analytic.hpp"

namespace ondes::analytic {

struct SurfaceTrace {
  std::vector<double> radial, vertical;  // m/s at t = (i + 1/2) dt, z down
};

inline SurfaceTrace explosion_surface_velocity(const Medium& m, double M0, double depth, double r,
                                               const std::function<double(double)>& s, double dt, int samples,
                                               bool reflect = true) {
  using C = std::complex<double>;
  int n = 1;
  while (n < 8 * samples) n *= 2;
  // The wrap-around after one period weighs exp(-9); the ring images (Dk) arrive after 4 periods.
  const double period = n * dt, eta = 9.0 / period;
  // Source spectrum at w + i eta, and the frequencies where it is not negligible.
  std::vector<C> spectrum;
  double peak = 0;
  for (int j = 0; j <= n / 2; ++j) {
    const double w = 2 * M_PI * j / period;
    C sum = 0;
    for (int i = 0; i < n; ++i) {
      const double t = i * dt;
      sum += s(t) * std::exp(-eta * t) * std::exp(C(0, w * t)) * dt;
    }
    peak = std::max(peak, std::abs(sum));
    if (std::abs(sum) < 1e-9 * peak) break;
    spectrum.push_back(sum);
  }
  const double L = 4 * m.vp * period + 4 * r, dk = 2 * M_PI / L, k_max = 50 / depth;
  const int nk = static_cast<int>(k_max / dk) + 1;
  std::vector<double> j0(nk), j1(nk);
  for (int q = 0; q < nk; ++q) {
    j0[q] = std::cyl_bessel_j(0.0, q * dk * r);
    j1[q] = std::cyl_bessel_j(1.0, q * dk * r);
  }
  std::vector<C> uz(spectrum.size()), ur(spectrum.size());
  for (size_t j = 0; j < spectrum.size(); ++j) {
    const C w(2 * M_PI * j / period, eta), ka = w / m.vp, kb = w / m.vs;
    const C A = -M0 * spectrum[j] / (4 * M_PI * m.rho * m.vp * m.vp);
    C sz = 0, sr = 0;
    for (int q = 1; q < nk; ++q) {
      const double k = q * dk;
      const C na = std::sqrt(k * k - ka * ka), nb = std::sqrt(k * k - kb * kb), e = std::exp(-na * depth);
      if (reflect) {
        const C c = 2 * k * k - kb * kb, F = c * c - 4 * k * k * na * nb;
        sz += k * c * e * j0[q] / F;
        sr += k * k * nb * e * j1[q] / F;
      } else {
        sz += k * e * j0[q];
        sr += k * k / na * e * j1[q];
      }
    }
    uz[j] = (reflect ? -2.0 * A * kb * kb : A) * sz * dk;
    ur[j] = (reflect ? 4.0 * A * kb * kb : -A) * sr * dk;
  }
  SurfaceTrace out{std::vector<double>(samples), std::vector<double>(samples)};
  for (int i = 0; i < samples; ++i) {
    const double t = (i + 0.5) * dt;
    C z = 0, x = 0;
    for (size_t j = 0; j < uz.size(); ++j) {
      const double weight = j == 0 ? 1 : 2;
      const C phase = std::exp(C(0, -2 * M_PI * j / period * t));
      z += weight * uz[j] * phase;
      x += weight * ur[j] * phase;
    }
    out.vertical[i] = std::exp(eta * t) * z.real() / period;
    out.radial[i] = std::exp(eta * t) * x.real() / period;
  }
  return out;
}

}  // namespace ondes::analytic
