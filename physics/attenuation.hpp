// Frequency-independent Q over a band, through a generalized Maxwell body (Emmerich & Korn 1987,
// Kristek & Moczo 2003): n relaxation mechanisms of angular frequencies omega_l, log-uniform over
// the band, with anelastic coefficients Y_l. The modulus is
//   M(w) = M_U (1 - sum_l Y_l omega_l / (omega_l + i w)),
// so Q(w) = Re M / Im M; Q(w) = Q rearranges exactly into the linear equation
//   sum_l Y_l (omega_l w + omega_l^2 / Q) / (omega_l^2 + w^2) = 1 / Q,
// which fit_constant_q solves by least squares at frequencies spread over the band, with the
// relaxation frequencies log-uniform over the band widened by 1.5 on each side. Each mechanism
// costs the solver memory variables in every cell; mechanisms_for() gives the fewest that hold Q(f)
// within 1.5% of the target for Q from 5 to 5000 over half a decade to four (max(3, 2.5 per
// decade); tests/test_physics.cpp checks it).
#pragma once
#include <complex>
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

}  // namespace ondes
