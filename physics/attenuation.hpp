// Frequency-independent Q over a band, through a generalized Maxwell body (Emmerich & Korn 1987,
// Kristek & Moczo 2003): n relaxation mechanisms of angular frequencies omega_l, log-uniform over
// the band, with anelastic coefficients Y_l. The modulus is
//   M(w) = M_U (1 - sum_l Y_l omega_l / (omega_l + i w)),
// so Q(w) = Re M / Im M; Q(w) = Q rearranges exactly into the linear equation
//   sum_l Y_l (omega_l w + omega_l^2 / Q) / (omega_l^2 + w^2) = 1 / Q,
// which fit_constant_q solves by non-negative least squares at frequencies spread over the band,
// with the relaxation frequencies log-uniform over the band widened by 1.5 on each side. Each
// mechanism costs the solver 6 memory variables in every cell (read and written at every step);
// mechanisms_for() gives the fewest that hold Q(f) within 3% of the target for Q from 5 to 5000
// over half a decade to four (max(3, 2 per decade); tests/test_physics.cpp checks it): at most
// kMaxMechanisms (core/layout.hpp), which case validation enforces on the band.
#pragma once
#include <complex>
#include <map>
#include <vector>

namespace ondes {

struct Relaxation {
  std::vector<double> omega;  // rad/s
  std::vector<double> y;      // anelastic coefficients
};

// The fewest mechanisms for a band [f_min, f_max] (Hz).
int mechanisms_for(double f_min, double f_max);

// Throws std::invalid_argument for q <= 0, f_min <= 0, f_max <= f_min or mechanisms < 1.
Relaxation fit_constant_q(double q, double f_min, double f_max, int mechanisms);

// M(w) / M_U of the fitted body at frequency f (Hz).
std::complex<double> relative_modulus(const Relaxation& r, double f);

// Q reached at frequency f (Hz): Re M / Im M.
double quality_at(const Relaxation& r, double f);

// M_U / M_ref: the unrelaxed modulus for which the phase velocity at f_ref equals the elastic
// velocity of modulus M_ref (the velocities a user gives are those at the reference frequency).
double unrelaxed_factor(const Relaxation& r, double f_ref);

// The solver's fits of the quality factors of a medium (mechanisms_for the band [f_min, f_max],
// velocities at f_ref), one per Q value, made once with its unrelaxed factor (fill_material asks
// for it at every cell).
class QFits {
 public:
  QFits(double f_min, double f_max, double f_ref) : f_min_(f_min), f_max_(f_max), f_ref_(f_ref) {}
  const Relaxation& of(double q) { return fit(q).relaxation; }
  // M_U / M_ref for a modulus of quality q (1 for q = 0: elastic).
  double unrelaxed(double q) { return q > 0 ? fit(q).unrelaxed : 1.0; }

 private:
  struct Fit {
    Relaxation relaxation;
    double unrelaxed;
  };
  const Fit& fit(double q);
  double f_min_, f_max_, f_ref_;
  std::map<double, Fit> fits_;
};

// The per-step coefficients of mechanism l of fit r in the solver (codelets/stencil.hpp's
// add_stress_anelastic, Crank-Nicolson over dt): decay = (1 - w dt/2) / (1 + w dt/2),
// gain = Y_l w dt / (1 + w dt/2).
struct StepCoefficients {
  double decay, gain;
};
StepCoefficients step_coefficients(const Relaxation& r, int l, double dt);

}  // namespace ondes
