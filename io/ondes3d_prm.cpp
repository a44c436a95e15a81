#include "io/ondes3d_prm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "core/case_error.hpp"
#include "io/legacy_tokens.hpp"
#include "io/ondes3d_sources.hpp"

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
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end != '\0' || !std::isfinite(v)) fail(key, fmt::format("= '{}' is not a number", t), meaning);
    if ((lo_open ? !(v > lo) : !(v >= lo)) || v > hi)
      fail(key, fmt::format("= {} is outside the allowed range {}{}, {}]", v, lo_open ? "(" : "[", lo, hi), meaning);
    return v;
  }
  int integer(const std::string& key, const std::string& meaning, long lo, long hi) const {
    const std::string t = text(key, meaning);
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(t.c_str(), &end, 10);
    if (end == t.c_str() || *end != '\0' || errno == ERANGE)
      fail(key, fmt::format("= '{}' is not an integer", t), meaning);
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
    v.add(key, key.rfind("LAYER_", 0) == 0 ? value + rest : value, number);
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
  if (fs::exists(p, ec)) return fs::absolute(p).lexically_normal().string();
  return (fs::absolute(prm_path).parent_path() / p).lexically_normal().string();
}

// The grid both dialects describe, in the project's axes (see the header).
struct Geometry {
  int nx = 0, ny = 0, nz = 0;
  std::array<double, 3> offset{};  // Ondes3D (x, y, z) -> (offset[0] + y, offset[1] + x, offset[2] - z)
  bool free_surface = true;
};

Geometry tagged_geometry(const PrmValues& v, double ds, std::vector<Provenance>& where) {
  if (v.has("fgeo"))
    v.fail("fgeo", "names a geological model file, not supported yet (issue 18)", "layered models only for now");
  const int xmin = v.integer("xMin", "the first cell index along x (east)", -1000000, 1000000);
  const int xmax = v.integer("xMax", "the last cell index along x", xmin + 4, 1000000);
  const int ymin = v.integer("yMin", "the first cell index along y (north)", -1000000, 1000000);
  const int ymax = v.integer("yMax", "the last cell index along y", ymin + 4, 1000000);
  const int zmin = v.integer("zMin", "the lowest cell index along z (up; the surface is 1)", -1000000, -3);
  Geometry g;
  // Computed cells (IO.c's WhereAmI): [MIN - DELTA + 2, MAX + DELTA], the C-PML DELTA of them each side.
  g.nx = ymax - ymin + 2 * kDelta - 1, g.ny = xmax - xmin + 2 * kDelta - 1;
  g.offset = {-(ymin - kDelta + 1) * ds, -(xmin - kDelta + 1) * ds, 0};
  // Ondes3D chooses the top at compile time (options.h: surface = FREE in its stock builds, when
  // <zMax> is read but unused); <surface>absorbing</surface>, a tag Ondes3D ignores, asks for the
  // absorbing top that its surface = ABSORBING builds compute up to zMax + DELTA.
  const std::string surface = v.has("surface") ? v.text("surface", "free or absorbing") : "free";
  if (surface == "absorbing") {
    const int zmax = v.integer("zMax", "the highest cell index along z (with an absorbing top)", zmin + 4, 1000000);
    g.free_surface = false;
    g.nz = zmax - zmin + 2 * kDelta - 1;
    g.offset[2] = (zmax + kDelta - 1) * ds;
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
  const std::string model = v.has("MODEL_TYPE") ? v.text("MODEL_TYPE", "1D or 3D") : "1D";
  if (model != "1D")
    v.fail("MODEL_TYPE", "= " + model + ": 3D model files (MODEL_FILE) are not supported yet (issue 18)",
           "set MODEL_TYPE = 1D to run the layers");
  const int xmin = v.integer("XMIN", "the first cell index along x (east)", -1000000, 1000000);
  const int xmax = v.integer("XMAX", "the last cell index along x", xmin + 4, 1000000);
  const int ymin = v.integer("YMIN", "the first cell index along y (north)", -1000000, 1000000);
  const int ymax = v.integer("YMAX", "the last cell index along y", ymin + 4, 1000000);
  const int zmin = v.integer("ZMIN", "the lowest cell index along z (up; the surface is 0)", -1000000, -3);
  Geometry g;
  // The StarPU port's arrays: MAX - MIN + 1 + 2 DELTA cells, index 0 at (MIN - DELTA - 1) ds.
  g.nx = ymax - ymin + 1 + 2 * kDelta, g.ny = xmax - xmin + 1 + 2 * kDelta, g.nz = 1 - zmin + kDelta;
  g.offset = {-(ymin - kDelta - 1) * ds, -(xmin - kDelta - 1) * ds, 0};
  where.push_back({"grid.nx", v.origin("YMIN") + ", YMAX + a 10-cell C-PML each side: y (north) is x here"});
  where.push_back({"grid.ny", v.origin("XMIN") + ", XMAX + a 10-cell C-PML each side: x (east) is y here"});
  where.push_back({"grid.nz", v.origin("ZMIN") + " + a 10-cell C-PML below; free surface on top"});
  return g;
}

// A layer's top (Ondes3D: km, z up) as a depth below the grid's top; the first layer reaches up to
// the top of the grid (Ondes3D gives the cells above its top the first layer's properties).
double layer_top(double depth_km, const Geometry& g, bool first) {
  return first ? 0.0 : std::max(0.0, g.offset[2] - 1000.0 * depth_km);
}

void tagged_layers(const PrmValues& v, const Geometry& g, Case& c, std::vector<Provenance>& where) {
  const int n = v.integer("nlayer", "the number of layers", 1, 1000);
  bool q0 = false, q = false;
  for (int l = 1; l <= n; ++l) {
    const std::string b = fmt::format("layer{}.", l), name = fmt::format("layer{}", l);
    if (!v.has(name)) v.text(name, fmt::format("layer {} of <nlayer> {}", l, n));
    Layer L;
    L.rho = v.number(b + "rho", name + "'s density (kg/m3)", 0, 1e5, true);
    L.vp = v.number(b + "vp", name + "'s P velocity (m/s)", 0, 1e5, true);
    L.vs = v.number(b + "vs", name + "'s S velocity (m/s)", 0, 1e5, true);
    L.top = layer_top(v.number(b + "depth", name + "'s top (km, z up: 0 at the surface, negative below)", -1e4, 1e4), g,
                      l == 1);
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

// The station file: a count, then `n x y z` per station (m, Ondes3D's axes).
void read_stations(const std::string& file, const Geometry& g, Case& c) {
  LegacyTokens in(file, "Ondes3D station file");
  const long n = in.integer("the number of stations", 1, 10000000);
  std::map<long, std::string> seen;
  for (long s = 0; s < n; ++s) {
    const std::string at = in.where();
    const long id = in.integer("a station's number", 1, 1000000000);
    if (seen.count(id)) in.fail(fmt::format("station {} is given twice (first at {})", id, seen[id]));
    seen[id] = at;
    const double x = in.number("its x (m, east)"), y = in.number("its y (m, north)"), z = in.number("its z (m, up)");
    c.stations.push_back({fmt::format("obs{}", id), {g.offset[0] + y, g.offset[1] + x, g.offset[2] - z}});
  }
  if (!in.done()) in.fail(fmt::format("more values after the {} stations the file announces", n));
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
  if (dialect == PrmDialect::None) throw CaseError(fmt::format("{}: not an Ondes3D parameter file", path));
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
  if (tagged)
    tagged_layers(v, g, c, where);
  else
    key_value_layers(v, g, c.boundaries.pml_frequency, c, where);

  Fault f;
  f.file = resolve(v.text(key("fsrcMap", "SOURCES"), "the source position file"), path);
  f.history = resolve(v.text(key("fsrcHist", "SOURCE_TIME_FUNCTION"), "the moment-rate history file"), path);
  f.offset = g.offset;
  f.stf = StfKind::Sampled;
  std::vector<Source> points = read_ondes3d_sources({f.file, f.history, f.offset}, c.medium, &f.text);
  f.count = points.size();
  c.sources = std::move(points);
  c.faults.push_back(f);
  where.push_back({"faults[0]", v.origin(key("fsrcMap", "SOURCES")) + ", " + v.origin(key("fsrcHist", "SOURCE_TIME_FUNCTION"))});

  read_stations(resolve(v.text(key("fstatMap", "STATIONS"), "the station file"), path), g, c);
  where.push_back({"stations", v.origin(key("fstatMap", "STATIONS"))});
  const std::string dir = v.has(key("dir", "OUTPUT_DIR")) ? v.text(key("dir", "OUTPUT_DIR"), "the output folder") : ".";
  c.output = (std::filesystem::path(resolve(dir, path)) / (stem(path) + ".h5")).lexically_normal().string();
  c.exports.ondes3d_text = true;
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
    t += fmt::format("[[faults]]{}\nformat = \"ondes3d\"\nfile = {}\nhistory = {}\noffset = [{}, {}, {}]\n\n",
                     from(where, fmt::format("faults[{}]", i)), quoted(relative_to(f.file, toml_path)),
                     quoted(relative_to(f.history, toml_path)), g17(f.offset[0]), g17(f.offset[1]), g17(f.offset[2]));
  }
  const std::string st = from(where, "stations");
  for (const Station& s : c.stations)
    t += fmt::format("[[stations]]{}\nname = {}\nposition = [{}, {}, {}]\n", st, quoted(s.name), g17(s.position[0]),
                     g17(s.position[1]), g17(s.position[2]));
  t += fmt::format("\n[output]\nfile = {}{}\nondes3d_text = true  # Ondes3D's obs<N>.dat station files too\n",
                   quoted(relative_to(c.output, toml_path)), from(where, "output.file"));
  return t;
}

}  // namespace ondes
