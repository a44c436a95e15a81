#include "physics/attenuation.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace ondes {

namespace {

constexpr double kTwoPi = 6.283185307179586;
constexpr double kBeyond = 1.5;  // relaxation frequencies over [f_min / 1.5, 1.5 f_max]
constexpr double kCoarseBeyond = 5;  // coarse-grained: up to 5 f_max

// Solves the normal equations (A^T A) y = A^T b by Gaussian elimination with partial pivoting
// (n is a handful of mechanisms).
std::vector<double> least_squares(const std::vector<std::vector<double>>& a, const std::vector<double>& b) {
  const size_t n = a[0].size();
  std::vector<std::vector<double>> m(n, std::vector<double>(n + 1, 0.0));
  for (size_t k = 0; k < a.size(); ++k)
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) m[i][j] += a[k][i] * a[k][j];
      m[i][n] += a[k][i] * b[k];
    }
  for (size_t c = 0; c < n; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::abs(m[r][c]) > std::abs(m[p][c])) p = r;
    std::swap(m[c], m[p]);
    if (m[c][c] == 0.0) throw std::runtime_error("attenuation fit: singular system");
    for (size_t r = c + 1; r < n; ++r) {
      const double f = m[r][c] / m[c][c];
      for (size_t j = c; j <= n; ++j) m[r][j] -= f * m[c][j];
    }
  }
  std::vector<double> y(n);
  for (size_t c = n; c-- > 0;) {
    double s = m[c][n];
    for (size_t j = c + 1; j < n; ++j) s -= m[c][j] * y[j];
    y[c] = s / m[c][c];
  }
  return y;
}

// Least squares with every coefficient >= 0 (Lawson & Hanson's active set): a negative Y would be
// a mechanism that gains energy, and with more mechanisms than a narrow band needs the plain fit
// alternates in sign. Coefficients held at zero leave their mechanism out of the body.
std::vector<double> non_negative_fit(const std::vector<std::vector<double>>& a, const std::vector<double>& b) {
  const size_t n = a[0].size(), m = a.size();
  std::vector<bool> free(n, false);
  std::vector<double> x(n, 0.0);
  double tol = 0;
  auto solve_free = [&] {  // least squares over the free coefficients, the others zero
    std::vector<size_t> cols;
    for (size_t j = 0; j < n; ++j)
      if (free[j]) cols.push_back(j);
    std::vector<std::vector<double>> sub(m, std::vector<double>(cols.size()));
    for (size_t k = 0; k < m; ++k)
      for (size_t c = 0; c < cols.size(); ++c) sub[k][c] = a[k][cols[c]];
    std::vector<double> z(n, 0.0);
    const std::vector<double> y = least_squares(sub, b);
    for (size_t c = 0; c < cols.size(); ++c) z[cols[c]] = y[c];
    return z;
  };
  for (size_t outer = 0; outer < 3 * n; ++outer) {
    // The gradient of the misfit: free the coefficient that would lower it most.
    std::vector<double> w(n, 0.0);
    for (size_t k = 0; k < m; ++k) {
      double res = b[k];
      for (size_t j = 0; j < n; ++j) res -= a[k][j] * x[j];
      for (size_t j = 0; j < n; ++j) w[j] += a[k][j] * res;
    }
    if (outer == 0)
      for (double g : w) tol = std::max(tol, 1e-10 * std::abs(g));
    size_t best = n;
    for (size_t j = 0; j < n; ++j)
      if (!free[j] && w[j] > tol && (best == n || w[j] > w[best])) best = j;
    if (best == n) break;
    free[best] = true;
    for (;;) {  // step towards the free least-squares solution, stopping where one reaches zero
      const std::vector<double> z = solve_free();
      double alpha = 1.0;
      size_t hit = n;
      for (size_t j = 0; j < n; ++j)
        if (free[j] && z[j] <= 0 && x[j] - z[j] > 0 && x[j] / (x[j] - z[j]) < alpha) alpha = x[j] / (x[j] - z[j]), hit = j;
      for (size_t j = 0; j < n; ++j) x[j] += alpha * (z[j] - x[j]);
      if (hit == n) break;
      for (size_t j = 0; j < n; ++j)
        if (free[j] && x[j] <= 1e-15) free[j] = false, x[j] = 0.0;
    }
  }
  return x;
}

// n values log-uniform over [lo, hi] (one value: the geometric mean).
std::vector<double> log_spaced(double lo, double hi, int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i)
    v[i] = n == 1 ? std::sqrt(lo * hi) : lo * std::pow(hi / lo, double(i) / (n - 1));
  return v;
}

// The non-negative fit of the Y_l for relaxation frequencies f_l (Hz): four sample frequencies
// per mechanism over the band, so that the fit holds between them too.
Relaxation fit_over(double q, double f_min, double f_max, const std::vector<double>& f_l) {
  Relaxation r;
  for (double f : f_l) r.omega.push_back(kTwoPi * f);
  std::vector<std::vector<double>> a;
  std::vector<double> b;
  for (double f : log_spaced(f_min, f_max, 4 * static_cast<int>(f_l.size()))) {
    const double w = kTwoPi * f;
    std::vector<double> row;
    for (double wl : r.omega) row.push_back((wl * w + wl * wl / q) / (wl * wl + w * w));
    a.push_back(row);
    b.push_back(1.0 / q);
  }
  r.y = non_negative_fit(a, b);
  return r;
}

}  // namespace

int mechanisms_for(double f_min, double f_max) {
  return std::max(3, static_cast<int>(std::ceil(2.0 * std::log10(f_max / f_min) - 1e-9)));
}

Relaxation fit_constant_q(double q, double f_min, double f_max, int mechanisms) {
  if (!(q > 0)) throw std::invalid_argument("Q must be positive, got " + std::to_string(q));
  if (!(f_min > 0) || !(f_max > f_min))
    throw std::invalid_argument("the band must satisfy 0 < f_min < f_max, got [" + std::to_string(f_min) + ", " +
                                std::to_string(f_max) + "] Hz");
  if (mechanisms < 1) throw std::invalid_argument("at least one relaxation mechanism is needed");
  // The mechanisms reach a little beyond the band (half of Q's rise at its edges otherwise).
  return fit_over(q, f_min, f_max, log_spaced(f_min / kBeyond, f_max * kBeyond, mechanisms));
}

namespace {
// Coarse-grained, cube cell l's modulus over the cube's M_U.
std::complex<double> cell_modulus(const Relaxation& r, double f, int l) {
  const double w = kTwoPi * f;
  return element_unrelaxed(r, l) * (1.0 - r.y[l] * r.omega[l] / std::complex<double>(r.omega[l], w));
}
}  // namespace

std::complex<double> relative_modulus(const Relaxation& r, double f) {
  const double w = kTwoPi * f;
  if (r.coarse) {  // the geometric mean of the cube's cells
    std::complex<double> log_sum = 0.0;
    for (size_t l = 0; l < r.omega.size(); ++l) log_sum += std::log(cell_modulus(r, f, int(l)));
    return std::exp(log_sum / double(r.omega.size()));
  }
  std::complex<double> m = 1.0;
  for (size_t l = 0; l < r.omega.size(); ++l) m -= r.y[l] * r.omega[l] / std::complex<double>(r.omega[l], w);
  return m;
}

double element_unrelaxed(const Relaxation& r, int l) {
  if (!r.coarse || r.centre == 0) return 1.0;  // every cell, or Day and Bradley's (all M_U alike)
  const double w = kTwoPi * r.centre;
  return 1.0 / (1.0 - r.y[l] * r.omega[l] / std::complex<double>(r.omega[l], w)).real();
}

namespace {
// One damped Gauss-Newton step of r's Y on residuals(r) = res: the Jacobian by central
// differences, the least-squares rows augmented by sqrt(lambda) x I, Y projected onto [0, max_y].
template <class Residuals>
Relaxation gauss_newton_step(const Relaxation& r, const std::vector<double>& res, double lambda, double max_y,
                             Residuals&& residuals) {
  std::vector<std::vector<double>> rows(res.size(), std::vector<double>(kCubeMechanisms));
  for (int l = 0; l < kCubeMechanisms; ++l) {
    Relaxation up = r, down = r;
    const double h = 1e-7;
    up.y[l] += h, down.y[l] -= h;
    const std::vector<double> a = residuals(up), b = residuals(down);
    for (size_t k = 0; k < res.size(); ++k) rows[k][l] = (a[k] - b[k]) / (2 * h);
  }
  std::vector<double> rhs;
  for (double v : res) rhs.push_back(-v);
  for (int l = 0; l < kCubeMechanisms; ++l) {
    std::vector<double> row(kCubeMechanisms, 0.0);
    row[l] = std::sqrt(lambda);
    rows.push_back(row);
    rhs.push_back(0.0);
  }
  const std::vector<double> step = least_squares(rows, rhs);
  Relaxation next = r;
  for (int l = 0; l < kCubeMechanisms; ++l) next.y[l] = std::min(max_y, std::max(0.0, r.y[l] + step[l]));
  return next;
}

Relaxation fit_cube(double q, double f_min, double f_max) {
  fit_constant_q(q, f_min, f_max, 1);  // checks q and the band
  // A single mechanism of large Y_l shifts the cube's losses below omega_l, the more so the lower
  // Q: the mechanisms' frequencies reach kCoarseBeyond f_max.
  Relaxation r = fit_over(q, f_min, f_max, log_spaced(f_min / kBeyond, f_max * kCoarseBeyond, kCubeMechanisms));
  r.coarse = true;
  r.centre = std::sqrt(f_min * f_max);
  constexpr double kMaxY = 0.95;  // Y < 1 for stability; a margin below it
  for (double& y : r.y) y = std::min(kMaxY, kCubeMechanisms * y);
  const std::vector<double> f = log_spaced(f_min, f_max, 4 * kCubeMechanisms);
  auto residuals = [&](const Relaxation& x) {  // relative misfit of Q at each frequency
    std::vector<double> res;
    for (double v : f) {
      const std::complex<double> m = relative_modulus(x, v);
      res.push_back(q * m.imag() / m.real() - 1.0);
    }
    return res;
  };
  auto cost = [](const std::vector<double>& res) {
    double s = 0;
    for (double v : res) s += v * v;
    return s;
  };
  std::vector<double> res = residuals(r);
  double lambda = 1e-3;
  // Until Q is within 1e-3 (RMS) or the steps stop gaining.
  for (int it = 0; it < 1000 && cost(res) > 1e-6 * double(res.size()); ++it) {
    const Relaxation next = gauss_newton_step(r, res, lambda, kMaxY, residuals);
    const std::vector<double> next_res = residuals(next);
    if (const double before = cost(res), after = cost(next_res); after < before) {
      r = next, res = next_res, lambda = std::max(1e-12, lambda / 3);
      if (before - after < 1e-9 * before) break;  // converged (to a few parts in 1e5 of Q)
    } else {
      lambda *= 4;
      if (lambda > 1e8) break;
    }
  }
  return r;
}

}  // namespace

Relaxation fit_coarse_q(double q, double f_min, double f_max) {
  // Tens of milliseconds a fit, asked for by every block's set-up: each made once per process.
  static std::mutex mutex;
  static std::map<std::array<double, 3>, Relaxation> made;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = made.find({q, f_min, f_max});
  if (it == made.end()) it = made.emplace(std::array<double, 3>{q, f_min, f_max}, fit_cube(q, f_min, f_max)).first;
  return it->second;
}

int q_level(double q) {
  const long l = std::lround(std::log(std::max(q, 1.0)) / std::log(1.01));
  return static_cast<int>(std::min<long>(l, kQLevels - 1));
}
double level_q(int level) { return std::pow(1.01, level); }

Relaxation day_bradley_relaxation(double q, const DayBradley& d) {
  if (!(q > 0) || !(d.tau_min > 0) || !(d.tau_max > d.tau_min))
    throw std::invalid_argument("Day and Bradley: need q > 0 and 0 < taum < tauM");
  const double a = (2.0 / (M_PI * q)) * std::log(d.tau_max / d.tau_min) /
                   (1.0 - (2.0 / (M_PI * q)) * std::log(d.w0 * d.tau_min));
  Relaxation r;
  r.coarse = true;  // centre 0: no element moduli
  for (int m = 0; m < kOndes3dCubeCells; ++m) {
    const int n = 1 + (m % 3 - 1) + 2 * ((m / 3) % 3 - 1) + 4 * (m / 9 - 1);  // ondes3d_cube_cell's inverse
    const double tk = std::exp(std::log(d.tau_min) + (2.0 * n - 1.0) * (std::log(d.tau_max) - std::log(d.tau_min)) / 16.0);
    r.omega.push_back(1.0 / tk);
    r.y.push_back(a);
  }
  return r;
}

double day_bradley_unrelaxed(double q, const DayBradley& d) {
  const double tm = d.tau_min, tM = d.tau_max, w0 = d.w0;
  const double c1 = 1.0 - (1.0 / (M_PI * q)) * std::log((tM * tM + w0 * w0 * tm * tm * tM * tM) /
                                                         (tm * tm + w0 * w0 * tm * tm * tM * tM));
  const double c2 = (2.0 / (M_PI * q)) * std::atan(w0 * (tM - tm) / (1.0 + w0 * w0 * tm * tM));
  return 1.0 / std::sqrt(c1 * c1 + c2 * c2);
}

namespace {
// Pulsation i of `count` log-spaced over [w_min, w_max] as InitializeKManelas spaces them:
// pow(10, log10 wmin + dlogw i), the ends exactly.
double km_spaced(double w_min, double w_max, int count, int i) {
  if (i == 0) return w_min;
  if (i == count - 1) return w_max;
  return std::pow(10.0, std::log10(w_min) + (std::log10(w_max) - std::log10(w_min)) / (count - 1) * i);
}
}  // namespace

std::array<double, 4> kristek_moczo_pulsations(double w_min, double w_max) {
  std::array<double, 4> w{};
  for (int l = 0; l < 4; ++l) w[l] = km_spaced(w_min, w_max, 4, l);
  return w;
}

KristekMoczoCoefficients kristek_moczo(double rho, double mu, double kap, double qp, double qs, double w_min, double w_max,
                           double dt) {
  if (!(qp > 0) || !(qs > 0) || !(w_min > 0) || !(w_max > w_min) || !(rho > 0))
    throw std::invalid_argument("Kristek and Moczo: need Qp, Qs, rho > 0 and 0 < wmin < wmax");
  constexpr int n = 4, kmax = 2 * n - 1;
  KristekMoczoCoefficients km;
  km.pulsations = kristek_moczo_pulsations(w_min, w_max);
  std::array<double, kmax> wk{};
  for (int k = 0; k < kmax; ++k) wk[k] = km_spaced(w_min, w_max, kmax, k);
  auto fit = [&](double q) {  // A y = 1 / Q in the least-squares sense
    std::vector<std::vector<double>> a(kmax, std::vector<double>(n));
    for (int k = 0; k < kmax; ++k)
      for (int l = 0; l < n; ++l) {
        const double r = wk[k] / km.pulsations[l];
        a[k][l] = (r + 1.0 / q) / (1.0 + r * r);
      }
    return least_squares(a, std::vector<double>(kmax, 1.0 / q));
  };
  const std::vector<double> y_alpha = fit(qp), y_beta = fit(qs);
  const double alpha2 = (kap + 4.0 / 3.0 * mu) / rho, beta2 = mu / rho;
  double sum_kap = 0, sum_mu = 0;
  for (int l = 0; l < n; ++l) {
    const double w = km.pulsations[l], y_kap = (alpha2 * y_alpha[l] - 4.0 / 3.0 * beta2 * y_beta[l]) /
                                                   (alpha2 - 4.0 / 3.0 * beta2);  // CompYlkap
    sum_kap += w * dt / (2.0 - w * dt) * y_kap;
    sum_mu += w * dt / (2.0 - w * dt) * y_beta[l];
    km.y_kap[l] = y_kap * (2.0 / (2.0 - w * dt)) * kap;
    km.y_mu[l] = y_beta[l] * (2.0 / (2.0 - w * dt)) * mu;
  }
  km.kap = kap * (1.0 + sum_kap);
  km.mu = mu * (1.0 + sum_mu);
  return km;
}

KristekMoczoCoefficients kristek_moczo(const Layer& l, const KristekMoczo& m, double dt) {
  if (!(l.qp > 0) || !(l.qs > 0) || !(l.vs > 0)) return {};
  const double mu = l.rho * l.vs * l.vs, kap = l.rho * l.vp * l.vp - 4.0 / 3.0 * mu;
  return kristek_moczo(l.rho, mu, kap, l.qp, l.qs, m.w_min, m.w_max, dt);
}

Layer kristek_moczo_elastic(const Layer& l, const KristekMoczo& m, double dt) {
  Layer out = l;
  out.qp = out.qs = 0;
  const KristekMoczoCoefficients k = kristek_moczo(l, m, dt);
  if (k.mu > 0) {
    out.vs = std::sqrt(k.mu / l.rho);
    out.vp = std::sqrt((k.kap + 4.0 / 3.0 * k.mu) / l.rho);
  }
  return out;
}

Relaxation fit_q(double q, double f_min, double f_max, QScheme scheme) {
  return scheme == QScheme::CoarseGrained ? fit_coarse_q(q, f_min, f_max)
                                          : fit_constant_q(q, f_min, f_max, mechanisms_for(f_min, f_max));
}

double quality_at(const Relaxation& r, double f) {
  const std::complex<double> m = relative_modulus(r, f);
  return m.real() / m.imag();
}

const QFits::Fit& QFits::fit(double q) {
  auto it = fits_.find(q);
  if (it == fits_.end()) {
    if (scheme_ == QScheme::DayBradley)
      return fits_.emplace(q, Fit{day_bradley_relaxation(q, db_), day_bradley_unrelaxed(q, db_)}).first->second;
    Relaxation r = fit_q(q, f_min_, f_max_, scheme_);
    const double u = unrelaxed_factor(r, f_ref_);
    it = fits_.emplace(q, Fit{std::move(r), u}).first;
  }
  return it->second;
}

StepCoefficients step_coefficients(const Relaxation& r, int l, double dt) {
  const double half = 0.5 * r.omega[l] * dt;
  return {(1 - half) / (1 + half), r.y[l] * r.omega[l] * dt / (1 + half)};
}

double unrelaxed_factor(const Relaxation& r, double f_ref) {
  // Phase velocity sqrt(M_U / rho) / Re(1 / sqrt(m)) = sqrt(M_ref / rho).
  const double re = (1.0 / std::sqrt(relative_modulus(r, f_ref))).real();
  return re * re;
}

}  // namespace ondes
