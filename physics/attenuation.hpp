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
// kMaxMechanisms (core/anelastic_layout.hpp), which case validation enforces on the band.
#pragma once
#include <array>
#include <complex>
#include <map>
#include <vector>

#include "core/case.hpp"
#include "core/anelastic_layout.hpp"

namespace ondes {

struct Relaxation {
  std::vector<double> omega;  // rad/s
  std::vector<double> y;      // anelastic coefficients
  bool coarse = false;        // one mechanism per cell of a 2 x 2 x 2 cube (fit_coarse_q)
  double centre = 0;          // Hz, coarse-grained: where the cube's cells have equal real moduli
};

// Coarse-grained, cube cell l's unrelaxed modulus over the one its cube is scaled to
// (element_unrelaxed x unrelaxed_factor x the modulus given): such that every cell has the same real
// modulus at the band's centre (Graves & Day 2003's element-specific moduli), so that the cube's
// cells differ in their losses only, not in stiffness. 1 for an every-cell fit.
double element_unrelaxed(const Relaxation& r, int l);

// Where the memory variables live (Medium::q_scheme): every mechanism in every cell (6 N memory
// variables a cell), or coarse-grained (Day & Bradley 2001): kCubeMechanisms mechanisms, one per
// cell of each 2 x 2 x 2 cube, so 6 memory variables a cell whatever the band.
enum class QScheme { EveryCell, CoarseGrained, DayBradley };
constexpr int kCubeMechanisms = kCubeCells;

// The fewest mechanisms for a band [f_min, f_max] (Hz).
int mechanisms_for(double f_min, double f_max);

// Throws std::invalid_argument for q <= 0, f_min <= 0, f_max <= f_min or mechanisms < 1.
Relaxation fit_constant_q(double q, double f_min, double f_max, int mechanisms);

// The coarse-grained body: cell l of each cube relaxes with mechanism l alone, M_l(w) = M_U e_l (1 -
// Y_l omega_l / (omega_l + i w)), Y_l in [0, 1) (Graves & Day 2003: stable only so), e_l =
// element_unrelaxed. A wave much longer than the cube sees an effective modulus between the
// harmonic and the arithmetic mean of the eight; the fit takes their geometric mean and fits the
// Y_l so that it has Q(f) = q over the band (Levenberg-Marquardt from 8 x the every-cell fit);
// relative_modulus of the result is that mean. Against the exact solution (tests/test_anelastic.cpp)
// the geometric mean did best of the three means, and mechanisms placed so that neighbours differ
// most did worse; below Qs = 20 none holds it (docs/performance.md, Decisions: coarse-grained
// mean). Hence Medium's coarse-grained scheme is for Q >= 20.
Relaxation fit_coarse_q(double q, double f_min, double f_max);

// In a 3D model Q varies from cell to cell: each cell's Q is rounded to a rung of a geometric
// ladder (ratio 1.01: within 0.5%) so that a block's gains are a table indexed by rung.
constexpr int kQLevels = 1400;  // Q from 1 to 1.1e6
int q_level(double q);          // the nearest rung, clamped
double level_q(int level);

// Ondes3D's Day and Bradley method (QScheme::DayBradley, core/case.hpp DayBradley) as its original
// code computes it: every cell relaxes with one time of its own, tk = exp(ln taum + (2 n - 1)
// (ln tauM - ln taum) / 16), n = 1 + imp % 2 + 2 (jmp % 2) + 4 (k % 2) in C (so -1 at odd negative
// indices, and n from -6 to 8: 27 cells of core/anelastic_layout.hpp's ondes3d_cube_cell), and every one
// with the same Y = Q2A(Q) = (2 / (pi Q)) ln(tauM / taum) / (1 - (2 / (pi Q)) ln(w0 taum))
// (computeIntermediates.c Q2A, ComputeIntermediates). Its memory follows Crank-Nicolson,
// ksi' = ((tk/dt - 1/2) ksi + (f + f') / 2) / (tk/dt + 1/2), the stress taking -dt ksi': the
// solver's update exactly (anelastic.hpp anelastic_stress: its memory's mean over the step is
// ksi), whose step_coefficients these mechanisms give. Its moduli are unrelaxed by
// day_bradley_unrelaxed (alloAndInit.c InitializeDayBradley).
Relaxation day_bradley_relaxation(double q, const DayBradley& d);
// M_U / M for quality q: 1 / |c1 + i c2|, c1 = 1 - ln((tauM^2 + w0^2 taum^2 tauM^2) / (taum^2 +
// w0^2 taum^2 tauM^2)) / (pi q), c2 = 2 atan(w0 (tauM - taum) / (1 + w0^2 taum tauM)) / (pi q).
double day_bradley_unrelaxed(double q, const DayBradley& d);

// Ondes3D's Kristek and Moczo method (its KRISTEKandMOCZO: <wmin> <wmax>, rad/s) as alloAndInit.c
// InitializeKManelas computes it: four relaxation pulsations log-spaced over [wmin, wmax]
// (`pulsations`), and per material the anelastic coefficients of Qp and Qs by least squares at
// seven pulsations log-spaced over the same band (a[k][l] = (wk / wl + 1 / Q) / (1 + (wk / wl)^2)),
// those of Qp turned into kappa's (CompYlkap), the moduli the elastic update takes (kappa and mu
// times 1 + sum(wl dt / (2 - wl dt) Y)) and the stress's weights of each pulsation's memory
// (Y~ = 2 / (2 - wl dt) Y M, M the moduli given). The solver: codelets/kristek_moczo.hpp.
struct KristekMoczoCoefficients {
  std::array<double, 4> pulsations{};  // wl, rad/s
  std::array<double, 4> y_mu{}, y_kap{};  // Ylmu~, Ylkap~ (Pa)
  double mu = 0, kap = 0;                 // Pa
};
KristekMoczoCoefficients kristek_moczo(double rho, double mu, double kap, double qp, double qs, double w_min, double w_max,
                                       double dt);
// Its four relaxation pulsations wl over [wmin, wmax] (rad/s), whatever the medium.
std::array<double, 4> kristek_moczo_pulsations(double w_min, double w_max);
// A layer's coefficients under the case's method (its Qp, Qs; vacuum or water, Q = 0: none).
KristekMoczoCoefficients kristek_moczo(const Layer& l, const KristekMoczo& m, double dt);
// The layer as the elastic update sees it under Kristek and Moczo: vp and vs of the moduli
// kristek_moczo gives (alloAndInit.c InitializeKManelas overwrites its MDM's with them, before
// InitializeABC takes its C-PML's vp), no Q of its own.
Layer kristek_moczo_elastic(const Layer& l, const KristekMoczo& m, double dt);

// The solver's fit for a scheme (mechanisms_for the band in every cell, or the cube's eight).
Relaxation fit_q(double q, double f_min, double f_max, QScheme scheme);

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
  QFits(double f_min, double f_max, double f_ref, QScheme scheme = QScheme::EveryCell, DayBradley db = {})
      : f_min_(f_min), f_max_(f_max), f_ref_(f_ref), scheme_(scheme), db_(db) {}
  const Relaxation& of(double q) { return fit(q).relaxation; }
  // M_U / M_ref for a modulus of quality q (1 for q = 0: elastic).
  double unrelaxed(double q) { return q > 0 ? fit(q).unrelaxed : 1.0; }
  // The same for cube cell l (coarse-grained; unrelaxed(q) every-cell).
  double unrelaxed(double q, int l) { return q > 0 ? fit(q).unrelaxed * element_unrelaxed(fit(q).relaxation, l) : 1.0; }

 private:
  struct Fit {
    Relaxation relaxation;
    double unrelaxed;
  };
  const Fit& fit(double q);
  double f_min_, f_max_, f_ref_;
  QScheme scheme_;
  DayBradley db_;
  std::map<double, Fit> fits_;
};

// The per-step coefficients of mechanism l of fit r in the solver (codelets/anelastic.hpp's
// anelastic_stress, Crank-Nicolson over dt): decay = (1 - w dt/2) / (1 + w dt/2),
// gain = Y_l w dt / (1 + w dt/2).
struct StepCoefficients {
  double decay, gain;
};
StepCoefficients step_coefficients(const Relaxation& r, int l, double dt);

}  // namespace ondes
