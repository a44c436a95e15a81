// Source time functions s(t), shared by the CPU and CUDA codelets and by the analytic solutions.
// Normalisation: Gaussian, triangle and smooth ramp have unit area (so a moment tensor's M is the
// final moment, a force's amplitude its impulse in N s); the Ricker wavelet has unit peak.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/host_device.hpp"
#include "core/stf_kind.hpp"

namespace ondes {

// The step n of the solver's clock t0 that time t falls on (unclamped).
ONDES_HD inline int64_t step_at(double t0, double t) { return std::llround(t / t0); }

// Sampled: samples[0 .. duration - 1] at times t0 + i / f0 (f0 the sampling rate), linearly
// interpolated, zero outside. Held (Ondes3D's histories, applied as its body forces: physics/
// source_points.cpp, ondes3d_force_points): samples[n * stride] is the moment accumulated by the
// velocity update at t = n t0 (t0 the solver's time step; n the held step, held_step), a fraction of
// the total, held at its last value from index duration - 1 on (the static moment).
ONDES_HD inline int64_t held_step(double t0, double duration, double t) {
  const int64_t n = step_at(t0, t), last = static_cast<int64_t>(duration) - 1;
  return n < last ? n : last;
}
ONDES_HD inline double stf_value(StfKind kind, double f0, double t0, double duration, double t,
                                 const double* samples = nullptr, int64_t stride = 1) {
  const double pi = 3.14159265358979323846;
  if (kind == StfKind::Held) return samples[held_step(t0, duration, t) * stride];
  if (kind == StfKind::Sampled) {
    const double u = (t - t0) * f0;
    const double last = duration - 1;
    if (!(u >= 0.0) || u > last) return 0.0;
    const int64_t i = static_cast<int64_t>(u);
    if (double(i) >= last) return samples[i];
    const double w = u - double(i);
    return samples[i] * (1.0 - w) + samples[i + 1] * w;
  }
  if (kind == StfKind::Triangle) {
    const double u = (t - t0) / duration;  // 0..1 over the support
    if (u <= 0.0 || u >= 1.0) return 0.0;
    const double peak = 2.0 / duration;
    return u < 0.5 ? peak * 2.0 * u : peak * 2.0 * (1.0 - u);
  }
  if (kind == StfKind::SmoothRamp) {
    // Moment rate of the SCEC LOH.1 source, whose moment is M0 (1 - (1 + u) e^-u), u = (t - t0) / T;
    // `duration` holds the rise time T.
    const double u = (t - t0) / duration;
    return u <= 0.0 ? 0.0 : u * std::exp(-u) / duration;
  }
  const double a = pi * f0 * (t - t0);
  const double g = std::exp(-a * a);
  if (kind == StfKind::Ricker) return (1.0 - 2.0 * a * a) * g;
  return f0 * std::sqrt(pi) * g;  // Gaussian, unit area
}

}  // namespace ondes
