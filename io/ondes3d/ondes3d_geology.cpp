#include "io/ondes3d/ondes3d_geology.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "core/case_error.hpp"
#include "io/ondes3d/legacy_tokens.hpp"
#include "io/results/model_reader.hpp"

namespace ondes {

namespace {
// The cell index ranges both dialects give (keys in the order xmin xmax ymin ymax zmin).
std::array<int, 5> index_ranges(const PrmValues& v, const std::array<const char*, 5>& keys, int surface) {
  std::array<int, 5> r{};
  r[0] = v.integer(keys[0], "the first cell index along x (east)", -1000000, 1000000);
  r[1] = v.integer(keys[1], "the last cell index along x", r[0] + 4, 1000000);
  r[2] = v.integer(keys[2], "the first cell index along y (north)", -1000000, 1000000);
  r[3] = v.integer(keys[3], "the last cell index along y", r[2] + 4, 1000000);
  r[4] = v.integer(keys[4], fmt::format("the lowest cell index along z (up; the surface is {})", surface), -1000000, -3);
  return r;
}

}  // namespace

// A geological model (<fgeo>): Ondes3D's cells 1..MAX along each axis hold a material each, the C-PML
// around them on the sides and below and nothing above <zMax> (its top is vacuum, "out", over the
// topography). Positions are absolute: cell (i, j, k) at (x0 + (i - 1) ds, y0 + (j - 1) ds, z0 + (k - 1) ds).
Geometry geological_geometry(const PrmValues& v, double ds, std::vector<Provenance>& where) {
  for (const char* k : {"xMin", "yMin", "zMin"})
    if (v.integer(k, "1 with a geological model", -1000000, 1000000) != 1)
      v.fail(k, "must be 1 with a geological model (IO.c refuses anything else)", "the model's first cell");
  Geometry g;
  g.cells = {v.integer("xMax", "the model's cells along x (east)", 5, 1000000),
             v.integer("yMax", "the model's cells along y (north)", 5, 1000000),
             v.integer("zMax", "the model's cells along z (up)", 5, 1000000)};
  g.origin = {v.number("x0", "the model's origin along x (m)", -1e12, 1e12),
              v.number("y0", "the model's origin along y (m)", -1e12, 1e12),
              v.number("z0", "the model's origin along z (m, up)", -1e12, 1e12)};
  const auto [xmax, ymax, zmax] = g.cells;
  g.nx = ymax + 2 * kDelta - 2, g.ny = xmax + 2 * kDelta - 2, g.nz = zmax + kDelta - 2;
  g.ranges = {1, xmax, 1, ymax, 1};
  g.y_min = 1, g.z_low = 1 - kDelta, g.levels = (zmax + 2) - g.z_low + 1;  // IO.c: ZMAX0 = zMax + 2
  g.indices = {2 - kDelta + 1, 2 - kDelta, zmax};  // its node (i, j, k) at (y, x) = (j + 7, i + 8) h, z = (zmax - k) h
  g.offset = {-g.origin[1] + (kDelta - 2) * ds, -g.origin[0] + (kDelta - 1.5) * ds, g.origin[2] + (zmax - 1) * ds};
  // Sources in cells [xMin + 2, xMax] (index i from (x - x0) / ds + 1), stations within
  // [xMin ds, xMax ds] of the origin, xMin = 1 (the cells on the model's outer edge are not kept).
  const auto [x0, y0, z0] = g.origin;
  g.sources.lo = {x0 + 2 * ds, y0 + 2 * ds, z0 + 2 * ds};
  g.sources.hi = {x0 + xmax * ds, y0 + ymax * ds, z0 + zmax * ds};
  g.stations.lo = {x0 + ds, y0 + ds, -std::numeric_limits<double>::infinity()};
  g.stations.hi = {x0 + xmax * ds, y0 + ymax * ds, std::numeric_limits<double>::infinity()};
  g.stations.closed = true;
  where.push_back({"grid.nx", v.origin("yMax") + " + a 10-cell C-PML each side: y (north) is x here"});
  where.push_back({"grid.ny", v.origin("xMax") + " + a 10-cell C-PML each side: x (east) is y here"});
  where.push_back({"grid.nz", v.origin("zMax") + " + a 10-cell C-PML below; vacuum over the ground"});
  where.push_back({"boundaries.free_surface", v.origin("fgeo") + ": the top plane is the model's (vacuum)"});
  return g;
}

Geology read_geology(const std::string& file, const Geometry& g, double ds, const std::vector<std::string>& names) {
  LegacyTokens in(file, "Ondes3D geological model");
  Geology geo;
  geo.nx = g.cells[0], geo.ny = g.cells[1], geo.nz = g.cells[2];
  int dims[3];
  for (int a = 0; a < 3; ++a) {
    in.word(fmt::format("the label of n{}", "xyz"[a]));
    dims[a] = static_cast<int>(in.integer(fmt::format("n{}", "xyz"[a]), 1, 1000000));
  }
  if (dims[0] != geo.nx || dims[1] != geo.ny || dims[2] > geo.nz)
    in.fail(fmt::format("the model is {} x {} x {} cells but the parameter file asks for {} x {} and at most {} in z "
                        "(<xMax> <yMax> <zMax>)",
                        dims[0], dims[1], dims[2], geo.nx, geo.ny, geo.nz));
  double header[6];
  for (int a = 0; a < 6; ++a) {
    const char* what[6] = {"x0", "y0", "z0", "dx", "dy", "dz"};
    in.word(fmt::format("the label of {}", what[a]));
    header[a] = in.number(what[a]);
  }
  if (std::abs(header[3] - ds) > 1e-6 || header[3] != header[4] || header[4] != header[5])
    in.fail(fmt::format("dx, dy, dz = {}, {}, {} must all equal <ds> = {}", header[3], header[4], header[5], ds));
  in.word("a label"), in.word("its value");
  geo.material.assign(size_t(geo.nx) * geo.ny * geo.nz, 0);  // above the model: vacuum (layer 1)
  for (int k = 1; k <= dims[2]; ++k)
    for (int j = 1; j <= geo.ny; ++j)
      for (int i = 1; i <= geo.nx; ++i) {
        const std::string at = in.where();
        const std::string name = in.word(fmt::format("the material of cell ({}, {}, {})", i, j, k));
        const auto it = std::find(names.begin(), names.end(), name);
        if (it == names.end())
          throw CaseError(fmt::format("{} (Ondes3D geological model): cell ({}, {}, {}) is '{}', which no <layerN> "
                                      "<name> is",
                                      at, i, j, k, name));
        geo.material[geo.index(i, j, k)] = static_cast<int16_t>(it - names.begin());
      }
  if (!in.done()) in.fail("more values after the last cell");
  if (dims[2] < geo.nz)  // IO.c ReadGeoFile's "add air/void above" starts at the file's last level
    std::fill_n(geo.material.begin() + geo.index(1, 1, dims[2]), size_t(geo.nx) * geo.ny, int16_t(0));
  if (names.size() >= 2)
    for (int k = 1; k <= geo.nz; ++k)
      if (g.origin[2] + (k - 1) * ds < 0)
        for (size_t c = size_t(k - 1) * geo.nx * geo.ny, e = c + size_t(geo.nx) * geo.ny; c < e; ++c)
          if (geo.material[c] == 0) geo.material[c] = 1;
  return geo;
}

// The model in the project's axes: Ondes3D's nodes, one a grid cell (the node of cell (x, y, z)
// half a cell below it in y: the model's origin), each its material (materials do not mix). The
// C-PML's nodes and those on the model's outer two cells take the nearest node of
// [xMin + 2, xMax] x [yMin + 2, yMax] x [zMin + 2, zMax], as alloAndInit.c's "Extend to CPML" has
// them (the model's first two cells along each axis are C-PML in Ondes3D).
std::shared_ptr<const Model3D> geology_model(const Geology& geo, const std::vector<Layer>& layers, const Grid& g,
                                            const std::string& file) {
  auto m = std::make_shared<Model3D>();
  m->path = file;
  m->nearest = true;
  m->nx = g.nx, m->ny = g.ny, m->nz = g.nz;
  m->origin = {0.0, -0.5 * g.h, 0.0};
  m->spacing = {g.h, g.h, g.h};
  const size_t n = size_t(m->nx) * m->ny * m->nz;
  m->vp.resize(n), m->vs.resize(n), m->rho.resize(n);
  // Attenuating (Day and Bradley: every material has its Qp and Qs, as Ondes3D reads them): 1/Q.
  const bool attenuating = layers.front().qp > 0;
  if (attenuating) m->inv_qp.resize(n), m->inv_qs.resize(n);
  for (int kz = 0; kz < m->nz; ++kz)
    for (int y = 0; y < m->ny; ++y)
      for (int x = 0; x < m->nx; ++x) {  // ours x is its j, y its i (node i at y = i + DELTA - 2), z down
        const int i = std::clamp(y - kDelta + 2, 3, geo.nx), j = std::clamp(x - kDelta + 3, 3, geo.ny);
        const Layer& l = layers[geo.at(i, j, std::clamp(geo.nz - kz, 3, geo.nz))];
        const size_t q = (size_t(kz) * m->ny + y) * m->nx + x;
        m->vp[q] = float(l.vp), m->vs[q] = float(l.vs), m->rho[q] = float(l.rho);
        if (attenuating) m->inv_qp[q] = float(1 / l.qp), m->inv_qs[q] = float(1 / l.qs);
      }
  set_extremes(*m);
  return m;
}

Geometry tagged_geometry(const PrmValues& v, double ds, std::vector<Provenance>& where) {
  if (v.has("fgeo")) return geological_geometry(v, ds, where);
  const auto [xmin, xmax, ymin, ymax, zmin] = index_ranges(v, {"xMin", "xMax", "yMin", "yMax", "zMin"}, 1);
  Geometry g;
  // Computed cells (IO.c's WhereAmI): [MIN - DELTA + 2, MAX + DELTA], the C-PML DELTA of them each side.
  g.nx = ymax - ymin + 2 * kDelta - 1, g.ny = xmax - xmin + 2 * kDelta - 1;
  g.offset = {-(ymin - kDelta + 1) * ds, -(xmin - kDelta + 1.5) * ds, 0};
  // Sources in cells [MIN + 2, MAX] (index floor(x / ds) + 1; up to 2 above the surface, k <= 2);
  // stations within [MIN ds, MAX ds] (zMax = 0 with the free surface).
  g.sources.lo = {(xmin + 1) * ds, (ymin + 1) * ds, (zmin + 1) * ds};
  g.sources.hi = {xmax * ds, ymax * ds, 2 * ds};
  g.stations.lo = {xmin * ds, ymin * ds, zmin * ds};
  g.stations.hi = {xmax * ds, ymax * ds, 0};
  g.stations.closed = true;
  g.indices = {ymin - kDelta + 2, xmin - kDelta + 2, 1};  // the first computed cell, the surface's k
  g.ranges = {xmin, xmax, ymin, ymax, zmin};
  g.y_min = ymin, g.z_low = zmin - kDelta;
  // Ondes3D chooses the top at compile time (options.h: surface = FREE in its stock builds, when
  // <zMax> is read but unused); <surface>absorbing</surface>, a tag Ondes3D ignores, asks for the
  // absorbing top that its surface = ABSORBING builds compute up to zMax + DELTA.
  const std::string surface = v.has("surface") ? v.text("surface", "free or absorbing") : "free";
  if (surface == "absorbing") {
    const int zmax = v.integer("zMax", "the highest cell index along z (with an absorbing top)", zmin + 4, 1000000);
    g.free_surface = false;
    g.nz = zmax - zmin + 2 * kDelta - 1;
    g.offset[2] = (zmax + kDelta - 1) * ds;
    g.sources.hi[2] = zmax * ds;
    g.stations.hi[2] = zmax * ds;
    g.indices[2] = zmax + kDelta;
    g.levels = (zmax + kDelta + 2) - (zmin - kDelta) + 1;  // IO.c: ZMAX0 = zMax + DELTA + 2
    where.push_back({"boundaries.free_surface", v.origin("surface") + ", <zMax>: an absorbing top"});
  } else if (surface == "free") {  // the free surface at k = 1 (z = 0), the planes from zMin - DELTA + 2
    g.nz = kDelta - zmin;
    // One more cell west (core/case.hpp PmlProfile::Ondes3d): its vx there, held at zero beside.
    g.ny += 1;
    g.offset[1] += ds;
    g.indices[1] -= 1;
    g.levels = 2 - (zmin - kDelta) + 1;  // IO.c: ZMAX0 = 2
    where.push_back({"boundaries.free_surface", v.path() + ": Ondes3D's free surface (surface = FREE)"});
  } else {
    v.fail("surface", "= '" + surface + "' is neither free nor absorbing", "the top of the grid");
  }
  where.push_back({"grid.nx", v.origin("yMin") + ", <yMax> + a 10-cell C-PML each side: y (north) is x here"});
  where.push_back({"grid.ny", v.origin("xMin") + ", <xMax> + a 10-cell C-PML each side (+ 1 west under a free surface: "
                               "Ondes3D's west vx plane): x (east) is y here"});
  where.push_back({"grid.nz", v.origin("zMin") + " + a 10-cell C-PML below"});
  return g;
}

Geometry key_value_geometry(const PrmValues& v, double ds, std::vector<Provenance>& where) {
  const int ndim = v.integer("NDIM", "the order of the scheme", 4, 4);
  (void)ndim;
  // MODEL_TYPE = 3D reads MODEL_FILE as the GPU Ondes3D does (io/ondes3d/ondes3d_velocity_model.hpp); without
  // one, the layers run, as the StarPU port of Ondes3D runs them whatever MODEL_TYPE says.
  const std::string model = v.has("MODEL_TYPE") ? v.text("MODEL_TYPE", "1D or 3D") : "1D";
  if (model != "1D" && model != "3D") v.fail("MODEL_TYPE", "= " + model + " is neither 1D nor 3D", "the model's type");
  if (model == "3D" && !v.has("MODEL_FILE")) {
    spdlog::warn("{}: MODEL_TYPE = 3D without MODEL_FILE: the layers (LAYER_n) are run, as the StarPU port of "
                 "Ondes3D runs them",
                 v.origin("MODEL_TYPE"));
    where.push_back({"medium.model_type", v.origin("MODEL_TYPE") + " = 3D without MODEL_FILE: the layers run"});
  }
  const auto [xmin, xmax, ymin, ymax, zmin] = index_ranges(v, {"XMIN", "XMAX", "YMIN", "YMAX", "ZMIN"}, 0);
  Geometry g;
  // The StarPU port's arrays: MAX - MIN + 1 + 2 DELTA cells, index 0 at (MIN - DELTA - 1) ds (its
  // vx; the normal stresses half a cell further along x, as in the original).
  g.nx = ymax - ymin + 1 + 2 * kDelta, g.ny = xmax - xmin + 1 + 2 * kDelta, g.nz = 1 - zmin + kDelta;
  g.offset = {-(ymin - kDelta - 1) * ds, -(xmin - kDelta - 0.5) * ds, 0};
  // Its sources outside the C-PML (ondes3D-functs.c, read_sources_positions: index int(x / ds) + 1
  // - MIN + DELTA in [DELTA, MAX - MIN + DELTA]); stations kept as the original keeps them.
  g.sources.lo = {(xmin - 1) * ds, (ymin - 1) * ds, (zmin - 1) * ds};
  g.sources.hi = {xmax * ds, ymax * ds, ds};
  g.stations.lo = {xmin * ds, ymin * ds, zmin * ds};
  g.stations.hi = {xmax * ds, ymax * ds, 0};
  g.stations.closed = true;
  where.push_back({"grid.nx", v.origin("YMIN") + ", YMAX + a 10-cell C-PML each side: y (north) is x here"});
  where.push_back({"grid.ny", v.origin("XMIN") + ", XMAX + a 10-cell C-PML each side: x (east) is y here"});
  where.push_back({"grid.nz", v.origin("ZMIN") + " + a 10-cell C-PML below; free surface on top"});
  return g;
}

}  // namespace ondes
