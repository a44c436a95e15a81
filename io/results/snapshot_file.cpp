#include "io/results/snapshot_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/plane_layout.hpp"
#include "io/results/h5util.hpp"
#include "io/results/partial_file.hpp"

namespace ondes {
namespace {

using h5::check;
using h5::Id;

hid_t group(hid_t parent, const std::string& name) {
  if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) > 0) return H5Gopen2(parent, name.c_str(), H5P_DEFAULT);
  return H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

// A plane's datasets: its three components and their norm.
std::array<const char*, 4> datasets(const PlaneSpec& p) {
  if (p.displacement) return {"ux", "uy", "uz", "norm"};
  return {"vx", "vy", "vz", "norm"};
}

void write_array(hid_t where, const char* name, const int dims[3], const float* data, const char* units = "m/s") {
  const hsize_t d[3] = {hsize_t(dims[0]), hsize_t(dims[1]), hsize_t(dims[2])};
  Id space{H5Screate_simple(3, d, nullptr), H5Sclose};
  Id ds{H5Dcreate2(where, name, H5T_IEEE_F32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  check(H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
  h5::attr_string(ds, "units", units);
}

std::string frame_name(int iteration) { return fmt::format("{:08d}", iteration); }

// XDMF's 3DCoRectMesh lists dimensions, origin and spacing slowest axis first: z y x.
std::string topology(const int dims[3], double oz, double oy, double ox, double h) {
  return fmt::format(
      "<Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{} {} {}\"/>\n"
      "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
      "        <DataItem Format=\"XML\" Dimensions=\"3\">{} {} {}</DataItem>\n"
      "        <DataItem Format=\"XML\" Dimensions=\"3\">{} {} {}</DataItem>\n"
      "      </Geometry>\n",
      dims[0], dims[1], dims[2], oz, oy, ox, h, h, h);
}

std::string attribute(const std::string& name, const int dims[3], const std::string& file, const std::string& path) {
  return fmt::format(
      "      <Attribute Name=\"{}\" AttributeType=\"Scalar\" Center=\"Node\">\n"
      "        <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"4\" Dimensions=\"{} {} {}\">{}:{}</DataItem>\n"
      "      </Attribute>\n",
      name, dims[0], dims[1], dims[2], file, path);
}

}  // namespace

PlaneExtent plane_extent(const Grid& g, const PlaneSpec& p) {
  PlaneExtent e;
  const BlockShape whole{g.nx, g.ny, g.nz};  // the grid as one block: the same plane layout
  e.n1 = plane_n1(whole, p.axis);
  e.n2 = plane_n2(whole, p.axis);
  e.dims[0] = p.axis == 2 ? 1 : g.nz;
  e.dims[1] = p.axis == 1 ? 1 : g.ny;
  e.dims[2] = p.axis == 0 ? 1 : g.nx;
  return e;
}

std::string snapshot_path(const Case& c) {
  if (!c.snapshots.file.empty()) return c.snapshots.file;
  return std::filesystem::path(c.output).replace_extension().string() + "_snapshots.h5";
}

std::string plane_group(const PlaneSpec& p) {
  return fmt::format("{}{}{}", "xyz"[p.axis], p.index, p.displacement ? "_displacement" : "");
}

SnapshotWriter::SnapshotWriter(const std::string& path, const Case& c)
    : case_(c), path_(path), h5_(path), xdmf_(std::filesystem::path(path).replace_extension(".xdmf").string()),
      frames_(c.snapshots.planes.size()) {
  file_ = H5Fcreate(h5_.tmp().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file_ < 0) throw std::runtime_error(fmt::format("{}: cannot create the snapshot file", path_));
  h5::attr_string(file_, "case_path", c.path);
  h5::attr_double(file_, "h", c.grid.h);
  h5::attr_double(file_, "dt", c.time.dt);
  h5::attr_string(file_, "axes", "x north, y east, z down (metres); values at each component's staggered point");
}

SnapshotWriter::~SnapshotWriter() {
  if (file_ < 0) return;
  H5Fclose(file_);  // not closed: an error happened; the partial files go
}

void SnapshotWriter::write_frame(size_t plane, int iteration, const std::vector<float>& data) {
  const PlaneSpec& p = case_.snapshots.planes[plane];
  if (p.hidden) return;
  const PlaneExtent e = plane_extent(case_.grid, p);
  const size_t n = size_t(e.n1) * e.n2;
  Id g{group(file_, plane_group(p)), H5Gclose};
  Id f{H5Gcreate2(g, frame_name(iteration).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose};
  if (f < 0) throw std::runtime_error(fmt::format("{}: cannot write frame {} of {}", path_, iteration, p.name));
  h5::attr_double(f, "time", (iteration + 0.5) * case_.time.dt);  // velocity lives at half steps
  h5::attr_int(f, "iteration", iteration);
  std::vector<float> norm(n);
  for (size_t q = 0; q < n; ++q) {
    const float x = data[q], y = data[n + q], z = data[2 * n + q];
    norm[q] = std::sqrt(x * x + y * y + z * z);
  }
  const auto names = datasets(p);
  const char* units = p.displacement ? "m" : "m/s";
  for (int c = 0; c < 3; ++c) write_array(f, names[c], e.dims, data.data() + c * n, units);
  write_array(f, names[3], e.dims, norm.data(), units);
  frames_[plane].push_back(iteration);
}

void SnapshotWriter::write_pgv(const std::vector<float>& pgv) {
  const Grid& g = case_.grid;
  const int dims[3] = {1, g.ny, g.nx};
  Id grp{group(file_, "pgv"), H5Gclose};
  write_array(grp, "horizontal", dims, pgv.data());
  write_array(grp, "norm", dims, pgv.data() + size_t(g.nx) * g.ny);
  pgv_ = true;
}

namespace {
double double_attr(hid_t obj, const char* name) {
  double v = std::nan("");
  if (H5Aexists(obj, name) > 0) {
    Id a{H5Aopen(obj, name, H5P_DEFAULT), H5Aclose};
    if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0) v = std::nan("");
  }
  return v;
}

// The frames (iterations, ascending) of a plane's group: its members are named by iteration.
std::vector<int> frames_in(hid_t g) {
  std::vector<int> its;
  H5G_info_t info{};
  if (H5Gget_info(g, &info) < 0) return its;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    char name[64] = {};
    if (H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof(name), H5P_DEFAULT) < 0) continue;
    char* end = nullptr;
    const long it = std::strtol(name, &end, 10);
    if (end != name && *end == '\0' && frame_name(static_cast<int>(it)) == name) its.push_back(static_cast<int>(it));
  }
  std::sort(its.begin(), its.end());
  return its;
}

// Whether a frame group holds the plane this case writes (its arrays' shape).
bool frame_fits(hid_t frame, const PlaneSpec& p, const PlaneExtent& e) {
  const char* first = datasets(p)[0];
  if (H5Lexists(frame, first, H5P_DEFAULT) <= 0) return false;
  Id ds{H5Dopen2(frame, first, H5P_DEFAULT), H5Dclose};
  Id space{H5Dget_space(ds), H5Sclose};
  hsize_t d[3] = {0, 0, 0};
  return H5Sget_simple_extent_ndims(space) == 3 && H5Sget_simple_extent_dims(space, d, nullptr) == 3 &&
         d[0] == hsize_t(e.dims[0]) && d[1] == hsize_t(e.dims[1]) && d[2] == hsize_t(e.dims[2]);
}
}  // namespace

namespace {
// The frames of one file (see earlier_frames).
std::vector<EarlierFrame> frames_of(const std::string& file, const Case& c, int done) {
  std::vector<EarlierFrame> out;
  std::error_code ec;
  if (file.empty() || !std::filesystem::is_regular_file(file, ec) || H5Fis_hdf5(file.c_str()) <= 0) return out;
  Id src{H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  if (src < 0 || double_attr(src, "h") != c.grid.h || double_attr(src, "dt") != c.time.dt) return out;
  for (size_t p = 0; p < c.snapshots.planes.size(); ++p) {
    if (c.snapshots.planes[p].hidden) continue;
    const std::string name = plane_group(c.snapshots.planes[p]);
    if (H5Lexists(src, name.c_str(), H5P_DEFAULT) <= 0) continue;
    Id from{H5Gopen2(src, name.c_str(), H5P_DEFAULT), H5Gclose};
    const PlaneExtent e = plane_extent(c.grid, c.snapshots.planes[p]);
    for (int it : frames_in(from)) {
      if (it >= done) break;  // the restarted run makes those itself
      Id frame{H5Gopen2(from, frame_name(it).c_str(), H5P_DEFAULT), H5Gclose};
      if (frame_fits(frame, c.snapshots.planes[p], e)) out.push_back({p, it});
    }
  }
  return out;
}
}  // namespace

EarlierFrames earlier_frames(const std::string& named, const Case& c, int done) {
  for (const std::string& f : {named, snapshot_path(c)})
    if (std::vector<EarlierFrame> frames = frames_of(f, c, done); !frames.empty()) return {f, std::move(frames)};
  return {};
}

std::string no_earlier_frames(const std::string& named, const Case& c, int done) {
  const std::string own = snapshot_path(c);
  return fmt::format("no snapshot frames before iteration {} found (looked in {}): {} will hold those from the restart on",
                     done, named.empty() || named == own ? own : named + " and " + own, own);
}

void SnapshotWriter::carry_frames(const EarlierFrames& earlier) {
  if (earlier.frames.empty()) return;
  Id src{H5Fopen(earlier.file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  if (src < 0) throw std::runtime_error(fmt::format("{}: cannot open to copy its frames", earlier.file));
  for (const EarlierFrame& f : earlier.frames) {
    const std::string plane = plane_group(case_.snapshots.planes[f.plane]), name = frame_name(f.iteration);
    Id from{H5Gopen2(src, plane.c_str(), H5P_DEFAULT), H5Gclose};
    Id to{group(file_, plane), H5Gclose};
    check(H5Ocopy(from, name.c_str(), to, name.c_str(), H5P_DEFAULT, H5P_DEFAULT), "copying an earlier frame");
    frames_[f.plane].push_back(f.iteration);
  }
}

std::string SnapshotWriter::xdmf_text() const {
  const std::string file = std::filesystem::path(path_).filename().string();
  const double h = case_.grid.h;
  std::string grids;
  for (size_t p = 0; p < frames_.size(); ++p) {
    const PlaneSpec& spec = case_.snapshots.planes[p];
    if (spec.hidden) continue;
    const PlaneExtent e = plane_extent(case_.grid, spec);
    const double at = spec.index * h;
    const double oz = spec.axis == 2 ? at : 0, oy = spec.axis == 1 ? at : 0, ox = spec.axis == 0 ? at : 0;
    grids += fmt::format("  <Grid Name=\"{}\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", spec.name);
    for (int it : frames_[p]) {
      const std::string base = "/" + plane_group(spec) + "/" + frame_name(it) + "/";
      grids += fmt::format("    <Grid Name=\"{} it {}\" GridType=\"Uniform\">\n      <Time Value=\"{:.9g}\"/>\n      ",
                           spec.name, it, (it + 0.5) * case_.time.dt);
      grids += topology(e.dims, oz, oy, ox, h);
      for (const char* a : datasets(spec)) grids += attribute(a, e.dims, file, base + a);
      grids += "    </Grid>\n";
    }
    grids += "  </Grid>\n";
  }
  if (pgv_) {
    const int dims[3] = {1, case_.grid.ny, case_.grid.nx};
    grids += "  <Grid Name=\"pgv\" GridType=\"Uniform\">\n      ";
    grids += topology(dims, 0, 0, 0, h);
    grids += attribute("pgv_horizontal", dims, file, "/pgv/horizontal");
    grids += attribute("pgv_norm", dims, file, "/pgv/norm");
    grids += "  </Grid>\n";
  }
  return "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n <Domain>\n" + grids +
         " </Domain>\n</Xdmf>\n";
}

void SnapshotWriter::close() {
  if (file_ < 0) return;
  check(H5Fclose(file_), "closing the snapshot file");
  file_ = -1;
  h5_.commit();
  {
    std::ofstream out(xdmf_.tmp());
    out << xdmf_text();
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write the XDMF file", xdmf_.path()));
  }
  xdmf_.commit();
}

}  // namespace ondes
