#include "io/results/output_h5.hpp"

#include "io/results/h5util.hpp"
#include "io/results/partial_file.hpp"
#include "physics/model3d.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hdf5.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace ondes {
namespace {
using namespace h5;

// /run/profile: three tables (codelets, workers, transfers), one dataset per column.
void write_profile(hid_t run, const RunProfile& p) {
  Id prof{H5Gcreate2(run, "profile", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  attr_string(prof, "source", "StarPU task and worker profiling on rank 0, after set-up to the end of the run");
  {
    Id g{H5Gcreate2(prof, "codelets", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    std::vector<std::string> name, kind;
    std::vector<int64_t> tasks;
    std::vector<double> mean;
    for (const CodeletStats& c : p.codelets)
      name.push_back(c.codelet), kind.push_back(c.worker_kind), tasks.push_back(c.tasks), mean.push_back(c.mean_seconds());
    column(g, "codelet", name);
    column(g, "worker_kind", kind);
    column(g, "tasks", tasks);
    column(g, "mean_seconds", mean);
  }
  {
    Id g{H5Gcreate2(prof, "workers", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    std::vector<std::string> name, kind;
    std::vector<int64_t> id, tasks;
    std::vector<double> total, executing, sleeping, idle;
    for (const WorkerStats& w : p.workers) {
      id.push_back(w.id), name.push_back(w.name), kind.push_back(w.kind), tasks.push_back(w.tasks);
      total.push_back(w.total_seconds), executing.push_back(w.executing_seconds), sleeping.push_back(w.sleeping_seconds);
      idle.push_back(w.total_seconds - w.executing_seconds);
    }
    column(g, "id", id);
    column(g, "name", name);
    column(g, "kind", kind);
    column(g, "tasks", tasks);
    column(g, "total_seconds", total);
    column(g, "executing_seconds", executing);
    column(g, "sleeping_seconds", sleeping);
    column(g, "idle_seconds", idle);
  }
  {
    Id g{H5Gcreate2(prof, "transfers", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    std::vector<int64_t> src, dst, count;
    std::vector<std::string> src_kind, dst_kind;
    std::vector<double> bytes;
    for (const TransferStats& t : p.transfers)
      src.push_back(t.src_node), dst.push_back(t.dst_node), src_kind.push_back(t.src_kind),
          dst_kind.push_back(t.dst_kind), bytes.push_back(t.bytes), count.push_back(t.count);
    column(g, "src_node", src);
    column(g, "dst_node", dst);
    column(g, "src_kind", src_kind);
    column(g, "dst_kind", dst_kind);
    column(g, "bytes", bytes);
    column(g, "count", count);
  }
}

// /seismograms/velocity [station][component][step] (m/s, at half steps).
void write_seismograms(hid_t file, const Case& c, const std::vector<float>& seis, hsize_t nt) {
  const hsize_t ns = c.stations.size();
  Id g{H5Gcreate2(file, "seismograms", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  hsize_t dims[3] = {ns, 3, nt};
  Id space{H5Screate_simple(3, dims, nullptr), H5Sclose};
  Id ds{H5Dcreate2(g, "velocity", H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  if (ns > 0) check(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, seis.data()), "velocity");
  attr_double(ds, "dt", c.time.dt);
  attr_double(ds, "t0", 0.5 * c.time.dt);  // velocity lives at half steps
  attr_string(ds, "units", "m/s");
  attr_string(ds, "components", "vx vy vz (x north, y east, z down)");
}

// /stations: names and positions (and where an Ondes3D station file put them).
void write_stations(hid_t file, const Case& c) {
  const hsize_t ns = c.stations.size();
  Id st{H5Gcreate2(file, "stations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  std::vector<std::string> names;
  std::vector<double> pos;
  for (const Station& s : c.stations) {
    names.push_back(s.name);
    pos.insert(pos.end(), s.position.begin(), s.position.end());
  }
  column(st, "name", names);
  hsize_t d2[2] = {ns, 3};
  Id s2{H5Screate_simple(2, d2, nullptr), H5Sclose};
  Id dp{H5Dcreate2(st, "position", H5T_IEEE_F64LE, s2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  if (ns > 0) check(H5Dwrite(dp, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, pos.data()), "positions");
  attr_string(dp, "units", "m");
  attr_string(dp, "axes", "x north, y east, z down from the top of the grid");
  // An Ondes3D run's stations also where its station file put them, in that file's axes.
  if (ns > 0 && std::all_of(c.stations.begin(), c.stations.end(), [](const Station& s) { return bool(s.file_position); })) {
    std::vector<double> fpos;
    for (const Station& s : c.stations) fpos.insert(fpos.end(), s.file_position->begin(), s.file_position->end());
    Id df{H5Dcreate2(st, "file_position", H5T_IEEE_F64LE, s2, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    check(H5Dwrite(df, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, fpos.data()), "file positions");
    attr_string(df, "units", "m");
    attr_string(df, "axes", "x east, y north, z up (the Ondes3D station file's)");
  }
}

// /run: the case and what it refers to, the plan and the run's figures.
void write_run(hid_t file, const Case& c, const RunMetadata& m) {
  Id run{H5Gcreate2(file, "run", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  text_dataset(run, "case", c.text);  // a dataset: a case's text outgrows an attribute's 64 KiB
  attr_string(run, "case_path", c.path);
  // What the case refers to, so that the output alone says what was run: the fault files' text
  // (text_<i>, deflated bytes: a fault's histories can be hundreds of MB of text) and the model's path.
  if (!c.faults.empty()) {
    Id g{H5Gcreate2(run, "faults", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
    std::vector<std::string> paths;
    for (size_t i = 0; i < c.faults.size(); ++i) {
      paths.push_back(c.faults[i].file);
      compressed_text(g, fmt::format("text_{}", i).c_str(), c.faults[i].text);
    }
    column(g, "path", paths);
  }
  if (c.medium.model) attr_string(run, "model_path", c.medium.model->path);
  attr_string(run, "program_version", m.program_version);
  attr_string(run, "starpu_version", m.starpu_version);
  attr_string(run, "scheduler", m.scheduler);
  attr_string(run, "blocks", fmt::format("{}x{}", m.nbx, m.nby));
  attr_string(run, "plan", fmt::format("{}", fmt::join(m.plan, "\n")));
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
  write_profile(run, m.profile);
}

void write_file(const std::string& path, const Case& c, const std::vector<float>& seis, const RunMetadata& m) {
  Id file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
  if (file < 0) throw std::runtime_error(fmt::format("{}: cannot create the output file", path));
  write_seismograms(file, c, seis, m.steps);
  write_stations(file, c);
  write_run(file, c, m);
}

}  // namespace

void write_output(const std::string& path, const Case& c, const std::vector<float>& seismograms,
                  const RunMetadata& meta) {
  write_through(path, [&](const std::string& tmp) { write_file(tmp, c, seismograms, meta); });
}

void write_summary_csv(const std::string& path, const Case& c, const RunMetadata& m) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write the run summary", path));
  const double cells = double(c.grid.nx) * c.grid.ny * c.grid.nz;
  const RunProfile& p = m.profile;
  out << "case,nx,ny,nz,cells,nbx,nby,scheduler,ncpu,ncuda,ranks,steps,steps_completed,wall_s,"
         "seconds_per_iteration,cell_updates_per_s,tasks,tasks_per_iteration,idle_cpu,idle_cuda,bytes_transferred,"
         "compute_tasks_cpu,compute_tasks_cuda,plan\n";
  std::string plan = fmt::format("{}", fmt::join(m.plan, "; "));  // one CSV field: quoted, quotes doubled
  for (size_t i = plan.find('"'); i != std::string::npos; i = plan.find('"', i + 2)) plan.insert(i, 1, '"');
  out << fmt::format("{},{},{},{},{:.0f},{},{},{},{},{},{},{},{},{:.6f},{:.6e},{:.6e},{},{:.4g},{:.4f},{:.4f},{:.0f},{},{},\"{}\"\n",
                     c.path, c.grid.nx, c.grid.ny, c.grid.nz, cells, m.nbx, m.nby, m.scheduler, m.cpu_workers,
                     m.cuda_workers, m.ranks, m.steps, m.steps_completed, m.wall_seconds,
                     m.cell_updates_per_second > 0 ? cells / m.cell_updates_per_second : 0.0,
                     m.cell_updates_per_second, p.tasks(), m.tasks_per_iteration, p.idle_fraction("cpu"),
                     p.idle_fraction("cuda"), p.bytes_transferred(), p.compute_tasks("cpu"), p.compute_tasks("cuda"),
                     plan);
  if (!out) throw std::runtime_error(fmt::format("{}: writing the run summary failed", path));
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
