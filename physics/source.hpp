#pragma once
#include <array>

#include "core/case.hpp"

namespace ondes {

// Moment tensor (Mxx Myy Mzz Mxy Mxz Myz) of a double couple, Aki & Richards (box 4.4),
// x north, y east, z down; angles in degrees.
std::array<double, 6> double_couple(double strike, double dip, double rake, double m0);

// Scales a sampled time function's samples to unit area (trapezoids, as linear interpolation
// integrates them), so that a source's moment or force is its total. Returns the area they had
// (an Ondes3D history's slip), 0 if it is zero or not finite (the samples are then left as they are).
double normalise_samples(TimeFunction& f);
// Highest frequency with significant energy in a time function (for the points-per-wavelength check).
double stf_max_frequency(const TimeFunction& f);
// Frequency the C-PML profile is tuned to (alpha_max = pi f).
double stf_dominant_frequency(const TimeFunction& f);

}  // namespace ondes
