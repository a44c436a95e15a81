#pragma once
#include <array>

#include "core/case.hpp"

namespace ondes {

// Moment tensor (Mxx Myy Mzz Mxy Mxz Myz) of a double couple, Aki & Richards (box 4.4),
// x north, y east, z down; angles in degrees.
std::array<double, 6> double_couple(double strike, double dip, double rake, double m0);

// Highest frequency with significant energy in a time function (for the points-per-wavelength check).
// A sampled time function's samples scaled to unit area (trapezoids, as linear interpolation
// integrates them), so that a source's moment or force is its total; false if the area is zero.
bool normalise_samples(TimeFunction& f);
double stf_max_frequency(const TimeFunction& f);
// Frequency the C-PML profile is tuned to (alpha_max = pi f).
double stf_dominant_frequency(const TimeFunction& f);

}  // namespace ondes
