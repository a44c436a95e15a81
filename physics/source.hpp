#pragma once
#include <array>
#include <vector>

#include "core/case.hpp"

namespace ondes {

// Moment tensor (Mxx Myy Mzz Mxy Mxz Myz) of a double couple, Aki & Richards (box 4.4),
// x north, y east, z down; angles in degrees.
std::array<double, 6> double_couple(double strike, double dip, double rake, double m0);

// Scales a sampled (or held) time function's samples to unit area (Sampled: trapezoids, as linear
// interpolation integrates them; Held: the samples' sum times the step, as Ondes3D sums a history),
// so that a source's moment or force is its total. Returns the area they had, 0 if it is zero or
// not finite (the samples are then left as they are).
double normalise_samples(TimeFunction& f);

// Scalar moment of a moment tensor (Silver & Jordan: sqrt(sum Mij^2 / 2); m0 for a double couple
// of moment m0), N m.
double scalar_moment(const std::array<double, 6>& m);
// The sum of the moment sources' scalar moments (Ondes3D's Mo for a finite fault), N m.
double seismic_moment(const std::vector<Source>& sources);
// Moment magnitude Mw = (log10 M0 - 9.1) / 1.5 (Hanks & Kanamori; Ondes3D's IO.c ReadSrc).
double moment_magnitude(double m0);
// Highest frequency with significant energy in a time function (for the points-per-wavelength check).
double stf_max_frequency(const TimeFunction& f);
// Frequency the C-PML profile is tuned to (alpha_max = pi f).
double stf_dominant_frequency(const TimeFunction& f);

}  // namespace ondes
