#include "io/ondes3d/ondes3d_prm.hpp"

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
#include "io/ondes3d/legacy_tokens.hpp"
#include "io/ondes3d/ondes3d_geology.hpp"
#include "io/ondes3d/ondes3d_sources.hpp"
#include "io/ondes3d/ondes3d_surface_files.hpp"
#include "io/ondes3d/ondes3d_values.hpp"
#include "io/ondes3d/ondes3d_velocity_model.hpp"
#include "io/results/model_reader.hpp"
#include "physics/model3d.hpp"

namespace ondes {
namespace {

// A layer's top (Ondes3D: km, z up) as a depth below the grid's top; the first layer reaches up to
// the top of the grid (Ondes3D gives the cells above its top the first layer's properties). The
// case samples its layers as Ondes3D does (LayerSampling::Ondes3d: every point the layer at its
// depth, a point on an interface the upper one).
double layer_top(double depth_km, const Geometry& g, bool first) {
  return first ? 0.0 : std::max(0.0, g.offset[2] - 1000.0 * depth_km);  // Ondes3D's laydep = 1000 depth
}

// Ondes3D's DAYandBRADLEY (<taum> <tauM> <w0>) as its code runs it in one process (core/case.hpp
// DayBradley): its cells' indices, and where its misplaced yz drive lands (codelets/day_bradley.hpp:
// at k = j - levels, its local j being jmp - (<yMin> - DELTA - 1)).
void day_bradley(const PrmValues& v, const Geometry& g, Case& c, std::vector<Provenance>& where) {
  DayBradley& d = c.medium.day_bradley;
  d.tau_min = v.number("taum", "the shortest relaxation time (s)", 0, 1e6, true);
  d.tau_max = v.number("tauM", "the longest relaxation time (s), above <taum>", d.tau_min, 1e6, true);
  d.w0 = v.number("w0", "the reference angular frequency (rad/s)", 0, 1e6, true);
  d.origin = g.indices;
  d.yz_skew = kDelta - g.y_min - g.levels;
  // A geological grid's columns hold more levels than its local j reaches: the drive lands in the
  // column's own cell (the columns beyond land one over, driven by the model's top cell, vacuum).
  const bool geological = g.cells[0] > 0;
  if (geological) d.yz_levels = g.levels;
  // Its bands' ends, for what `check` reports (the method has no band of its own).
  c.medium.q_band = {1 / (2 * M_PI * d.tau_max), 1 / (2 * M_PI * d.tau_min)};
  c.medium.q_reference = d.w0 / (2 * M_PI);
  // A column whose local j - (ZMIN - DELTA) reaches two columns' levels drives a cell two columns over.
  const int last_local_j = g.indices[0] + g.nx - 1 - (g.y_min - kDelta - 1);
  if (!geological && last_local_j - g.z_low >= 2 * g.levels)
    spdlog::warn("{}: Day and Bradley over {} cells along y: Ondes3D's yz drive of its columns from local j {} on "
                 "lands two columns over, which this port leaves out (codelets/day_bradley.hpp)",
                 v.origin("taum"), g.nx, 2 * g.levels + g.z_low);
  where.push_back({"medium.day_bradley", v.origin("taum") + ", <tauM>, <w0>: Ondes3D's Day and Bradley"});
}

// Ondes3D's KRISTEKandMOCZO (<wmin> <wmax>, rad/s) as its code runs it in one process (core/case.hpp
// KristekMoczo): the parities of its local array indices, i = imp - (<xMin> - DELTA - 1) and
// j = jmp - (<yMin> - DELTA - 1) (alloAndInit.c: imp2i_array), give each cell its pulsation.
void kristek_moczo(const PrmValues& v, const Geometry& g, Case& c, std::vector<Provenance>& where) {
  KristekMoczo& m = c.medium.kristek_moczo;
  m.w_min = v.number("wmin", "the lowest relaxation pulsation (rad/s)", 0, 1e6, true);
  m.w_max = v.number("wmax", "the highest relaxation pulsation (rad/s), above <wmin>", m.w_min, 1e6, true);
  // Its decay (2 - wl dt) / (2 + wl dt) turns negative from wl dt = 2 on.
  if (m.w_max * c.time.dt >= 2)
    v.fail("wmax", fmt::format("times <dt> {} is {:.3g}: Kristek and Moczo's memory needs wmax dt < 2", c.time.dt,
                               m.w_max * c.time.dt),
           "wmax < 2 / dt");
  m.origin = {g.indices[0] - (g.ranges[2] - kDelta - 1), g.indices[1] - (g.ranges[0] - kDelta - 1), g.indices[2]};
  // Its band's ends, for what `check` reports.
  c.medium.q_band = {m.w_min / (2 * M_PI), m.w_max / (2 * M_PI)};
  c.medium.q_reference = std::sqrt(c.medium.q_band[0] * c.medium.q_band[1]);
  where.push_back({"medium.kristek_moczo", v.origin("wmin") + ", <wmax>: Ondes3D's Kristek and Moczo"});
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
  // <wmin> <wmax> without <taum>: a file written for KRISTEKandMOCZO.
  const bool km = q && !v.has("taum") && (v.has("wmin") || v.has("wmax"));
  // Ondes3D's own run stops there: ChooseY (computeStress.c) reads ylmu2, which InitializeKManelas
  // (alloAndInit.c) fills for layers only (built with KRISTEKandMOCZO and run on ligurian-crop, it
  // ends with a segmentation fault in ChooseY at its first step).
  if (km && names)
    v.fail(v.has("wmin") ? "wmin" : "wmax",
           "is Ondes3D's KRISTEKandMOCZO method, which runs on layers only (on a geological model Ondes3D's "
           "own code reads Y tables it never fills and crashes at its first step)",
           "<taum> <tauM> <w0> for DAYandBRADLEY on a geological model");
  if (km)
    kristek_moczo(v, g, c, where);
  else if (q)
    day_bradley(v, g, c, where);
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
    c.stations.push_back(
        {fmt::format("obs{}", s + 1), {g.offset[0] + y, g.offset[1] + x, depth}, std::array{x, y, g.offset[2] - depth}});
  }
  if (!in.done()) in.fail(fmt::format("more values after the {} stations the file announces", n));
  warn_skipped(fmt::format("{} ({})", file, g.stations.describe()), skipped);
  if (c.stations.empty())
    spdlog::warn("{}: no station inside the computed region ({}): no seismogram will be recorded", file,
                 g.stations.describe());
}

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// <i0> <j0> <k0>: Ondes3D's surface files every SURFACE_STEP steps, in <dir> (io/ondes3d/ondes3d_surface_files.hpp;
// IO.c reads them: k0 = 0 on a layered model's free surface, whose xy file is then its level 1).
void snapshot_planes(const PrmValues& v, const Geometry& g, bool layered, const std::string& dir, Case& c,
                     std::vector<Provenance>& where) {
  if (!v.has("i0") && !v.has("j0") && !v.has("k0")) return;
  Ondes3dSurfaceFiles& o = c.snapshots.ondes3d;
  o.on = true;
  o.at[0] = v.integer("i0", "the x index of Ondes3D's yz snapshot plane", -1000000, 1000000);
  o.at[1] = v.integer("j0", "the y index of Ondes3D's xz snapshot plane", -1000000, 1000000);
  o.at[2] = layered && g.free_surface ? 1 : v.integer("k0", "the z index of Ondes3D's xy snapshot plane", -1000000, 1000000);
  o.displacement_k = g.free_surface ? 1 : o.at[2];
  o.origin = g.indices;
  const auto [xmin, xmax, ymin, ymax, zmin] = g.ranges;
  o.lo = {xmin - kDelta + 1, ymin - kDelta + 1, zmin - kDelta + 1};
  o.hi = {xmax + kDelta + 1, ymax + kDelta + 1};
  o.dir = dir;
  c.snapshots.every = kOndes3dSurfaceStep;
  c.snapshots.pgv = false;  // its stock builds compute no PGV map (nor displacement: OVELO)
  where.push_back({"snapshots", v.origin("i0") + ", <j0>, <k0>: Ondes3D's surface files every 1000 steps (its SURFACE_STEP)"});
}

// A geological model's medium (<fgeo>): the <layerN> are its materials, the model their arrangement.
Geology geological_medium(const PrmValues& v, const Geometry& g, PrmFiles& files, Case& c,
                          std::vector<Provenance>& where) {
  std::vector<std::string> names;
  tagged_layers(v, g, c, where, &names);
  for (size_t l = 0; l < c.medium.layers.size(); ++l) {
    if (c.medium.layers[l].q0 > 0)  // computeStress.c, ANOTHER: `if (model == GEOLOGICAL) exit(EXIT_FAILURE);`
      v.fail(fmt::format("layer{}", l + 1), "has q0: Ondes3D's ANOTHER method stops on a geological model (its "
             "computeStress.c exits), and so does this reader", "an elastic geological model");
    // Ondes3D reads every material's Qp and Qs (IO.c), and a Q of 0 is a NaN in its Q2A.
    if ((c.medium.layers[l].qp > 0) != (c.medium.layers.front().qp > 0))
      v.fail(fmt::format("layer{}", l + 1), "has no Qp/Qs where another material has them",
             "every material's <Qp> and <Qs> (vacuum and sea too), or none");
  }
  std::vector<double> qs;  // physics/anelastic_setup.cpp's corner classes: pairs of distinct Qs
  for (const Layer& l : c.medium.layers)
    if (l.qs > 0 && std::find(qs.begin(), qs.end(), l.qs) == qs.end()) qs.push_back(l.qs);
  if (qs.size() > 16)
    v.fail("nlayer", fmt::format("has {} distinct <Qs>: Day and Bradley on a geological model takes at most 16", qs.size()),
           "at most 16 distinct <Qs> among the materials");
  const std::string file = files.find(v.text("fgeo", "the geological model file"), v.origin("fgeo"));
  Geology geo = read_geology(file, g, c.grid.h, names);
  c.medium.model = geology_model(geo, c.medium.layers, c.grid, file);
  c.medium.model_q = c.medium.model->attenuating();
  c.medium.layers.clear();
  c.medium.layer_sampling = LayerSampling::Ondes3d;
  where.push_back({"medium.model", v.origin("fgeo")});
  where.push_back({"medium.layer_sampling", v.path() + ": Ondes3D's geological nodes and their averages"});
  c.boundaries.pml_profile = PmlProfile::Ondes3d;
  where.push_back({"boundaries.pml_profile", v.path() + ": Ondes3D's C-PML profile on its grid"});
  return geo;
}

// A layered medium (or the KEY = value dialect's 3D velocity model), and the tagged dialect's free
// surface.
void layered_medium(const PrmValues& v, const Geometry& g, PrmFiles& files, bool tagged, Case& c,
                    std::vector<Provenance>& where) {
  if (tagged)
    tagged_layers(v, g, c, where);
  else if (!read_key_value_model(v, files, c, where))
    key_value_layers(v, g, c.boundaries.pml_frequency, c, where);
  if (!c.medium.model) {
    c.medium.layer_sampling = LayerSampling::Ondes3d;
    where.push_back({"medium.layer_sampling", v.path() + ": Ondes3D's layer model (a point takes the layer at its depth)"});
  }
  // The CPU Ondes3D's free surface (its layered model's FREESURFACE cells); its geological models
  // have none (vacuum over the ground), and the KEY = value ports are not the source of this rule.
  if (tagged && c.boundaries.free_surface) {
    c.boundaries.surface = SurfaceScheme::Ondes3d;
    where.push_back({"boundaries.surface", v.path() + ": Ondes3D's free surface (velocities extrapolated above it)"});
    c.boundaries.pml_profile = PmlProfile::Ondes3d;
    where.push_back({"boundaries.pml_profile", v.path() + ": Ondes3D's C-PML profile on its grid"});
  }
}

}  // namespace

PrmDialect prm_dialect(const std::string& text) {
  std::string flat;
  for (char ch : text)
    if (!std::isspace(static_cast<unsigned char>(ch))) flat.push_back(ch);
  // Tagged: any of its tags opened and closed (a misspelled one among them is then named as such).
  for (const std::string& t : ondes3d_tags())
    if (const size_t a = flat.find("<" + t + ">"); a != std::string::npos && flat.find("</" + t + ">", a) != std::string::npos)
      return PrmDialect::Tagged;
  // KEY = value: a line of one of its keys (TOML's keys here are lower case).
  std::string keys;
  for (const std::string& k : ondes3d_keys()) keys += (keys.empty() ? "" : "|") + k;
  if (std::regex_search(text, std::regex("(^|\n)[ \t]*(" + keys + ")[ \t]*="))) return PrmDialect::KeyValue;
  return PrmDialect::None;
}

namespace {

// The file's key in its dialect: tagged `<a>`, else `B = ...`.
std::string prm_key(bool tagged, const char* a, const char* b) { return tagged ? a : b; }

// Its sources: the source map and moment-rate histories as one fault of Held points (Ondes3D's body
// forces), those inside the computed region.
void read_fault(const PrmValues& v, PrmFiles& files, const Geometry& g, bool tagged, Case& c,
                std::vector<Provenance>& where) {
  const std::string map_key = prm_key(tagged, "fsrcMap", "SOURCES");
  const std::string hist_key = prm_key(tagged, "fsrcHist", "SOURCE_TIME_FUNCTION");
  Fault f;
  f.file = files.find(v.text(map_key, "the source position file"), v.origin(map_key));
  f.history = files.find(v.text(hist_key, "the moment-rate history file; Ondes3D's VELO source, a time function "
                                          "compiled into its code, is not supported"),
                         v.origin(hist_key));
  f.offset = g.offset;
  f.stf = StfKind::Held;
  f.region_min = g.sources.lo, f.region_max = g.sources.hi;
  std::vector<Source> points = read_ondes3d_sources({f.file, f.history, f.offset, g.sources}, &f.text);
  f.count = points.size();
  c.sources = std::move(points);
  c.faults.push_back(f);
  where.push_back({"faults[0]", v.origin(map_key) + ", " + v.origin(hist_key)});
}

// Where its results go: <dir> (else the current folder), the HDF5 file named after the .prm there
// beside Ondes3D's obs<N>.dat; returns the folder.
std::string output_place(const PrmValues& v, PrmFiles& files, bool tagged, const std::string& path, Case& c,
                         std::vector<Provenance>& where) {
  const std::string dir_key = prm_key(tagged, "dir", "OUTPUT_DIR");
  const bool given = v.has(dir_key);
  const std::filesystem::path out_dir =
      given ? std::filesystem::path(files.find(v.text(dir_key, "the output folder"), v.origin(dir_key), true))
            : std::filesystem::absolute(".").lexically_normal();
  c.output = (out_dir / (stem(path) + ".h5")).lexically_normal().string();
  c.exports.ondes3d_text = true;  // obs<N>.dat where Ondes3D writes them: in <dir>
  c.exports.ondes3d_dir = out_dir.string();
  if (given) where.push_back({"output.file", v.origin(dir_key)});
  return out_dir.string();
}

}  // namespace

Case read_ondes3d_prm(const std::string& path, const std::string& text, std::vector<Provenance>* where_out) {
  const PrmDialect dialect = prm_dialect(text);
  if (dialect == PrmDialect::None)
    throw CaseError(fmt::format("{}: not an Ondes3D parameter file: none of its tags (<dt>...</dt>, <ds>, <tmax>, "
                                "...) nor a line of its KEY = value keys (TIME_STEPS, DT, DS, ...); a TOML case "
                                "needs no conversion",
                                path));
  const bool tagged = dialect == PrmDialect::Tagged;
  const PrmValues v = tagged ? read_tagged(path, text) : read_key_value(path, text);
  std::vector<Provenance> where;
  auto key = [tagged](const char* a, const char* b) { return prm_key(tagged, a, b); };
  PrmFiles files(path);

  Case c;
  c.path = path;
  c.text = text;
  c.grid.h = v.number(key("ds", "DS"), "the cell size (m)", 0, 1e6, true);
  c.time.dt = v.number(key("dt", "DT"), "the time step (s)", 0, 1e6, true);
  c.time.steps = v.integer(key("tmax", "TIME_STEPS"), "the number of time steps", 1, 100000000);
  c.time.beyond_cfl = true;  // Ondes3D checks no stability limit: a warning (io/case/case_validation.cpp)
  c.run.choose_blocks = true;  // Ondes3D's layout is its MPI topology: ours is chosen for the workers
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
  if (geological)
    geo = geological_medium(v, g, files, c, where);
  else
    layered_medium(v, g, files, tagged, c, where);

  read_fault(v, files, g, tagged, c, where);

  read_stations(files.find(v.text(key("fstatMap", "STATIONS"), "the station file"), v.origin(key("fstatMap", "STATIONS"))),
                g, c, geological ? &geo : nullptr);
  where.push_back({"stations", v.origin(key("fstatMap", "STATIONS"))});
  const std::string out_dir = output_place(v, files, tagged, path, c, where);
  if (tagged) snapshot_planes(v, g, !geological, out_dir, c, where);
  else if (v.has("I0") || v.has("J0"))
    spdlog::info("{}: I0, J0 read and unused, as by the GPU port of Ondes3D (which writes no planes); a TOML "
                 "case's [snapshots] writes planes", v.origin(v.has("I0") ? "I0" : "J0"));
  if (where_out) *where_out = std::move(where);
  return c;
}

}  // namespace ondes
