// Where and when the simulation sits on the Earth, for the seismological formats (ASDF, SAC).
#pragma once
#include <array>
#include <cmath>
#include <ctime>
#include <string>

#include <fmt/format.h>

#include "core/case.hpp"

namespace ondes {

constexpr double kEarthRadius = 6371000.0;  // metres

struct GeoPosition {
  double latitude, longitude;  // degrees
  double depth;                // metres below the surface (z)
};

// x north and y east of the grid's corner, on the sphere, as small offsets (an equirectangular
// projection: exact enough over the few hundred kilometres a run covers, and simple to invert).
inline GeoPosition geographic(const ExportOptions& e, const std::array<double, 3>& p) {
  const double deg = 180.0 / M_PI;
  return {e.latitude + p[0] / kEarthRadius * deg,
          e.longitude + p[1] / (kEarthRadius * std::cos(e.latitude / deg)) * deg, p[2]};
}

// Seconds since 1970 as ISO 8601 UTC with microseconds ("2000-01-01T00:00:00.000000Z").
inline std::string utc_iso(double epoch) {
  const double whole = std::floor(epoch);
  const time_t t = static_cast<time_t>(whole);
  std::tm u{};
  gmtime_r(&t, &u);
  const int micro = std::min(999999, static_cast<int>(std::lround((epoch - whole) * 1e6)));
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", u.tm_year + 1900, u.tm_mon + 1, u.tm_mday,
                     u.tm_hour, u.tm_min, u.tm_sec, micro);
}

}  // namespace ondes
