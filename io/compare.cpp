#include "io/compare.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <stdexcept>

namespace ondes {

Comparison compare_seismograms(const std::string& a_path, const std::string& b_path) {
  const Seismograms a = read_seismograms(a_path), b = read_seismograms(b_path);
  if (a.names != b.names || a.steps != b.steps)
    throw std::runtime_error(fmt::format("{} ({} stations, {} steps) and {} ({} stations, {} steps) do not record "
                                         "the same stations and steps",
                                         a_path, a.stations, a.steps, b_path, b.stations, b.steps));
  Comparison c;
  c.samples = a.data.size();
  const size_t per_station = 3 * static_cast<size_t>(a.steps);
  for (int s = 0; s < a.stations; ++s) {
    StationDifference d;
    d.name = a.names[s];
    double diff2 = 0, ref2 = 0;
    for (size_t i = s * per_station; i < (s + 1) * per_station; ++i) {
      c.identical += std::memcmp(&a.data[i], &b.data[i], sizeof(float)) == 0;
      const double e = double(a.data[i]) - b.data[i];
      diff2 += e * e;
      ref2 += double(a.data[i]) * a.data[i];
      d.max_abs = std::max(d.max_abs, std::abs(e));
    }
    d.relative_l2 = diff2 == 0 ? 0 : ref2 == 0 ? INFINITY : std::sqrt(diff2 / ref2);
    c.worst_relative_l2 = std::max(c.worst_relative_l2, d.relative_l2);
    c.stations.push_back(d);
  }
  return c;
}

}  // namespace ondes
