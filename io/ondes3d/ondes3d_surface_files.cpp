#include "io/ondes3d/ondes3d_surface_files.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

#include "core/case_error.hpp"
#include "core/plane_layout.hpp"
#include "io/results/partial_file.hpp"
#include "io/results/seismo_export.hpp"
#include "io/results/snapshot_file.hpp"

namespace ondes {
namespace {

enum File { kXY, kXZ, kYZ };
constexpr const char* kNames[3] = {"surfacexy", "surfacexz", "surfaceyz"};

// Its index i of the yz file's plane: i0 (velocity), j0 (displacement: main.c's Uyz takes
// i2imp_array[OUT.j0]).
int yz_i(const Ondes3dSurfaceFiles& o, bool displacement) { return displacement ? o.at[1] : o.at[0]; }

// Its k of the xy file's vx: k0, or for the displacement where its surface is FREE, 1 (main.c's Uxy).
int xy_k(const Ondes3dSurfaceFiles& o, bool displacement) { return displacement ? o.displacement_k : o.at[2]; }

// Our plane {axis, index} holding its component c (0 vx, 1 vy, 2 vz) of file f: its vx lies half a
// cell west (our y - 1), its vz half a cell below (our z + 1) of its node.
std::array<int, 2> our_plane(const Ondes3dSurfaceFiles& o, File f, int c, bool displacement) {
  if (f == kXY) return {2, o.origin[2] - xy_k(o, displacement)};  // vx, vy at k0, vz at k0 - 1: one plane
  if (f == kXZ) return {0, o.at[1] - o.origin[0]};
  return {1, yz_i(o, displacement) - o.origin[1] - (c == 0)};
}

int find_plane(const SnapshotOptions& s, std::array<int, 2> p, bool displacement) {
  for (size_t q = 0; q < s.planes.size(); ++q)
    if (s.planes[q].axis == p[0] && s.planes[q].index == p[1] && s.planes[q].displacement == displacement)
      return static_cast<int>(q);
  return -1;
}

int axis_size(const Grid& g, int axis) { return axis == 0 ? g.nx : axis == 1 ? g.ny : g.nz; }

std::string file_name(File f, bool displacement) {
  return fmt::format("{}{}", kNames[f], displacement ? "disp" : "vel");
}

// Our velocity component (x north, y east, z down) of its c, and its sign.
constexpr int kOurs[3] = {1, 0, 2};
constexpr float kSign[3] = {1.0f, 1.0f, -1.0f};

// Its value of component q at its node (i, j, k) from our plane `plane` of the frame, or from the
// hidden plane `above` the surface (our z = -1: the velocities Ondes3D extrapolates there, which it
// writes in its xz and yz files), or 0 (its LIMIT cells, and what it leaves at 0 above the surface).
float its_value(const Case& c, int plane, int above, const std::vector<std::vector<float>>& frame, int q, int i, int j,
                int k) {
  const Grid& g = c.grid;
  const Ondes3dSurfaceFiles& o = c.snapshots.ondes3d;
  const int a = j - o.origin[0], b = i - o.origin[1] - (q == 0), z = o.origin[2] - k - (q == 2);
  if (z == -1) plane = above;
  if (plane < 0 || a < 0 || a >= g.nx || b < 0 || b >= g.ny || z < -1 || z >= g.nz) return 0.0f;
  const PlaneSpec& p = c.snapshots.planes[plane];
  const BlockShape whole{g.nx, g.ny, g.nz};
  const int n1 = plane_n1(whole, p.axis), n2 = plane_n2(whole, p.axis);
  const int p1 = p.axis == 0 ? b : a, p2 = p.axis == 2 ? b : z;
  return kSign[q] * frame[plane][(size_t(kOurs[q]) * n2 + p2) * n1 + p1];
}

void put_big_endian(std::string& out, float v) {
  unsigned char b[4];
  std::memcpy(b, &v, 4);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::swap(b[0], b[3]), std::swap(b[1], b[2]);
#endif
  out.append(reinterpret_cast<const char*>(b), 4);
}

void write_file(const Case& c, File f, bool displacement, int step, const std::vector<std::vector<float>>& planes) {
  const Ondes3dSurfaceFiles& o = c.snapshots.ondes3d;
  int plane[3];
  for (int q = 0; q < 3; ++q) plane[q] = find_plane(c.snapshots, our_plane(o, f, q, displacement), displacement);
  if (plane[0] < 0 && plane[1] < 0 && plane[2] < 0) return;  // outside the grid (add_ondes3d_planes warned)
  const int above = find_plane(c.snapshots, {2, -1}, displacement);  // -1 without a free surface
  // Its fast and slow axes: xy (i, j), xz (i, k), yz (j, k); k up to 2.
  const int lo_f = f == kYZ ? o.lo[1] : o.lo[0], hi_f = f == kYZ ? o.hi[1] : o.hi[0];
  const int lo_s = f == kXY ? o.lo[1] : o.lo[2], hi_s = f == kXY ? o.hi[1] : 2;
  const int nf = hi_f - lo_f + 1, ns = hi_s - lo_s + 1;
  const double ds = c.grid.h;
  const int dims[3] = {f == kYZ ? 1 : nf, f == kXY ? ns : f == kYZ ? nf : 1, f == kXY ? 1 : ns};
  const double origin[3] = {f == kYZ ? o.at[0] * ds : (o.lo[0] - 1) * ds, f == kXZ ? o.at[1] * ds : (o.lo[1] - 1) * ds,
                            f == kXY ? 0.0 : (o.lo[2] - 1) * ds};
  std::string text = fmt::format(
      "# vtk DataFile Version 3.0\nV\nBINARY\nDATASET STRUCTURED_POINTS\nDIMENSIONS {} {} {}\nORIGIN {:f} {:f} {:f}\n"
      "SPACING {:f} {:f} {:f}\nPOINT_DATA {}\nSCALARS V float 3\nLOOKUP_TABLE default\n",
      dims[0], dims[1], dims[2], origin[0], origin[1], origin[2], ds, ds, ds, nf * ns);
  text.reserve(text.size() + size_t(12) * nf * ns);
  for (int s = lo_s; s <= hi_s; ++s)
    for (int r = lo_f; r <= hi_f; ++r)
      for (int q = 0; q < 3; ++q) {
        const int i = f == kYZ ? yz_i(o, displacement) : r, j = f == kXY ? s : f == kXZ ? o.at[1] : r;
        const int k = f == kXY ? xy_k(o, displacement) - (q == 2) : s;
        put_big_endian(text, its_value(c, plane[q], above, planes, q, i, j, k));
      }
  const std::string path =
      (std::filesystem::path(ondes3d_surface_dir(c)) / fmt::format("{}{:04d}00.vtk", file_name(f, displacement), step))
          .string();
  write_through(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary);
    out.write(text.data(), std::streamsize(text.size()));
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write Ondes3D's surface file", path));
  });
}

}  // namespace

void add_ondes3d_planes(Case& c, bool velocity, bool displacement) {
  const Ondes3dSurfaceFiles& o = c.snapshots.ondes3d;
  const bool above = c.boundaries.free_surface && c.boundaries.surface == SurfaceScheme::Ondes3d;
  for (bool d : {false, true}) {
    if (d ? !displacement : !velocity) continue;
    if (above) c.snapshots.planes.push_back({2, -1, "above the free surface (Ondes3D's xz and yz files)", d, true});
    for (File f : {kXY, kXZ, kYZ}) {
      bool any = false;
      for (int q = 0; q < 3; ++q) {
        const std::array<int, 2> p = our_plane(o, f, q, d);
        if (p[1] < 0 || p[1] >= axis_size(c.grid, p[0])) continue;
        any = true;
        if (find_plane(c.snapshots, p, d) < 0)
          c.snapshots.planes.push_back(
              {p[0], p[1], fmt::format("{}={} (Ondes3D's {})", "xyz"[p[0]], p[1] * c.grid.h, file_name(f, d)), d});
      }
      if (!any)
        spdlog::warn("{}: Ondes3D's {} plane (<i0> {}, <j0> {}, <k0> {}) lies outside the computed grid: not written",
                     c.path, file_name(f, d), o.at[0], o.at[1], o.at[2]);
    }
  }
}

std::string ondes3d_surface_dir(const Case& c) {
  return c.snapshots.ondes3d.dir.empty() ? ondes3d_text_dir(c) : c.snapshots.ondes3d.dir;
}

void check_ondes3d_surface_dir(const Case& c) {
  const std::string dir = ondes3d_surface_dir(c);
  if (c.snapshots.every > 0 && c.snapshots.ondes3d.on && std::filesystem::is_directory(dir) && access(dir.c_str(), W_OK) != 0)
    throw CaseError(fmt::format("{}: {} is not writable: Ondes3D's surface files (<i0> <j0> <k0>) go there (--output "
                                "puts them beside the output)",
                                c.path, dir));
}

void write_ondes3d_surfaces(const Case& c, int iteration, const std::vector<std::vector<float>>& planes) {
  if (!c.snapshots.ondes3d.on) return;
  std::error_code ec;
  std::filesystem::create_directories(ondes3d_surface_dir(c), ec);
  for (bool d : {false, true})
    if (std::any_of(c.snapshots.planes.begin(), c.snapshots.planes.end(), [d](const PlaneSpec& p) { return p.displacement == d; }))
      for (File f : {kXY, kXZ, kYZ}) write_file(c, f, d, iteration + 1, planes);
}

}  // namespace ondes
