#include "io/ondes3d/ondes3d_velocity_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/case_error.hpp"
#include "io/ondes3d/legacy_tokens.hpp"
#include "io/ondes3d/ondes3d_geology.hpp"
#include "io/ondes3d/ondes3d_prm.hpp"
#include "io/ondes3d/ondes3d_values.hpp"

namespace ondes {
namespace {

// Samples a and b = a + 1 (b = a outside the samples) and the weight of b, as ondes3D_main.c finds
// them: the interval [c[a], c[a + 1]) holding x. A point on the last sample takes it (the GPU code
// leaves the previous point's interval there).
struct Bracket {
  int a = 0, b = 0;
  double w = 0;
};
Bracket bracket(const std::vector<double>& c, double x) {
  const int n = static_cast<int>(c.size());
  if (x < c.front()) return {0, 0, 0.0};
  if (x >= c.back()) return {n - 1, n - 1, 0.0};
  const int a = static_cast<int>(std::upper_bound(c.begin(), c.end(), x) - c.begin()) - 1;
  return {a, a + 1, (x - c[a]) / (c[a + 1] - c[a])};
}

struct Samples {
  std::vector<double> x, y, z;  // km, ascending
  std::vector<float> vp, vs, rho;  // km/s, g/cm3; [k][j][i]
};

Samples read_samples(const VelocityModelFile& f) {
  LegacyTokens in(f.path, "Ondes3D 3D velocity model (MODEL_FILE)");
  Samples s;
  s.x.resize(f.imax), s.y.resize(f.jmax), s.z.resize(f.kmax);
  const size_t n = size_t(f.imax) * f.jmax * f.kmax;
  s.vp.resize(n), s.vs.resize(n), s.rho.resize(n);
  size_t q = 0;
  for (int k = 0; k < f.kmax; ++k)
    for (int j = 0; j < f.jmax; ++j)
      for (int i = 0; i < f.imax; ++i, ++q) {
        const std::string at = in.where();
        const double x = in.number("x (km)"), y = in.number("y (km)"), z = in.number("z (km, depth)");
        const double vp = in.number("vp (km/s)"), vs = in.number("vs (km/s)"), rho = in.number("rho (g/cm3)");
        // A positive bulk modulus (the GPU code takes lambda = rho vp^2 - 2 mu, negative where vs > vp / sqrt(2)).
        if (!(vp > 0 && vs > 0 && rho > 0 && vs < vp * std::sqrt(3.0) / 2))
          throw CaseError(fmt::format("{} (Ondes3D 3D velocity model): sample ({}, {}, {}): vp {}, vs {}, rho {} must be "
                                      "positive with vs < vp sqrt(3) / 2",
                                      at, i + 1, j + 1, k + 1, vp, vs, rho));
        if (k == 0 && j == 0) s.x[i] = x;
        if (k == 0 && i == 0) s.y[j] = y;
        if (j == 0 && i == 0) s.z[k] = z;
        s.vp[q] = float(vp), s.vs[q] = float(vs), s.rho[q] = float(rho);
      }
  if (!in.done())
    in.fail(fmt::format("more values after the IMAX x JMAX x KMAX = {} x {} x {} samples", f.imax, f.jmax, f.kmax));
  const auto ascending = [&](const std::vector<double>& c, const char* axis, const char* dims) {
    for (size_t a = 1; a < c.size(); ++a)
      if (!(c[a] > c[a - 1]))
        throw CaseError(fmt::format("{} (Ondes3D 3D velocity model): its {} coordinates are not increasing ({} then {}): "
                                    "is {} right?",
                                    f.path, axis, c[a - 1], c[a], dims));
  };
  ascending(s.x, "x", "IMAX"), ascending(s.y, "y", "JMAX"), ascending(s.z, "z", "KMAX");
  return s;
}

}  // namespace

std::shared_ptr<const Model3D> read_velocity_model(const VelocityModelFile& f, const GpuDomain& d, const Grid& g) {
  const Samples s = read_samples(f);
  auto m = std::make_shared<Model3D>();
  m->path = f.path;
  m->nearest = true;  // one sample per cell, its own
  m->nx = g.nx, m->ny = g.ny, m->nz = g.nz;
  m->spacing = {g.h, g.h, g.h};
  const double theta = f.theta * M_PI / 180.0, km = d.ds / 1000.0;
  // Per column (our x, y: its j, i) the horizontal brackets, per level (our z: its k) the vertical one.
  std::vector<std::pair<Bracket, Bracket>> columns(size_t(g.nx) * g.ny);
  for (int y = 0; y < g.ny; ++y)
    for (int x = 0; x < g.nx; ++x) {
      const int i = std::clamp(y + d.i_of_y0, d.xmin, d.xmax), j = std::clamp(x + d.j_of_x0, d.ymin, d.ymax);
      const double xd = (i - 1) * km - f.x0, yd = (j - 1) * km - f.y0;
      columns[size_t(y) * g.nx + x] = {bracket(s.x, xd * std::cos(theta) - yd * std::sin(theta)),
                                       bracket(s.y, xd * std::sin(theta) + yd * std::cos(theta))};
    }
  const size_t n = size_t(g.nx) * g.ny * g.nz, plane = size_t(f.imax) * f.jmax;
  m->vp.resize(n), m->vs.resize(n), m->rho.resize(n);
  for (int z = 0; z < g.nz; ++z) {
    const int k = std::clamp(1 - z, d.zmin, 1);
    const Bracket bz = bracket(s.z, -((k - 1) * km));
    for (size_t c = 0; c < columns.size(); ++c) {
      const Bracket &bx = columns[c].first, &by = columns[c].second;
      const auto value = [&](const std::vector<float>& v) {
        double sum = 0;
        for (int dk = 0; dk < 2; ++dk)
          for (int dj = 0; dj < 2; ++dj)
            for (int di = 0; di < 2; ++di) {
              const double w = (di ? bx.w : 1 - bx.w) * (dj ? by.w : 1 - by.w) * (dk ? bz.w : 1 - bz.w);
              if (w != 0)
                sum += w * v[(dk ? bz.b : bz.a) * plane + size_t(dj ? by.b : by.a) * f.imax + (di ? bx.b : bx.a)];
            }
        return float(1000.0 * sum);
      };
      const size_t q = size_t(z) * columns.size() + c;
      m->vp[q] = value(s.vp), m->vs[q] = value(s.vs), m->rho[q] = value(s.rho);
    }
  }
  set_extremes(*m);
  return m;
}

// MODEL_TYPE = 3D with MODEL_FILE: the GPU Ondes3D's 3D model (its layers are then not read).
bool read_key_value_model(const PrmValues& v, PrmFiles& files, Case& c, std::vector<Provenance>& where) {
  if (!v.has("MODEL_TYPE") || v.text("MODEL_TYPE", "1D or 3D") != "3D" || !v.has("MODEL_FILE")) return false;
  VelocityModelFile f;
  f.path = files.find(v.text("MODEL_FILE", "the 3D velocity model"), v.origin("MODEL_FILE"));
  f.imax = v.integer("IMAX", "the model's samples along its x", 1, 100000);
  f.jmax = v.integer("JMAX", "the model's samples along its y", 1, 100000);
  f.kmax = v.integer("KMAX", "the model's samples along its z (depth)", 1, 100000);
  f.theta = v.number("THETA", "the model's rotation about X0, Y0 (degrees)", -360, 360);
  f.x0 = v.number("X0", "the model's origin along x (km)", -1e6, 1e6);
  f.y0 = v.number("Y0", "the model's origin along y (km)", -1e6, 1e6);
  GpuDomain d;
  d.xmin = v.integer("XMIN", "", -1000000, 1000000), d.xmax = v.integer("XMAX", "", -1000000, 1000000);
  d.ymin = v.integer("YMIN", "", -1000000, 1000000), d.ymax = v.integer("YMAX", "", -1000000, 1000000);
  d.zmin = v.integer("ZMIN", "", -1000000, 1000000);
  d.ds = c.grid.h;
  d.i_of_y0 = d.xmin - kDelta, d.j_of_x0 = d.ymin - kDelta;  // key_value_geometry's offsets
  c.medium.model = read_velocity_model(f, d, c.grid);
  where.push_back({"medium.model", v.origin("MODEL_FILE") + ", IMAX, JMAX, KMAX, THETA, X0, Y0: the GPU Ondes3D's "
                                   "3D model, a sample per cell"});
  return true;
}

}  // namespace ondes
