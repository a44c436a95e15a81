#include "io/case/case_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <regex>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "core/layout.hpp"
#include "io/case/case_medium.hpp"
#include "io/case/fault_reader.hpp"
#include "io/case/snapshot_plan.hpp"
#include "io/case/toml_guard.hpp"
#include "io/case/toml_section.hpp"
#include "io/case/tuning.hpp"
#include "io/ondes3d/ondes3d_prm.hpp"
#include "io/ondes3d/ondes3d_sources.hpp"
#include "io/results/model_reader.hpp"
#include "physics/attenuation.hpp"
#include "physics/medium.hpp"
#include "physics/model3d.hpp"
#include "physics/source.hpp"

namespace ondes {
namespace {

constexpr double kHuge = 1e30;

TimeFunction read_stf(Section s) {
  TimeFunction f;
  const std::string type = s.string("type");
  if (type == "gaussian" || type == "ricker") {
    f.kind = type == "gaussian" ? StfKind::Gaussian : StfKind::Ricker;
    f.f0 = s.number("f0", 0, 1e6, true);
    f.t0 = s.number_or("t0", 1.2 / f.f0, 0, kHuge);
  } else if (type == "triangle") {
    f.kind = StfKind::Triangle;
    f.duration = s.number("duration", 0, kHuge, true);
    f.t0 = s.number_or("t0", 0, 0, kHuge);
  } else if (type == "smooth_ramp") {
    f.kind = StfKind::SmoothRamp;
    f.duration = s.number("rise_time", 0, kHuge, true);
    f.t0 = s.number_or("t0", 0, 0, kHuge);
  } else if (type == "sampled") {
    f.kind = StfKind::Sampled;
    f.step = s.number("step", 0, kHuge, true);
    f.t0 = s.number_or("t0", 0, -kHuge, kHuge);
    const toml::node* n = s.node("samples");
    const toml::array* a = n ? n->as_array() : nullptr;
    if (!a || a->size() < 2) s.fail(n, "samples", "must be an array of at least 2 numbers (the time function at t0, t0 + step, ...)");
    for (const auto& e : *a) {
      const std::optional<double> v = e.value<double>();
      if (!v || !std::isfinite(*v)) s.fail(n, "samples", "must hold finite numbers only");
      f.samples.push_back(*v);
    }
    if (normalise_samples(f) == 0)
      s.fail(n, "samples", "have zero area: the time function must carry a moment (force) to scale");
  } else {
    s.fail(s.node("type"), "type", "'" + type + "' is not one of gaussian, ricker, triangle, smooth_ramp, sampled");
  }
  s.reject_unknown();
  return f;
}

Source read_source(Section s) {
  Source src;
  const std::string type = s.string("type");
  src.position = s.vector<3>("position");
  if (type == "force") {
    src.kind = SourceKind::Force;
    src.force = s.vector<3>("force");
  } else if (type == "moment") {
    src.kind = SourceKind::Moment;
    if (s.has("moment")) {
      src.moment = s.vector<6>("moment");
      for (const char* k : {"strike", "dip", "rake", "m0"})
        if (s.has(k)) s.fail(s.node(k), k, "give either moment or strike/dip/rake/m0, not both");
    } else {
      const double strike = s.number("strike", -360, 360);
      const double dip = s.number("dip", 0, 90);
      const double rake = s.number("rake", -360, 360);
      const double m0 = s.number("m0", 0, kHuge, true);
      src.moment = double_couple(strike, dip, rake, m0);
    }
  } else {
    s.fail(s.node("type"), "type", "'" + type + "' is not one of force, moment");
  }
  src.stf = read_stf(s.table("stf"));
  s.reject_unknown();
  return src;
}

// Ondes3D's position and history files (io/ondes3d/ondes3d_sources.hpp).
Fault read_fault_entry(Section s, const std::string& case_path, std::vector<Source>& sources) {
  Fault f;
  f.file = case_relative(s.string("file"), case_path);
  const std::string format = s.string_or("format", "columns");
  std::vector<Source> points;
  if (format == "ondes3d") {
    f.stf = StfKind::Held;
    Ondes3dSourceFiles files{f.file, case_relative(s.string("history"), case_path), {0, 0, 0}, {}};
    if (s.has("offset")) files.offset = s.vector<3>("offset");
    if (s.has("region_min")) files.keep.lo = s.vector<3>("region_min");
    if (s.has("region_max")) files.keep.hi = s.vector<3>("region_max");
    f.history = files.history;
    f.offset = files.offset;
    f.region_min = files.keep.lo, f.region_max = files.keep.hi;
    s.reject_unknown();
    try {
      points = read_ondes3d_sources(files, &f.text);
    } catch (const CaseError& e) {
      s.fail(s.node("file"), "file", e.what());
    }
  } else if (format == "columns") {
    const std::string stf = s.string_or("stf", "smooth_ramp");
    if (stf == "smooth_ramp") f.stf = StfKind::SmoothRamp;
    else if (stf == "triangle") f.stf = StfKind::Triangle;
    else s.fail(s.node("stf"), "stf", "'" + stf + "' is not one of smooth_ramp, triangle");
    s.reject_unknown();
    try {
      points = read_fault(f.file, f.stf, &f.text);
    } catch (const CaseError& e) {
      s.fail(s.node("file"), "file", e.what());
    }
  } else {
    s.fail(s.node("format"), "format", "'" + format + "' is not one of columns, ondes3d");
  }
  f.first = sources.size();
  f.count = points.size();
  sources.insert(sources.end(), points.begin(), points.end());
  return f;
}

// "YYYY-MM-DDTHH:MM:SS[.fff][Z]" (UTC) to seconds since 1970; nullopt when malformed.
std::optional<double> parse_utc(const std::string& text) {
  static const std::regex re(R"(^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2}(\.\d+)?)Z?$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  std::tm t{};
  t.tm_year = std::stoi(m[1]) - 1900;
  t.tm_mon = std::stoi(m[2]) - 1;
  t.tm_mday = std::stoi(m[3]);
  t.tm_hour = std::stoi(m[4]);
  t.tm_min = std::stoi(m[5]);
  const double sec = std::stod(m[6]);
  if (t.tm_mon > 11 || t.tm_mday < 1 || t.tm_mday > 31 || t.tm_hour > 23 || t.tm_min > 59 || sec >= 60)
    return std::nullopt;
  const std::tm asked = t;
  const time_t whole = timegm(&t);  // normalises: 31 February would come back as March
  if (t.tm_mday != asked.tm_mday || t.tm_mon != asked.tm_mon) return std::nullopt;
  return static_cast<double>(whole) + sec;
}

// Every path a case names is from the case file's folder (case_relative), its outputs as its inputs:
// a case runs the same from any folder. Without output.file, <case stem>.h5 in the current folder.
void read_output(Section o, Case& c, const std::string& case_path) {
  if (o.has("file")) c.output = case_relative(o.string("file"), case_path);
  ExportOptions& e = c.exports;
  e.asdf = o.boolean_or("asdf", e.asdf);
  e.sac = o.boolean_or("sac", e.sac);
  e.ondes3d_text = o.boolean_or("ondes3d_text", e.ondes3d_text);
  if (o.has("ondes3d_dir")) e.ondes3d_dir = case_relative(o.string("ondes3d_dir"), case_path);
  e.network = o.string_or("network", e.network);
  if (!std::regex_match(e.network, std::regex("^[A-Z0-9]{1,2}$")))
    o.fail(o.node("network"), "network", "'" + e.network + "' is not an FDSN network code (1-2 capitals or digits)");
  if (o.has("origin")) {
    const auto ll = o.vector<2>("origin");
    if (std::abs(ll[0]) > 89 || std::abs(ll[1]) > 180)
      o.fail(o.node("origin"), "origin", "must be [latitude, longitude] in degrees, |latitude| <= 89, |longitude| <= 180");
    e.latitude = ll[0];
    e.longitude = ll[1];
  }
  e.origin_time = o.string_or("origin_time", e.origin_time);
  const auto epoch = parse_utc(e.origin_time);
  if (!epoch)
    o.fail(o.node("origin_time"), "origin_time",
           "'" + e.origin_time + "' is not a UTC time YYYY-MM-DDTHH:MM:SS[.fff][Z]");
  e.origin_epoch = *epoch;
  o.reject_unknown();
}

// "x=5000" (metres): the grid plane nearest to it.
PlaneSpec parse_plane(Section& s, const toml::node& n, const std::string& text, const Grid& g) {
  static const std::regex re(R"(^\s*([xyz])\s*=\s*([-+0-9.eE]+)\s*$)");
  std::smatch m;
  const auto bad = [&](const std::string& why) {
    s.fail(&n, "planes", fmt::format("'{}': {}", text, why));
  };
  if (!std::regex_match(text, m, re)) bad("expected AXIS=METRES, e.g. \"z=0\" or \"y=5000\"");
  PlaneSpec p;
  p.axis = m[1].str()[0] - 'x';
  p.name = text;
  double v = 0;
  try {
    v = std::stod(m[2]);
  } catch (const std::exception&) {
    bad("not a number after '='");
  }
  const int n_axis = p.axis == 0 ? g.nx : p.axis == 1 ? g.ny : g.nz;
  if (!(v >= 0 && v <= g.extent(p.axis))) bad(fmt::format("outside the grid [0, {}] m", g.extent(p.axis)));
  p.index = std::min(n_axis - 1, static_cast<int>(std::lround(v / g.h)));
  return p;
}

template <size_t N>
std::array<int, N> integers(Section& s, const std::string& key) {
  std::array<int, N> out{};
  const std::array<double, N> v = s.vector<N>(key);
  for (size_t i = 0; i < N; ++i) {
    if (v[i] != std::floor(v[i]) || std::abs(v[i]) > 1e8) s.fail(s.node(key), key, "must hold integers");
    out[i] = static_cast<int>(v[i]);
  }
  return out;
}

// [snapshots.ondes3d]: Ondes3D's surface files (core/case.hpp Ondes3dSurfaceFiles; convert writes it).
void read_ondes3d_surfaces(Section s, Case& c, const std::string& case_path) {
  Ondes3dSurfaceFiles& o = c.snapshots.ondes3d;
  o.on = true;
  o.at = integers<3>(s, "at");
  o.displacement_k = s.integer_or("displacement_k", o.at[2], -100000000, 100000000);
  o.origin = integers<3>(s, "origin");
  o.lo = integers<3>(s, "lo");
  o.hi = integers<2>(s, "hi");
  o.dir = case_relative(s.string("dir"), case_path);
  s.reject_unknown();
}

void read_snapshots(Section s, Case& c, const std::string& case_path) {
  SnapshotOptions& o = c.snapshots;
  o.every = s.integer("every", 1, 100000000);
  o.pgv = s.boolean_or("pgv", o.pgv);
  o.file = case_relative(s.string_or("file", ""), case_path);
  set_snapshot_quantity(o, s.string_or("quantity", "velocity"), [&](const std::string& why) {
    s.fail(s.node("quantity"), "quantity", why);
  });
  if (const toml::node* n = s.node("planes")) {
    const toml::array* a = n->as_array();
    if (!a || a->empty()) s.fail(n, "planes", "must be a non-empty array of strings like \"z=0\"");
    for (const auto& e : *a) {
      if (!e.is_string()) s.fail(n, "planes", "must be an array of strings like \"z=0\"");
      o.requested.push_back(parse_plane(s, *n, **e.as_string(), c.grid));
    }
  } else if (!s.has("ondes3d")) {
    o.requested.push_back(PlaneSpec{2, 0, "z=0"});
  }
  if (s.has("ondes3d")) read_ondes3d_surfaces(s.table("ondes3d"), c, case_path);
  resolve_snapshot_planes(c);
  s.reject_unknown();
}


// A named choice of [run] (core/case.hpp): its value, kept where the key is absent.
template <class E>
void read_choice(Section& r, const char* key, E& value) {
  const std::string name = r.string_or(key, name_of(value));
  if (!parse_choice(name, value))
    r.fail(r.node(key), key, "'" + name + "': allowed values are " + choice_names<E>());
}

void read_run(Section r, Case& c) {
  if (r.has("blocks")) {
    auto b = r.vector<2>("blocks");
    if (b[0] != std::floor(b[0]) || b[1] != std::floor(b[1]) || b[0] < 1 || b[1] < 1)
      r.fail(r.node("blocks"), "blocks", "must be two positive integers [nbx, nby]");
    c.run.set_blocks(static_cast<int>(b[0]), static_cast<int>(b[1]));
  }
  c.run.edge_strip = r.integer_or("edge_strip", c.run.edge_strip, 0, 1000000);
  read_choice(r, "balance", c.run.balance);
  c.run.scheduler = r.string_or("scheduler", "");
  read_choice(r, "mapping", c.run.mapping);
  c.run.watchdog_every = r.integer_or("watchdog_every", c.run.watchdog_every, 0, 1000000);
  c.run.window = r.integer_or("window", c.run.window, 1, 1000);
  read_choice(r, "small_tasks", c.run.small_tasks);
  read_choice(r, "cpu_compute", c.run.cpu_compute);
  c.run.watchdog_max_velocity = r.number_or("watchdog_max_velocity", c.run.watchdog_max_velocity, 0, 1e30, true);
  r.reject_unknown();
}

void read_tuning(Section t, Case& c) {
  t.each_as_text([&](const std::string& key, const toml::node* n, const std::string& value) {
    const std::string err = set_tuning(c.tuning, key, value);
    if (!err.empty()) t.fail(n, key, err);
  });
}

// [boundaries]: the free surface and its scheme, the C-PML's width, reflection and frequency.
void read_boundaries(Section b, Boundaries& out) {
  out.free_surface = b.boolean_or("free_surface", true);
  const std::string surface = b.string_or("surface", "imaging");
  if (surface == "ondes3d")
    out.surface = SurfaceScheme::Ondes3d;
  else if (surface != "imaging")
    b.fail(b.node("surface"), "surface", "'" + surface + "' is not one of imaging, ondes3d");
  const std::string profile = b.string_or("pml_profile", "standard");
  if (profile == "ondes3d")
    out.pml_profile = PmlProfile::Ondes3d;
  else if (profile != "standard")
    b.fail(b.node("pml_profile"), "pml_profile", "'" + profile + "' is not one of standard, ondes3d");
  out.pml_width = b.integer_or("pml_width", 10, 2, 1000);
  out.pml_reflection = b.number_or("pml_reflection", 1e-3, 0, 1, true);
  out.pml_frequency = b.number_or("pml_frequency", 0, 0, 1e6);
  b.reject_unknown();
}

// [[stations]]: a name each, none empty or used twice, and a position.
std::vector<Station> read_stations(Section& top) {
  std::vector<Station> out;
  std::set<std::string> names;
  for (auto& s : top.tables("stations")) {
    Station st;
    st.name = s.string("name");
    if (st.name.empty() || !names.insert(st.name).second)
      s.fail(s.node("name"), "name", "'" + st.name + "' is empty or used twice");
    st.position = s.vector<3>("position");
    s.reject_unknown();
    out.push_back(st);
  }
  return out;
}

}  // namespace

Case parse_case(const std::string& text, const std::string& path) {
  check_non_ascii_placement(text, path);
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw CaseError(fmt::format("{}:{}: malformed TOML: {}", path, e.source().begin.line, e.description()));
  }
  Case c;
  c.path = path;
  c.text = text;
  Section top(root, path, "");

  Section g = top.table("grid");
  c.grid.nx = g.integer("nx", 8, 1 << 20);
  c.grid.ny = g.integer("ny", 8, 1 << 20);
  c.grid.nz = g.integer("nz", 8, 1 << 20);
  c.grid.h = g.number("h", 0, kHuge, true);
  g.reject_unknown();

  Section t = top.table("time");
  c.time.dt = t.number("dt", 0, kHuge, true);
  c.time.steps = t.integer("steps", 1, 100000000);
  c.time.beyond_cfl = t.boolean_or("beyond_cfl", false);
  t.reject_unknown();

  if (top.has("boundaries")) read_boundaries(top.table("boundaries"), c.boundaries);
  c.medium = read_medium(top.table("medium"), path);
  for (auto& s : top.tables("sources")) c.sources.push_back(read_source(s));
  for (auto& f : top.tables("faults")) c.faults.push_back(read_fault_entry(f, path, c.sources));
  if (c.sources.empty()) top.fail(nullptr, "sources", "at least one [[sources]] or [[faults]] is required");
  c.stations = read_stations(top);

  if (!path.empty()) c.output = std::filesystem::path(path).stem().string() + ".h5";
  if (top.has("output")) read_output(top.table("output"), c, path);
  if (top.has("snapshots")) read_snapshots(top.table("snapshots"), c, path);
  c.run.choose_blocks = true;  // unless [run] sets blocks
  if (top.has("run")) read_run(top.table("run"), c);
  if (top.has("tuning")) read_tuning(top.table("tuning"), c);
  top.reject_unknown();
  return c;
}

Case read_case(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CaseError(fmt::format("{}: cannot open the case file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  // A .prm is read as Ondes3D's whatever it holds (read_ondes3d_prm names the markers it looked for).
  if (prm_dialect(ss.str()) == PrmDialect::None && std::filesystem::path(path).extension() != ".prm")
    return parse_case(ss.str(), path);
  Case c = read_ondes3d_prm(path, ss.str());
  resolve_snapshot_planes(c);  // the planes its surface files are cut from
  return c;
}

}  // namespace ondes
