#include "io/ondes3d_prm.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "core/case_error.hpp"
#include "io/legacy_tokens.hpp"
#include "io/model_reader.hpp"
#include "io/ondes3d_sources.hpp"
#include "physics/model3d.hpp"

namespace ondes {
namespace {

// Ondes3D's C-PML: DELTA cells outside the [MIN, MAX] index ranges (its compile-time default).
constexpr int kDelta = 10;

// The values of a parameter file by key, each with the line it came from.
class PrmValues {
 public:
  PrmValues(std::string path, PrmDialect d) : path_(std::move(path)), dialect_(d) {}
  void add(const std::string& key, const std::string& value, int line) { values_[key] = {value, line}; }
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  std::string origin(const std::string& key) const {
    return fmt::format("{}:{} ({})", path_, values_.at(key).line, spelled(key));
  }
  const std::string& path() const { return path_; }

  std::string text(const std::string& key, const std::string& meaning) const {
    auto it = values_.find(key);
    if (it == values_.end())
      throw CaseError(fmt::format("{}: {} is missing: {} is needed ({})", path_, spelled(key), meaning,
                                  dialect_ == PrmDialect::Tagged ? fmt::format("<{0}>...</{0}>", key)
                                                                 : fmt::format("a line `{} = ...`", key)));
    if (it->second.value.empty()) fail(key, "is empty", meaning);
    return it->second.value;
  }
  double number(const std::string& key, const std::string& meaning, double lo, double hi, bool lo_open = false) const {
    const std::string t = text(key, meaning);
    const std::optional<double> parsed = parse_number(t);
    if (!parsed) fail(key, fmt::format("= '{}' is not a number", t), meaning);
    const double v = *parsed;
    if ((lo_open ? !(v > lo) : !(v >= lo)) || v > hi)
      fail(key, fmt::format("= {} is outside the allowed range {}{}, {}]", v, lo_open ? "(" : "[", lo, hi), meaning);
    return v;
  }
  int integer(const std::string& key, const std::string& meaning, long lo, long hi) const {
    const std::string t = text(key, meaning);
    const std::optional<long> parsed = parse_integer(t);
    if (!parsed) fail(key, fmt::format("= '{}' is not an integer", t), meaning);
    const long v = *parsed;
    if (v < lo || v > hi) fail(key, fmt::format("= {} is outside the allowed range [{}, {}]", v, lo, hi), meaning);
    return static_cast<int>(v);
  }
  [[noreturn]] void fail(const std::string& key, const std::string& what, const std::string& meaning) const {
    auto it = values_.find(key);
    throw CaseError(fmt::format("{}:{}: {} {} ({})", path_, it == values_.end() ? 0 : it->second.line, spelled(key),
                                what, meaning));
  }

 private:
  std::string spelled(const std::string& key) const {
    return dialect_ == PrmDialect::Tagged ? "<" + key + ">" : key;
  }
  struct Value {
    std::string value;
    int line = 0;
  };
  std::string path_;
  PrmDialect dialect_;
  std::map<std::string, Value> values_;
};

// The tagged dialect: Ondes3D reads the file with every blank removed and takes the text between the
// first <key> and the next </key>. Layer blocks hold their own keys: "layerN.rho" and so on.
PrmValues read_tagged(const std::string& path, const std::string& text) {
  std::string flat;
  std::vector<int> line_of;
  int line = 1;
  for (char ch : text) {
    if (ch == '\n') ++line;
    if (std::isspace(static_cast<unsigned char>(ch))) continue;
    flat.push_back(ch);
    line_of.push_back(line);
  }
  PrmValues v(path, PrmDialect::Tagged);
  auto field = [&](const std::string& within, size_t from, size_t to, const std::string& key, const std::string& name) {
    const std::string open = "<" + key + ">", close = "</" + key + ">";
    const size_t a = flat.find(open, from);
    if (a == std::string::npos || a >= to) return std::pair<size_t, size_t>{std::string::npos, 0};
    const size_t b = flat.find(close, a + open.size());
    if (b == std::string::npos || b > to)
      throw CaseError(fmt::format("{}:{}: {} has no closing {}", path, line_of[a], open, close));
    v.add(name.empty() ? within + key : name, flat.substr(a + open.size(), b - a - open.size()), line_of[a]);
    return std::pair<size_t, size_t>{a + open.size(), b};
  };
  for (const char* k : {"dt", "ds", "tmax", "xMin", "xMax", "yMin", "yMax", "zMin", "zMax", "fd0", "dir", "fsrcMap",
                        "fsrcHist", "fstatMap", "nlayer", "f0", "surface", "taum", "tauM", "w0", "fgeo", "x0", "y0", "z0"})
    field("", 0, flat.size(), k, "");
  if (v.has("nlayer")) {
    const int n = v.integer("nlayer", "the number of layers", 1, 1000);
    for (int l = 1; l <= n; ++l) {
      const std::string name = fmt::format("layer{}", l);
      const auto [a, b] = field("", 0, flat.size(), name, "");
      if (a == std::string::npos) continue;  // reported when its values are asked for
      for (const char* k : {"rho", "vp", "vs", "depth", "name", "q0", "Qp", "Qs"}) field(name + ".", a, b, k, "");
    }
  }
  return v;
}

// The KEY = value dialect: the first token of a line is its key, the next its value (LAYER_n lines
// keep the rest of the line); lines starting with # are comments.
PrmValues read_key_value(const std::string& path, const std::string& text) {
  PrmValues v(path, PrmDialect::KeyValue);
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::replace(line.begin(), line.end(), '=', ' ');
    std::istringstream words(line);
    std::string key, value, rest;
    if (!(words >> key) || key[0] == '#') continue;
    if (!(words >> value))
      throw CaseError(fmt::format("{}:{}: {} has no value (expected `{} = value`)", path, number, key, key));
    std::getline(words, rest);
    if (!v.has(key)) v.add(key, key.rfind("LAYER_", 0) == 0 ? value + rest : value, number);  // the first, as the port reads
  }
  return v;
}

// Ondes3D opens the files a parameter file names from the folder it runs in; so does this reader,
// and failing that from the parameter file's folder.
std::string resolve(const std::string& file, const std::string& prm_path) {
  namespace fs = std::filesystem;
  const fs::path p(file);
  if (p.is_absolute()) return file;
  std::error_code ec;
  auto found = [&](const fs::path& f) { return fs::exists(f, ec) || fs::exists(fs::path(f.string() + ".gz"), ec); };
  if (found(p)) return fs::absolute(p).lexically_normal().string();
  // Else from the parameter file's folder or one above it (a set's files are named from its root,
  // ./parameters/<set>/..., where Ondes3D is run).
  for (fs::path dir = fs::absolute(prm_path).parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (found(dir / p)) return (dir / p).lexically_normal().string();
    if (dir == dir.root_path()) break;
  }
  return (fs::absolute(prm_path).parent_path() / p).lexically_normal().string();
}

// The grid both dialects describe, in the project's axes (see the header).
//
// Where Ondes3D's fields sit (original/src/computeVeloAndSource.c, computeStress.c; IO.c
// ComputeSeismograms): index i along x is at (i - 1) ds, and its vx there; the normal stresses of
// index i at (i - 1/2) ds along x; vy at +1/2 along both x and y; vz at +1/2 along x and z. The
// project puts its normal stresses on the grid's points (core/case.hpp), vx (north) half a cell
// along its x and vy (east) half a cell along its y: the same staggering once Ondes3D's x (the
// project's y) is moved by half a cell. So the grid point of Ondes3D's normal-stress index i lies
// at x = (i - 1/2) ds, and a position keeps its place among the fields; the offsets below say so.
struct Geometry {
  int nx = 0, ny = 0, nz = 0;
  std::array<double, 3> offset{};  // Ondes3D (x, y, z) -> (offset[0] + y, offset[1] + x, offset[2] - z)
  bool free_surface = true;
  // Where Ondes3D computes a source (IO.c ReadSrc: WhereAmI says REGULAR or FREESURFACE) and keeps a
  // station (IO.c ReadStation), in the file's coordinates.
  FileBox sources, stations;
  // A geological model's cells (<xMax> <yMax> <zMax>) and origin (<x0> <y0> <z0>, m); zero otherwise.
  std::array<int, 3> cells{};
  std::array<double, 3> origin{};
};

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

// The geological model file: `nx N`, `ny N`, `nz N`, `x0 v`, `y0 v`, `z0 v`, `dx v`, `dy v`, `dz v`,
// one more label-value pair, then a material name per cell, x fastest, from k = 1 up. Cells above nz
// up to <zMax> are vacuum (layer 1); vacuum below z = 0 is sea (layer 2), as IO.c's ReadGeoFile
// makes them. The materials are <layerN>'s <name>s.
struct Geology {
  int nx = 0, ny = 0, nz = 0;  // the grid's cells (nz = <zMax>)
  std::vector<int16_t> material;  // [k - 1][j - 1][i - 1], a layer index
  size_t index(int i, int j, int k) const { return (size_t(k - 1) * ny + (j - 1)) * nx + (i - 1); }
  int at(int i, int j, int k) const { return material[index(i, j, k)]; }
};

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
  if (names.size() >= 2)
    for (int k = 1; k <= geo.nz; ++k)
      if (g.origin[2] + (k - 1) * ds < 0)
        for (size_t c = size_t(k - 1) * geo.nx * geo.ny, e = c + size_t(geo.nx) * geo.ny; c < e; ++c)
          if (geo.material[c] == 0) geo.material[c] = 1;
  return geo;
}

// The model in the project's axes, a sample per grid cell (the C-PML's cells take the nearest model
// cell's material), sampled at the nearest: materials do not mix.
std::shared_ptr<const Model3D> geology_model(const Geology& geo, const std::vector<Layer>& layers, const Grid& g,
                                            const std::string& file) {
  auto m = std::make_shared<Model3D>();
  m->path = file;
  m->nearest = true;
  m->nx = g.nx, m->ny = g.ny, m->nz = g.nz;
  m->spacing = {g.h, g.h, g.h};
  const size_t n = size_t(m->nx) * m->ny * m->nz;
  m->vp.resize(n), m->vs.resize(n), m->rho.resize(n);
  for (int kz = 0; kz < m->nz; ++kz)
    for (int y = 0; y < m->ny; ++y)
      for (int x = 0; x < m->nx; ++x) {  // ours x is its j, y its i (both from 1 at the C-PML's width - 2), z down
        const int i = std::clamp(y - (kDelta - 2) + 1, 1, geo.nx), j = std::clamp(x - (kDelta - 2) + 1, 1, geo.ny);
        const Layer& l = layers[geo.at(i, j, std::clamp(geo.nz - kz, 1, geo.nz))];
        const size_t q = (size_t(kz) * m->ny + y) * m->nx + x;
        m->vp[q] = float(l.vp), m->vs[q] = float(l.vs), m->rho[q] = float(l.rho);
      }
  set_extremes(*m);
  return m;
}

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
    where.push_back({"boundaries.free_surface", v.origin("surface") + ", <zMax>: an absorbing top"});
  } else if (surface == "free") {  // the free surface at k = 1 (z = 0), the planes from zMin - DELTA + 2
    g.nz = kDelta - zmin;
    where.push_back({"boundaries.free_surface", v.path() + ": Ondes3D's free surface (surface = FREE)"});
  } else {
    v.fail("surface", "= '" + surface + "' is neither free nor absorbing", "the top of the grid");
  }
  where.push_back({"grid.nx", v.origin("yMin") + ", <yMax> + a 10-cell C-PML each side: y (north) is x here"});
  where.push_back({"grid.ny", v.origin("xMin") + ", <xMax> + a 10-cell C-PML each side: x (east) is y here"});
  where.push_back({"grid.nz", v.origin("zMin") + " + a 10-cell C-PML below"});
  return g;
}

Geometry key_value_geometry(const PrmValues& v, double ds, std::vector<Provenance>& where) {
  const int ndim = v.integer("NDIM", "the order of the scheme", 4, 4);
  (void)ndim;
  // The StarPU port reads neither MODEL_TYPE nor MODEL_FILE (its reader says it lacks a 3D model
  // reader): it runs the layers whatever MODEL_TYPE says, and so does this reader, saying so.
  const std::string model = v.has("MODEL_TYPE") ? v.text("MODEL_TYPE", "1D or 3D") : "1D";
  if (model != "1D") {
    spdlog::warn("{}: MODEL_TYPE = {}: the layers (LAYER_n) are run, as the StarPU port of Ondes3D does; its "
                 "MODEL_FILE is not read",
                 v.origin("MODEL_TYPE"), model);
    where.push_back({"medium.model_type", v.origin("MODEL_TYPE") + " = " + model + ": the layers run, MODEL_FILE unread"});
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

// A layer's top (Ondes3D: km, z up) as a depth below the grid's top; the first layer reaches up to
// the top of the grid (Ondes3D gives the cells above its top the first layer's properties). The
// case samples its layers as Ondes3D does (LayerSampling::Ondes3d: every point the layer at its
// depth, a point on an interface the upper one).
double layer_top(double depth_km, const Geometry& g, bool first) {
  return first ? 0.0 : std::max(0.0, g.offset[2] - 1000.0 * depth_km);  // Ondes3D's laydep = 1000 depth
}

// The <layerN> blocks: with depths (a layered model) or names (a geological one's materials, whose
// names go to `names`). vs = 0 is water, vp = vs = 0 vacuum.
void tagged_layers(const PrmValues& v, const Geometry& g, Case& c, std::vector<Provenance>& where,
                   std::vector<std::string>* names = nullptr) {
  const int n = v.integer("nlayer", "the number of layers", 1, 1000);
  bool q0 = false, q = false;
  for (int l = 1; l <= n; ++l) {
    const std::string b = fmt::format("layer{}.", l), name = fmt::format("layer{}", l);
    if (!v.has(name)) v.text(name, fmt::format("layer {} of <nlayer> {}", l, n));
    Layer L;
    L.rho = v.number(b + "rho", name + "'s density (kg/m3)", 0, 1e5, true);
    L.vp = v.number(b + "vp", name + "'s P velocity (m/s; 0: vacuum)", 0, 1e5);
    L.vs = v.number(b + "vs", name + "'s S velocity (m/s; 0: water or vacuum)", 0, 1e5);
    if (L.vp == 0 && L.vs > 0) v.fail(b + "vs", "must be 0 where vp is (vacuum)", name + "'s S velocity");
    if (L.vs > 0 && L.vs >= L.vp / std::sqrt(2.0)) v.fail(b + "vs", "must be below vp / sqrt(2)", name + "'s S velocity");
    if (names)
      names->push_back(v.text(b + "name", name + "'s material name in the geological model"));
    else
      L.top = layer_top(v.number(b + "depth", name + "'s top (km, z up: 0 at the surface, negative below)", -1e4, 1e4),
                        g, l == 1);
    if (v.has(b + "q0")) L.q0 = v.number(b + "q0", name + "'s q0 (0: undamped)", 0, 1e6), q0 |= L.q0 > 0;
    if (v.has(b + "Qp") || v.has(b + "Qs")) {
      L.qp = v.number(b + "Qp", name + "'s Qp", 0, 1e6, true);
      L.qs = v.number(b + "Qs", name + "'s Qs", 0, 1e6, true);
      q = true;
    }
    where.push_back({fmt::format("medium.layers[{}]", l - 1), v.origin(name)});
    c.medium.layers.push_back(L);
  }
  if (q0 && v.has("f0")) {
    c.medium.q0_frequency = v.number("f0", "the frequency of the q0 damping exp(-pi f0 dt / q0), Hz", 0, 1e6, true);
    where.push_back({"medium.q0_frequency", v.origin("f0")});
  } else if (q0) {  // Ondes3D's f0 is a compile-time constant: the C-PML's frequency stands in
    c.medium.q0_frequency = v.number("fd0", "the C-PML's frequency (Hz)", 0, 1e6, true);
    where.push_back({"medium.q0_frequency", v.origin("fd0") + " (no <f0>: the q0 damping's frequency is <fd0>)"});
  }
  if (q) {  // Day and Bradley: relaxation times taum < tauM, reference frequency w0
    const double tm = v.number("taum", "the shortest relaxation time (s)", 0, 1e6, true);
    const double tM = v.number("tauM", "the longest relaxation time (s)", 0, 1e6, true);
    c.medium.q_band = {1 / (2 * M_PI * std::max(tm, tM)), 1 / (2 * M_PI * std::min(tm, tM))};
    c.medium.q_reference = v.number("w0", "the reference frequency (Hz)", 0, 1e6, true);
    where.push_back({"medium.q_band", v.origin("taum") + ", <tauM>: 1 / (2 pi tau)"});
    where.push_back({"medium.q_reference", v.origin("w0")});
  }
}

void key_value_layers(const PrmValues& v, const Geometry& g, double df, Case& c, std::vector<Provenance>& where) {
  const int n = v.integer("NB_LAYERS", "the number of layers", 1, 1000);
  bool q0 = false;
  for (int l = 1; l <= n; ++l) {
    const std::string key = fmt::format("LAYER_{}", l);
    std::istringstream in(v.text(key, fmt::format("layer {}: top (km, z up), vp, vs, rho, q", l)));
    double top = 0, vp = 0, vs = 0, rho = 0, qv = 0;
    if (!(in >> top >> vp >> vs >> rho >> qv))
      v.fail(key, "needs five numbers", "the layer's top (km, z up), vp (m/s), vs (m/s), rho (kg/m3) and q");
    if (!(vp > 0 && vs > 0 && rho > 0)) v.fail(key, "has a velocity or density that is not positive", "vp, vs, rho > 0");
    Layer L;
    L.top = layer_top(top, g, l == 1), L.vp = vp, L.vs = vs, L.rho = rho;
    if (qv > 0) L.q0 = qv, q0 = true;  // q <= 0: elastic
    where.push_back({fmt::format("medium.layers[{}]", l - 1), v.origin(key)});
    c.medium.layers.push_back(L);
  }
  if (q0) {
    c.medium.q0_frequency = df;
    where.push_back({"medium.q0_frequency", v.origin("DF") + ": q > 0 damps as Ondes3D's q0 at DF"});
  }
}

// The station file: a count, then `n x y z` per station (m, Ondes3D's axes), or with a geological
// model `n x y`, the station then on the first cell under the vacuum and the sea of its column (as
// IO.c's ReadStation places it). Ondes3D numbers a station by its line (obs<line>.dat, n unused) and
// keeps it only inside g.stations (the rest are skipped, named in a warning).
void read_stations(const std::string& file, const Geometry& g, Case& c, const Geology* geo = nullptr) {
  LegacyTokens in(file, "Ondes3D station file");
  const long n = in.integer("the number of stations", 1, 10000000);
  std::vector<std::string> skipped;
  for (long s = 0; s < n; ++s) {
    const std::string at = in.where();
    in.integer("a station's number", -1000000000, 1000000000);
    const double x = in.number("its x (m, east)"), y = in.number("its y (m, north)");
    const double z = geo ? 0.0 : in.number("its z (m, up)");
    if (!g.stations.contains({x, y, z})) {
      skipped.push_back(fmt::format("station {} at ({}, {}{}) m ({}) lies outside the computed region, not recorded",
                                    s + 1, x, y, geo ? "" : fmt::format(", {}", z), at));
      continue;
    }
    double depth = g.offset[2] - z;
    if (geo) {
      const double h = c.grid.h;
      const int i = std::clamp(int(std::floor((x - g.origin[0]) / h)) + 1, 1, geo->nx);
      const int j = std::clamp(int(std::floor((y - g.origin[1]) / h)) + 1, 1, geo->ny);
      int k = geo->nz;
      while (k >= 1 && geo->at(i, j, k) <= 1) --k;  // vacuum (layer 1) and sea (layer 2)
      if (k < 1) throw CaseError(fmt::format("{} (Ondes3D station file): station {}'s column has no ground", at, s + 1));
      depth = (geo->nz - k) * h;
    }
    c.stations.push_back({fmt::format("obs{}", s + 1), {g.offset[0] + y, g.offset[1] + x, depth}});
  }
  if (!in.done()) in.fail(fmt::format("more values after the {} stations the file announces", n));
  warn_skipped(fmt::format("{} ({})", file, g.stations.describe()), skipped);
  if (c.stations.empty())
    spdlog::warn("{}: no station inside the computed region ({}): no seismogram will be recorded", file,
                 g.stations.describe());
}

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

}  // namespace

PrmDialect prm_dialect(const std::string& text) {
  static const std::regex key_value(R"((^|\n)[ \t]*TIME_STEPS[ \t]*=)");
  std::string flat;
  for (char ch : text)
    if (!std::isspace(static_cast<unsigned char>(ch))) flat.push_back(ch);
  if (flat.find("<tmax>") != std::string::npos && flat.find("</tmax>") != std::string::npos) return PrmDialect::Tagged;
  if (std::regex_search(text, key_value)) return PrmDialect::KeyValue;
  return PrmDialect::None;
}

Case read_ondes3d_prm(const std::string& path, const std::string& text, std::vector<Provenance>* where_out) {
  const PrmDialect dialect = prm_dialect(text);
  if (dialect == PrmDialect::None)
    throw CaseError(fmt::format("{}: not an Ondes3D parameter file (neither <tmax>...</tmax> tags nor a TIME_STEPS = "
                                "line); a TOML case needs no conversion",
                                path));
  const bool tagged = dialect == PrmDialect::Tagged;
  const PrmValues v = tagged ? read_tagged(path, text) : read_key_value(path, text);
  std::vector<Provenance> where;
  auto key = [tagged](const char* a, const char* b) { return std::string(tagged ? a : b); };

  Case c;
  c.path = path;
  c.text = text;
  c.grid.h = v.number(key("ds", "DS"), "the cell size (m)", 0, 1e6, true);
  c.time.dt = v.number(key("dt", "DT"), "the time step (s)", 0, 1e6, true);
  c.time.steps = v.integer(key("tmax", "TIME_STEPS"), "the number of time steps", 1, 100000000);
  const Geometry g = tagged ? tagged_geometry(v, c.grid.h, where) : key_value_geometry(v, c.grid.h, where);
  c.grid.nx = g.nx, c.grid.ny = g.ny, c.grid.nz = g.nz;
  where.push_back({"grid.h", v.origin(key("ds", "DS"))});
  where.push_back({"time.dt", v.origin(key("dt", "DT"))});
  where.push_back({"time.steps", v.origin(key("tmax", "TIME_STEPS"))});
  c.boundaries.free_surface = g.free_surface;
  c.boundaries.pml_width = kDelta;
  c.boundaries.pml_frequency = v.number(key("fd0", "DF"), "the C-PML's frequency (Hz)", 0, 1e6, true);
  where.push_back({"boundaries.pml_width", v.path() + ": Ondes3D's DELTA, 10 cells"});
  where.push_back({"boundaries.pml_frequency", v.origin(key("fd0", "DF"))});
  const bool geological = tagged && v.has("fgeo");
  Geology geo;
  if (geological) {  // the layers are materials, the model their arrangement
    std::vector<std::string> names;
    tagged_layers(v, g, c, where, &names);
    for (size_t l = 0; l < c.medium.layers.size(); ++l)
      if (c.medium.layers[l].q0 > 0 || c.medium.layers[l].qp > 0)
        v.fail(fmt::format("layer{}", l + 1), "has q0 or Qp/Qs: attenuation with a geological model is not supported yet",
               "an elastic geological model");
    const std::string file = resolve(v.text("fgeo", "the geological model file"), path);
    geo = read_geology(file, g, c.grid.h, names);
    c.medium.model = geology_model(geo, c.medium.layers, c.grid, file);
    c.medium.layers.clear();
    where.push_back({"medium.model", v.origin("fgeo")});
  } else {
    if (tagged)
      tagged_layers(v, g, c, where);
    else
      key_value_layers(v, g, c.boundaries.pml_frequency, c, where);
    c.medium.layer_sampling = LayerSampling::Ondes3d;
    where.push_back({"medium.layer_sampling", v.path() + ": Ondes3D's layer model (a point takes the layer at its depth)"});
  }

  Fault f;
  f.file = resolve(v.text(key("fsrcMap", "SOURCES"), "the source position file"), path);
  f.history = resolve(v.text(key("fsrcHist", "SOURCE_TIME_FUNCTION"), "the moment-rate history file"), path);
  f.offset = g.offset;
  f.stf = StfKind::Held;
  f.region_min = g.sources.lo, f.region_max = g.sources.hi;
  std::vector<Source> points = read_ondes3d_sources({f.file, f.history, f.offset, g.sources}, &f.text);
  f.count = points.size();
  c.sources = std::move(points);
  c.faults.push_back(f);
  where.push_back({"faults[0]", v.origin(key("fsrcMap", "SOURCES")) + ", " + v.origin(key("fsrcHist", "SOURCE_TIME_FUNCTION"))});

  read_stations(resolve(v.text(key("fstatMap", "STATIONS"), "the station file"), path), g, c, geological ? &geo : nullptr);
  where.push_back({"stations", v.origin(key("fstatMap", "STATIONS"))});
  const std::string dir = v.has(key("dir", "OUTPUT_DIR")) ? v.text(key("dir", "OUTPUT_DIR"), "the output folder") : ".";
  const std::filesystem::path out_dir = std::filesystem::path(resolve(dir, path)).lexically_normal();
  c.output = (out_dir / (stem(path) + ".h5")).lexically_normal().string();
  c.exports.ondes3d_text = true;  // obs<N>.dat where Ondes3D writes them: in <dir>
  c.exports.ondes3d_dir = out_dir.string();
  if (v.has(key("dir", "OUTPUT_DIR"))) where.push_back({"output.file", v.origin(key("dir", "OUTPUT_DIR"))});
  if (where_out) *where_out = std::move(where);
  return c;
}

}  // namespace ondes

namespace ondes {
namespace {

std::string g17(double x) { return fmt::format("{:.17g}", x); }
std::string from(const std::vector<Provenance>& where, const std::string& key) {
  for (const Provenance& p : where)
    if (p.key == key) return "  # from " + p.origin;
  return "";
}
// A path as the TOML file at toml_path should name it.
std::string relative_to(const std::string& file, const std::string& toml_path) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(toml_path).parent_path();
  return fs::absolute(file).lexically_normal().lexically_relative(dir).string();
}
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out.push_back('\\');
    out.push_back(ch);
  }
  return out + "\"";
}

}  // namespace

std::string ondes3d_to_toml(const Case& c, const std::vector<Provenance>& where, const std::string& toml_path) {
  std::string t = fmt::format(
      "# Converted by `ondes3d convert` from the Ondes3D parameter file {}.\n"
      "# Axes: Ondes3D's x (east), y (north), z (up) are y, x and -z here (x north, y east, z down from the\n"
      "# top of the grid); Ondes3D's C-PML (10 cells outside its index ranges) is inside this grid.\n"
      "# Running this file gives the same seismograms as running the .prm, bit for bit.\n\n",
      c.path);
  t += fmt::format("[grid]\nnx = {}{}\nny = {}{}\nnz = {}{}\nh = {}{}\n\n", c.grid.nx, from(where, "grid.nx"), c.grid.ny,
                   from(where, "grid.ny"), c.grid.nz, from(where, "grid.nz"), g17(c.grid.h), from(where, "grid.h"));
  t += fmt::format("[time]\ndt = {}{}\nsteps = {}{}\n\n", g17(c.time.dt), from(where, "time.dt"), c.time.steps,
                   from(where, "time.steps"));
  t += fmt::format("[boundaries]\nfree_surface = {}{}\npml_width = {}{}\npml_frequency = {}{}\n\n",
                   c.boundaries.free_surface, from(where, "boundaries.free_surface"), c.boundaries.pml_width,
                   from(where, "boundaries.pml_width"), g17(c.boundaries.pml_frequency),
                   from(where, "boundaries.pml_frequency"));
  const Medium& m = c.medium;
  t += "[medium]\n";
  if (const std::string note = from(where, "medium.model_type"); !note.empty()) t += note.substr(2) + "\n";
  if (m.model) {  // a geological model: its materials per cell, beside the TOML file
    const std::string h5 = (std::filesystem::path(toml_path).parent_path() /
                            (std::filesystem::path(toml_path).stem().string() + "_model.h5")).string();
    write_model(h5, *m.model);
    t += fmt::format("model = {}{}, nearest-sample materials (HDF5, written by convert)\n", quoted(relative_to(h5, toml_path)),
                     from(where, "medium.model"));
  }
  if (m.layer_sampling == LayerSampling::Ondes3d)
    t += fmt::format("layer_sampling = \"ondes3d\"{}\n", from(where, "medium.layer_sampling"));
  if (m.q0_frequency > 0) t += fmt::format("q0_frequency = {}{}\n", g17(m.q0_frequency), from(where, "medium.q0_frequency"));
  if (m.q_band[1] > 0)
    t += fmt::format("q_band = [{}, {}]{}\nq_reference = {}{}\n", g17(m.q_band[0]), g17(m.q_band[1]),
                     from(where, "medium.q_band"), g17(m.q_reference), from(where, "medium.q_reference"));
  for (size_t l = 0; l < m.layers.size(); ++l) {
    const Layer& L = m.layers[l];
    t += fmt::format("[[medium.layers]]{}\ntop = {}\nvp = {}\nvs = {}\nrho = {}\n", from(where, fmt::format("medium.layers[{}]", l)),
                     g17(L.top), g17(L.vp), g17(L.vs), g17(L.rho));
    if (L.q0 > 0) t += fmt::format("q0 = {}\n", g17(L.q0));
    if (L.qp > 0) t += fmt::format("qp = {}\nqs = {}\n", g17(L.qp), g17(L.qs));
  }
  t += "\n";
  for (size_t i = 0; i < c.faults.size(); ++i) {
    const Fault& f = c.faults[i];
    t += fmt::format("[[faults]]{}\nformat = \"ondes3d\"\nfile = {}\nhistory = {}\noffset = [{}, {}, {}]\n",
                     from(where, fmt::format("faults[{}]", i)), quoted(relative_to(f.file, toml_path)),
                     quoted(relative_to(f.history, toml_path)), g17(f.offset[0]), g17(f.offset[1]), g17(f.offset[2]));
    t += fmt::format("region_min = [{}, {}, {}]  # Ondes3D computes the points in [min, max) (file coordinates)\n"
                     "region_max = [{}, {}, {}]\n\n",
                     g17(f.region_min[0]), g17(f.region_min[1]), g17(f.region_min[2]), g17(f.region_max[0]),
                     g17(f.region_max[1]), g17(f.region_max[2]));
  }
  const std::string st = from(where, "stations");
  for (const Station& s : c.stations)
    t += fmt::format("[[stations]]{}\nname = {}\nposition = [{}, {}, {}]\n", st, quoted(s.name), g17(s.position[0]),
                     g17(s.position[1]), g17(s.position[2]));
  t += fmt::format("\n[output]\nfile = {}{}\nondes3d_text = true  # Ondes3D's obs<N>.dat station files too\n"
                   "ondes3d_dir = {}\n",
                   quoted(relative_to(c.output, toml_path)), from(where, "output.file"),
                   quoted(relative_to(c.exports.ondes3d_dir, toml_path)));
  return t;
}

}  // namespace ondes
