#include "io/case_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <ctime>
#include <optional>
#include <regex>
#include <fstream>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "io/fault_reader.hpp"
#include "io/model_reader.hpp"
#include "physics/medium.hpp"
#include "physics/model3d.hpp"
#include "physics/pml.hpp"
#include "physics/source.hpp"
#include "physics/stability.hpp"

namespace ondes {
namespace {

// A TOML table being read: remembers which keys were used so that the rest can be reported as
// unknown (a typo is the commonest mistake), and names file, line and dotted key in every error.
class Section {
 public:
  Section(const toml::table& t, std::string file, std::string prefix)
      : t_(t), file_(std::move(file)), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const toml::node* n, const std::string& key, const std::string& msg) const {
    const auto& src = n ? n->source() : t_.source();
    throw CaseError(fmt::format("{}:{}: {}: {}", file_, src.begin.line, name(key), msg));
  }
  std::string name(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }
  bool has(const std::string& key) const { return t_.contains(key); }
  const toml::node* node(const std::string& key) {
    used_.insert(key);
    return t_.get(key);
  }
  const toml::node& required(const std::string& key) {
    const toml::node* n = node(key);
    if (!n) fail(nullptr, key, "missing (required)");
    return *n;
  }

  double number(const std::string& key, double lo, double hi, bool lo_open = false) {
    return checked(key, required(key), lo, hi, lo_open);
  }
  double number_or(const std::string& key, double def, double lo, double hi, bool lo_open = false) {
    const toml::node* n = node(key);
    return n ? checked(key, *n, lo, hi, lo_open) : def;
  }
  int integer(const std::string& key, long lo, long hi) { return checked_int(key, required(key), lo, hi); }
  int integer_or(const std::string& key, int def, long lo, long hi) {
    const toml::node* n = node(key);
    return n ? checked_int(key, *n, lo, hi) : def;
  }
  bool boolean_or(const std::string& key, bool def) {
    const toml::node* n = node(key);
    if (!n) return def;
    if (!n->is_boolean()) fail(n, key, "must be true or false");
    return **n->as_boolean();
  }
  std::string string(const std::string& key) {
    const toml::node& n = required(key);
    if (!n.is_string()) fail(&n, key, "must be a string");
    return **n.as_string();
  }
  std::string string_or(const std::string& key, const std::string& def) {
    return has(key) ? string(key) : def;
  }
  template <size_t N>
  std::array<double, N> vector(const std::string& key) {
    const toml::node& n = required(key);
    const toml::array* a = n.as_array();
    if (!a || a->size() != N) fail(&n, key, fmt::format("must be an array of {} numbers", N));
    std::array<double, N> v{};
    for (size_t i = 0; i < N; ++i) {
      auto x = (*a)[i].value<double>();
      if (!x || !std::isfinite(*x)) fail(&n, key, fmt::format("element {} is not a finite number", i));
      v[i] = *x;
    }
    return v;
  }
  Section table(const std::string& key) {
    const toml::node& n = required(key);
    if (!n.is_table()) fail(&n, key, "must be a table");
    return Section(*n.as_table(), file_, name(key));
  }
  // Elements of an array of tables ([[key]]); empty when absent.
  std::vector<Section> tables(const std::string& key) {
    std::vector<Section> out;
    const toml::node* n = node(key);
    if (!n) return out;
    const toml::array* a = n->as_array();
    if (!a) fail(n, key, "must be an array of tables ([[" + name(key) + "]])");
    for (size_t i = 0; i < a->size(); ++i) {
      const toml::table* t = (*a)[i].as_table();
      if (!t) fail(n, key, fmt::format("element {} is not a table", i));
      out.emplace_back(*t, file_, fmt::format("{}[{}]", name(key), i));
    }
    return out;
  }
  void reject_unknown() const {
    for (const auto& [k, v] : t_) {
      const std::string key(k.str());
      if (!used_.count(key)) fail(&v, key, "unknown key");
    }
  }
  const toml::node* self() const { return &t_; }

 private:
  double checked(const std::string& key, const toml::node& n, double lo, double hi, bool lo_open) {
    auto v = n.value<double>();
    if (!v || n.is_boolean() || n.is_string()) fail(&n, key, "must be a number");
    const bool below = lo_open ? !(*v > lo) : !(*v >= lo);
    if (!std::isfinite(*v) || below || *v > hi)
      fail(&n, key, fmt::format("{} is outside the allowed range {}{}, {}]", *v, lo_open ? "(" : "[", lo, hi));
    return *v;
  }
  int checked_int(const std::string& key, const toml::node& n, long lo, long hi) {
    if (!n.is_integer()) fail(&n, key, "must be an integer");
    const long v = static_cast<long>(**n.as_integer());
    if (v < lo || v > hi) fail(&n, key, fmt::format("{} is outside the allowed range [{}, {}]", v, lo, hi));
    return static_cast<int>(v);
  }

  const toml::table& t_;
  std::string file_, prefix_;
  std::set<std::string> used_;
};

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
  } else {
    s.fail(s.node("type"), "type", "'" + type + "' is not one of gaussian, ricker, triangle, smooth_ramp");
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

// A path in a case file is relative to the case file's folder.
std::string resolve(const std::string& file, const std::string& case_path) {
  if (file.empty() || file[0] == '/') return file;
  const size_t slash = case_path.rfind('/');
  return slash == std::string::npos ? file : case_path.substr(0, slash + 1) + file;
}

Fault read_fault_entry(Section s, const std::string& case_path, std::vector<Source>& sources) {
  Fault f;
  f.file = resolve(s.string("file"), case_path);
  const std::string stf = s.string_or("stf", "smooth_ramp");
  if (stf == "smooth_ramp") f.stf = StfKind::SmoothRamp;
  else if (stf == "triangle") f.stf = StfKind::Triangle;
  else s.fail(s.node("stf"), "stf", "'" + stf + "' is not one of smooth_ramp, triangle");
  s.reject_unknown();
  std::vector<Source> points;
  try {
    points = read_fault(f.file, f.stf, &f.text);
  } catch (const CaseError& e) {
    s.fail(s.node("file"), "file", e.what());
  }
  f.first = sources.size();
  f.count = points.size();
  sources.insert(sources.end(), points.begin(), points.end());
  return f;
}

Layer read_layer(Section& s, bool with_top) {
  Layer l;
  l.top = with_top ? s.number("top", 0, kHuge) : 0.0;
  l.vp = s.number("vp", 0, kHuge, true);
  l.vs = s.number("vs", 0, kHuge, true);
  l.rho = s.number("rho", 0, kHuge, true);
  if (l.vs >= l.vp / std::sqrt(2.0))
    s.fail(s.node("vs"), "vs",
           fmt::format("vs = {} must be below vp/sqrt(2) = {:.6g} (else lambda < 0)", l.vs, l.vp / std::sqrt(2.0)));
  s.reject_unknown();
  return l;
}

Medium read_medium(Section s, const std::string& case_path) {
  Medium m;
  if (s.has("model")) {
    for (const char* k : {"vp", "vs", "rho", "layers"})
      if (s.has(k)) s.fail(s.node(k), k, "give either model or vp/vs/rho / [[medium.layers]], not both");
    const std::string file = resolve(s.string("model"), case_path);
    try {
      m.model = read_model(file);
    } catch (const CaseError& e) {
      s.fail(s.node("model"), "model", e.what());
    }
    s.reject_unknown();
    return m;
  }
  auto layers = s.tables("layers");
  if (layers.empty()) {
    m.layers.push_back(read_layer(s, false));
  } else {
    for (const char* k : {"vp", "vs", "rho"})
      if (s.has(k)) s.fail(s.node(k), k, "give either vp/vs/rho or [[medium.layers]], not both");
    for (auto& l : layers) m.layers.push_back(read_layer(l, true));
    if (m.layers.front().top != 0) layers.front().fail(nullptr, "top", "the first layer must start at top = 0");
    for (size_t i = 1; i < m.layers.size(); ++i)
      if (!(m.layers[i].top > m.layers[i - 1].top))
        layers[i].fail(nullptr, "top", "layers must be listed with increasing top depth");
  }
  s.reject_unknown();
  return m;
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

void read_output(Section o, Case& c) {
  c.output = o.string_or("file", c.output);
  ExportOptions& e = c.exports;
  e.asdf = o.boolean_or("asdf", e.asdf);
  e.sac = o.boolean_or("sac", e.sac);
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

void read_snapshots(Section s, Case& c) {
  SnapshotOptions& o = c.snapshots;
  o.every = s.integer("every", 1, 100000000);
  o.pgv = s.boolean_or("pgv", o.pgv);
  o.file = s.string_or("file", "");
  if (const toml::node* n = s.node("planes")) {
    const toml::array* a = n->as_array();
    if (!a || a->empty()) s.fail(n, "planes", "must be a non-empty array of strings like \"z=0\"");
    for (const auto& e : *a) {
      if (!e.is_string()) s.fail(n, "planes", "must be an array of strings like \"z=0\"");
      o.planes.push_back(parse_plane(s, *n, **e.as_string(), c.grid));
    }
  } else {
    o.planes.push_back(PlaneSpec{2, 0, "z=0"});
  }
  s.reject_unknown();
}

// TOML 1.0 allows non-ASCII characters only inside strings and comments. toml++ 3.3 (Debian 12)
// reaches __builtin_unreachable() on some of them elsewhere (upstream issues #190 and #295, fixed
// after 3.4), which is undefined behaviour: refuse them here, with the line, before it parses.
// Also refused: a non-ASCII character first on the line after a line-ending backslash in a
// multi-line basic string, the other path to the same bug.
void check_non_ascii_placement(const std::string& text, const std::string& path) {
  enum { Plain, Comment, Basic, Literal, MultiBasic, MultiLiteral } state = Plain;
  int line = 1;
  bool after_line_end_backslash = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    const auto starts = [&](const char* tok) { return text.compare(i, std::strlen(tok), tok) == 0; };
    if (ch >= 0x80 && (state == Plain || after_line_end_backslash))
      throw CaseError(fmt::format("{}:{}: malformed TOML: {}", path, line,
                                  after_line_end_backslash
                                      ? "non-ASCII character right after a backslash (and whitespace): not a valid escape"
                                      : "non-ASCII character outside a string or comment (TOML allows none there)"));
    if (ch == '\n') ++line;
    if (after_line_end_backslash && ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') after_line_end_backslash = false;
    switch (state) {
      case Plain:
        if (ch == '#') state = Comment;
        else if (starts("\"\"\"")) state = MultiBasic, i += 2;
        else if (starts("'''")) state = MultiLiteral, i += 2;
        else if (ch == '"') state = Basic;
        else if (ch == '\'') state = Literal;
        break;
      case Comment:
        if (ch == '\n') state = Plain;
        break;
      case Basic:
      case MultiBasic:
        if (ch == '\\') {
          // A backslash before whitespace (a line-ending backslash, or an invalid escape that
          // toml++ still scans as one) or before a non-ASCII character (never a valid escape)
          // makes it test that character as whitespace.
          const unsigned char next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
          if (next == ' ' || next == '\t' || next == '\r' || next == '\n' || next >= 0x80)
            after_line_end_backslash = true;
          else
            ++i;
        } else if (state == MultiBasic && starts("\"\"\"")) {
          state = Plain, i += 2;
        } else if (state == Basic && (ch == '"' || ch == '\n')) {
          state = Plain;
        }
        break;
      case Literal:
        if (ch == '\'' || ch == '\n') state = Plain;
        break;
      case MultiLiteral:
        if (starts("'''")) state = Plain, i += 2;
        break;
    }
  }
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
  t.reject_unknown();

  if (top.has("boundaries")) {
    Section b = top.table("boundaries");
    c.boundaries.free_surface = b.boolean_or("free_surface", true);
    c.boundaries.pml_width = b.integer_or("pml_width", 10, 2, 1000);
    c.boundaries.pml_reflection = b.number_or("pml_reflection", 1e-3, 0, 1, true);
    c.boundaries.pml_frequency = b.number_or("pml_frequency", 0, 0, 1e6);
    b.reject_unknown();
  }

  c.medium = read_medium(top.table("medium"), path);
  for (auto& s : top.tables("sources")) c.sources.push_back(read_source(s));
  for (auto& f : top.tables("faults")) c.faults.push_back(read_fault_entry(f, path, c.sources));
  if (c.sources.empty()) top.fail(nullptr, "sources", "at least one [[sources]] or [[faults]] is required");
  std::set<std::string> names;
  for (auto& s : top.tables("stations")) {
    Station st;
    st.name = s.string("name");
    if (st.name.empty() || !names.insert(st.name).second)
      s.fail(s.node("name"), "name", "'" + st.name + "' is empty or used twice");
    st.position = s.vector<3>("position");
    s.reject_unknown();
    c.stations.push_back(st);
  }

  if (top.has("output")) read_output(top.table("output"), c);
  if (top.has("snapshots")) read_snapshots(top.table("snapshots"), c);
  if (top.has("run")) {
    Section r = top.table("run");
    if (r.has("blocks")) {
      auto b = r.vector<2>("blocks");
      if (b[0] != std::floor(b[0]) || b[1] != std::floor(b[1]) || b[0] < 1 || b[1] < 1)
        r.fail(r.node("blocks"), "blocks", "must be two positive integers [nbx, nby]");
      c.run.nbx = static_cast<int>(b[0]);
      c.run.nby = static_cast<int>(b[1]);
    }
    c.run.scheduler = r.string_or("scheduler", "");
    c.run.mapping = r.string_or("mapping", c.run.mapping);
    c.run.watchdog_every = r.integer_or("watchdog_every", c.run.watchdog_every, 0, 1000000);
    c.run.window = r.integer_or("window", c.run.window, 1, 1000);
    c.run.small_tasks = r.string_or("small_tasks", c.run.small_tasks);
    if (c.run.small_tasks != "auto" && c.run.small_tasks != "any")
      r.fail(r.node("small_tasks"), "small_tasks", "'" + c.run.small_tasks + "': allowed values are auto, any");
    c.run.watchdog_max_velocity = r.number_or("watchdog_max_velocity", c.run.watchdog_max_velocity, 0, 1e30, true);
    if (c.run.mapping != "tiles" && c.run.mapping != "cyclic")
      r.fail(r.node("mapping"), "mapping", "'" + c.run.mapping + "': allowed values are tiles, cyclic");
    r.reject_unknown();
  }
  top.reject_unknown();
  return c;
}

Case read_case(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CaseError(fmt::format("{}: cannot open the case file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_case(ss.str(), path);
}

namespace {

void check_position(const Case& c, const std::array<double, 3>& p, const std::string& key) {
  static const char* axis[] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a)
    if (p[a] < 0 || p[a] > c.grid.extent(a))
      throw CaseError(fmt::format("{}: {}: {} = {} m is outside the grid [0, {}] m", c.path, key, axis[a],
                                  p[a], c.grid.extent(a)));
}

}  // namespace

// The model must cover every grid point (no silent extrapolation).
void check_model_covers(const Case& c) {
  const Model3D* m = c.medium.model.get();
  if (!m) return;
  const double tol = 1e-6 * c.grid.h;
  for (int a = 0; a < 3; ++a)
    if (m->origin[a] > tol || m->last(a) < c.grid.extent(a) - tol)
      throw CaseError(fmt::format("{}: medium.model {} covers {} in [{}, {}] m ({} samples every {} m) but the grid "
                                  "spans [0, {}] m; extend the model or shrink the grid",
                                  c.path, m->path, "xyz"[a], m->origin[a], m->last(a), m->size(a), m->spacing[a],
                                  c.grid.extent(a)));
}

std::vector<std::string> validate_case(const Case& c) {
  std::vector<std::string> warnings;
  check_model_covers(c);
  const double limit = cfl_limit(c.grid.h, vp_max(c.medium));
  if (c.time.dt > limit)
    throw CaseError(fmt::format("{}: time.dt = {} s exceeds the CFL limit {:.6g} s (h = {} m, vp_max = {} m/s)",
                                c.path, c.time.dt, limit, c.grid.h, vp_max(c.medium)));
  const int w = c.boundaries.pml_width;
  const PmlRegion pml = PmlRegion::of(c);
  if (pml.hi(0) - pml.lo(0) < 4 || pml.hi(1) - pml.lo(1) < 4 || pml.hi(2) - pml.lo(2) < 4)
    throw CaseError(fmt::format("{}: boundaries.pml_width = {} leaves fewer than 4 interior cells in a "
                                "{} x {} x {} grid", c.path, w, c.grid.nx, c.grid.ny, c.grid.nz));
  for (size_t i = 0; i < c.sources.size(); ++i) {
    const std::string& label = c.sources[i].label;
    const std::string key = label.empty() ? fmt::format("sources[{}].position", i) : label + ": point source";
    check_position(c, c.sources[i].position, key);
    if (pml.reaches(c.sources[i].position, c.grid.h))
      throw CaseError(fmt::format("{}: {} lies inside the {}-cell PML, which would absorb it; move it at least "
                                  "{} m from the absorbing faces",
                                  c.path, key, w, w * c.grid.h));
  }
  for (size_t i = 0; i < c.stations.size(); ++i) {
    const std::string key = fmt::format("stations[{}].position ({})", i, c.stations[i].name);
    check_position(c, c.stations[i].position, key);
    if (pml.reaches(c.stations[i].position, c.grid.h))
      throw CaseError(fmt::format("{}: {} lies inside the {}-cell PML, where waves are damped; move it at least "
                                  "{} m from the absorbing faces",
                                  c.path, key, w, w * c.grid.h));
  }
  // Blocks keep 2-cell ghosts; a block narrower than 4 cells would be mostly ghost.
  constexpr int kMinBlock = 4;
  if (c.run.nbx < 1 || c.run.nby < 1 || c.grid.nx / c.run.nbx < kMinBlock || c.grid.ny / c.run.nby < kMinBlock)
    throw CaseError(fmt::format("{}: run.blocks = [{}, {}] does not divide the {} x {} grid sensibly: each "
                                "block needs at least {} cells in x and y (at most [{}, {}])",
                                c.path, c.run.nbx, c.run.nby, c.grid.nx, c.grid.ny, kMinBlock,
                                c.grid.nx / kMinBlock, c.grid.ny / kMinBlock));
  const double ppw = points_per_wavelength(c);
  if (ppw < 5)
    warnings.push_back(fmt::format("only {:.2f} points per shortest S wavelength (vs_min / f_max / h); "
                                   "at least 5 are needed for accurate waveforms", ppw));
  return warnings;
}

}  // namespace ondes
