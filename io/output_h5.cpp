#include "io/output_h5.hpp"

#include "io/h5util.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <cstdio>
#include <stdexcept>

namespace ondes {
namespace {
using namespace h5;

void write_file(const std::string& path, const Case& c, const std::vector<float>& seis, const RunMetadata& m) {
  Id file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
  if (file < 0) throw std::runtime_error(fmt::format("{}: cannot create the output file", path));
  const hsize_t ns = c.stations.size(), nt = m.steps;

  Id g{H5Gcreate2(file, "seismograms", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  {
    hsize_t dims[3] = {ns, 3, nt};
    Id space{H5Screate_simple(3, dims, nullptr), H5Sclose};
    Id ds{H5Dcreate2(g, "velocity", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    if (ns > 0) check(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, seis.data()), "velocity");
    attr_double(ds, "dt", c.time.dt);
    attr_double(ds, "t0", 0.5 * c.time.dt);  // velocity lives at half steps
    attr_string(ds, "units", "m/s");
    attr_string(ds, "components", "vx vy vz (x north, y east, z down)");
  }
  Id st{H5Gcreate2(file, "stations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  {
    std::vector<const char*> names;
    std::vector<double> pos;
    for (const Station& s : c.stations) {
      names.push_back(s.name.c_str());
      pos.insert(pos.end(), s.position.begin(), s.position.end());
    }
    Id type{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hsize_t d1[1] = {ns};
    Id s1{H5Screate_simple(1, d1, nullptr), H5Sclose};
    Id dn{H5Dcreate2(st, "name", type, s1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    if (ns > 0) check(H5Dwrite(dn, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names.data()), "station names");
    hsize_t d2[2] = {ns, 3};
    Id s2{H5Screate_simple(2, d2, nullptr), H5Sclose};
    Id dp{H5Dcreate2(st, "position", H5T_IEEE_F64LE, s2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    if (ns > 0) check(H5Dwrite(dp, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, pos.data()), "positions");
    attr_string(dp, "units", "m");
  }
  Id run{H5Gcreate2(file, "run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  attr_string(run, "case", c.text);
  attr_string(run, "case_path", c.path);
  attr_string(run, "program_version", m.program_version);
  attr_string(run, "starpu_version", m.starpu_version);
  attr_string(run, "scheduler", m.scheduler);
  attr_string(run, "blocks", fmt::format("{}x{}", m.nbx, m.nby));
  attr_int(run, "complete", m.complete ? 1 : 0);
  attr_int(run, "steps_completed", m.steps_completed);
  attr_string(run, "stop_reason", m.stop_reason);
  attr_string(run, "restarted_from", m.restarted_from);
  attr_int(run, "ranks", m.ranks);
  attr_string(run, "mapping", m.mapping);
  attr_int(run, "cpu_workers", m.cpu_workers);
  attr_int(run, "cuda_workers", m.cuda_workers);
  attr_int(run, "steps", m.steps);
  attr_string(run, "grid", fmt::format("{}x{}x{} h={} m", c.grid.nx, c.grid.ny, c.grid.nz, c.grid.h));
  attr_double(run, "wall_seconds", m.wall_seconds);
  attr_double(run, "cell_updates_per_second", m.cell_updates_per_second);
}

}  // namespace

void write_output(const std::string& path, const Case& c, const std::vector<float>& seismograms,
                  const RunMetadata& meta) {
  const std::string tmp = path + ".partial";
  try {
    write_file(tmp, c, seismograms, meta);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("{}: cannot move the output into place", path));
  }
}

Seismograms read_seismograms(const std::string& path) {
  Seismograms s;
  Id file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  if (file < 0) throw std::runtime_error(path + ": cannot open");
  Id ds{H5Dopen2(file, "/seismograms/velocity", H5P_DEFAULT), H5Dclose};
  Id space{H5Dget_space(ds), H5Sclose};
  hsize_t dims[3];
  H5Sget_simple_extent_dims(space, dims, nullptr);
  s.stations = static_cast<int>(dims[0]);
  s.steps = static_cast<int>(dims[2]);
  s.data.resize(dims[0] * dims[1] * dims[2]);
  if (!s.data.empty()) check(H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data.data()), "read");
  for (auto [name, dst] : {std::pair{"dt", &s.dt}, std::pair{"t0", &s.t0}}) {
    Id a{H5Aopen(ds, name, H5P_DEFAULT), H5Aclose};
    check(H5Aread(a, H5T_NATIVE_DOUBLE, dst), name);
  }
  Id dn{H5Dopen2(file, "/stations/name", H5P_DEFAULT), H5Dclose};
  Id type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);  // as written
  std::vector<char*> names(s.stations);
  if (s.stations > 0) {
    check(H5Dread(dn, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names.data()), "names");
    for (char* n : names) s.names.emplace_back(n);
    Id ns{H5Dget_space(dn), H5Sclose};
    H5Dvlen_reclaim(type, ns, H5P_DEFAULT, names.data());
  }
  return s;
}

}  // namespace ondes
