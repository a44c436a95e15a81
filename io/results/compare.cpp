#include "io/results/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <hdf5.h>

#include "core/case_error.hpp"

namespace ondes {

Seismograms read_ondes3d_station_files(const std::string& dir) {
  std::vector<std::pair<long, std::filesystem::path>> files;
  static const std::regex name(R"(obs(\d+)\.dat)");
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::smatch m;
    const std::string file = e.path().filename().string();
    if (std::regex_match(file, m, name)) files.emplace_back(std::stol(m[1]), e.path());
  }
  if (files.empty()) throw CaseError(fmt::format("{}: no Ondes3D station file (obs<N>.dat)", dir));
  std::sort(files.begin(), files.end());
  Seismograms s;
  std::vector<std::array<std::vector<float>, 3>> traces;
  for (const auto& [n, path] : files) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    auto words = [](const std::string& line) {
      std::istringstream w(line);
      std::vector<double> v;
      for (double x; w >> x;) v.push_back(x);
      return v;
    };
    // Two layouts (original/src/IO.c): OutSeismogramsbis's `step vx vy vz` a line, or
    // OutSeismograms's header `n x y z` and `steps dt`, then `vx vy vz` (or with the six stresses
    // after them) a line. The second line tells them apart.
    const bool header = lines.size() >= 2 && words(lines[1]).size() == 2;
    std::array<std::vector<float>, 3> t;
    for (size_t at = header ? 2 : 0; at < lines.size(); ++at) {
      const std::vector<double> v = words(lines[at]);
      if (v.empty() && lines[at].find_first_not_of(" \t\r") == std::string::npos) continue;
      const size_t first = header ? 0 : 1;
      if (header ? (v.size() != 3 && v.size() != 9) : v.size() != 4)
        throw CaseError(fmt::format("{}:{}: not {}", path.string(), at + 1,
                                    header ? "'vx vy vz' (or with sxx syy szz sxy sxz syz), after the header 'n x y z' "
                                             "and 'steps dt'"
                                           : "'step vx vy vz' (nor the header 'n x y z', 'steps dt' of the other layout)"));
      const double east = v[first], north = v[first + 1], up = v[first + 2];
      t[0].push_back(float(north)), t[1].push_back(float(east)), t[2].push_back(float(0.0 - up));
    }
    if (!traces.empty() && t[0].size() != traces.front()[0].size())
      throw CaseError(fmt::format("{}: {} steps, {} has {}", path.string(), t[0].size(),
                                  files.front().second.string(), traces.front()[0].size()));
    s.names.push_back(fmt::format("obs{}", n));
    traces.push_back(std::move(t));
  }
  s.stations = static_cast<int>(traces.size());
  s.steps = static_cast<int>(traces.front()[0].size());
  for (const auto& t : traces)
    for (const auto& c : t) s.data.insert(s.data.end(), c.begin(), c.end());
  return s;
}

namespace {
// A run's seismograms: its HDF5 file or a folder of Ondes3D's station files; anything else is a
// CaseError naming what was expected (HDF5's own error stack kept quiet while asking).
Seismograms read_run(const std::string& path) {
  if (std::filesystem::is_directory(path)) return read_ondes3d_station_files(path);
  H5E_auto2_t report = nullptr;
  void* data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &report, &data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const htri_t hdf5 = H5Fis_hdf5(path.c_str());
  H5Eset_auto2(H5E_DEFAULT, report, data);
  if (hdf5 <= 0)
    throw CaseError(fmt::format("{}: neither an HDF5 output of ondes3d nor a folder of Ondes3D's station files "
                                "(obs<N>.dat)", path));
  return read_seismograms(path);
}
}  // namespace

Comparison compare_seismograms(const std::string& a_path, const std::string& b_path) {
  const Seismograms a = read_run(a_path), b = read_run(b_path);
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
    for (int comp = 0; comp < 3; ++comp) {
      double cd2 = 0, cr2 = 0, peak_a = 0, peak_b = 0;
      for (size_t i = s * per_station + comp * a.steps, e = i + a.steps; i < e; ++i) {
        c.identical += std::memcmp(&a.data[i], &b.data[i], sizeof(float)) == 0;
        c.a_silent = c.a_silent && a.data[i] == 0, c.b_silent = c.b_silent && b.data[i] == 0;
        const double diff = double(a.data[i]) - b.data[i];
        cd2 += diff * diff;
        cr2 += double(a.data[i]) * a.data[i];
        d.max_abs = std::max(d.max_abs, std::abs(diff));
        peak_a = std::max(peak_a, std::abs(double(a.data[i]))), peak_b = std::max(peak_b, std::abs(double(b.data[i])));
      }
      d.component_l2[comp] = cd2 == 0 ? 0 : cr2 == 0 ? INFINITY : std::sqrt(cd2 / cr2);
      d.peak_ratio[comp] = peak_a == 0 ? (peak_b == 0 ? 1 : INFINITY) : peak_b / peak_a;
      diff2 += cd2, ref2 += cr2;
    }
    d.relative_l2 = diff2 == 0 ? 0 : ref2 == 0 ? INFINITY : std::sqrt(diff2 / ref2);
    c.worst_relative_l2 = std::max(c.worst_relative_l2, d.relative_l2);
    c.stations.push_back(d);
  }
  return c;
}

}  // namespace ondes
