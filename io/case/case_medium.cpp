#include "io/case/case_medium.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "io/results/model_reader.hpp"
#include "physics/attenuation.hpp"
#include "physics/medium.hpp"
#include "physics/model3d.hpp"

namespace ondes {
namespace {

constexpr double kHuge = 1e30;

Layer read_layer(Section& s, bool with_top) {
  Layer l;
  l.top = with_top ? s.number("top", 0, kHuge) : 0.0;
  // vs = 0: a fluid (water); vp = vs = 0: vacuum (air above a topography), whose density only
  // enters the averages at the staggered points.
  l.vp = s.number("vp", 0, kHuge);
  l.vs = s.number("vs", 0, kHuge);
  l.rho = s.number("rho", 0, kHuge, true);
  if (l.vp == 0 && l.vs > 0) s.fail(s.node("vp"), "vp", "vp = 0 is vacuum, which needs vs = 0 too");
  if (s.has("qp") || s.has("qs")) {
    l.qp = s.number("qp", 0, 1e6, true);
    l.qs = s.number("qs", 0, 1e6, true);
    if (l.vs == 0) s.fail(s.node("qs"), "qs", "attenuation (qp, qs) in a fluid or vacuum layer (vs = 0) is not supported");
  }
  if (s.has("q0")) {
    l.q0 = s.number("q0", 0, 1e6);
    if ((s.has("qp") || s.has("qs")) && l.q0 > 0)
      s.fail(s.node("q0"), "q0", "Ondes3D's q0 damping and qp/qs attenuation exclude each other; give one");
  }
  if (l.vs > 0 && l.vs >= l.vp / std::sqrt(2.0))
    s.fail(s.node("vs"), "vs",
           fmt::format("vs = {} must be below vp/sqrt(2) = {:.6g} (else lambda < 0)", l.vs, l.vp / std::sqrt(2.0)));
  if (with_top) s.reject_unknown();  // [medium] itself (a homogeneous medium) has more keys: read_medium checks
  return l;
}

// [medium] q0_frequency (Hz): f0 of Ondes3D's q0 damping, required with and only with q0.
void read_q0(Section& s, Medium& m) {
  if (!m.damped()) {
    if (s.has("q0_frequency")) s.fail(s.node("q0_frequency"), "q0_frequency", "given without any q0 in the medium");
    return;
  }
  if (m.attenuating())
    s.fail(s.node("q0_frequency"), "q0", "Ondes3D's q0 damping and qp/qs attenuation exclude each other; give one");
  if (!s.has("q0_frequency"))
    s.fail(nullptr, "q0_frequency", "missing: the frequency f0 (Hz) of the q0 damping exp(-pi f0 dt / q0) is needed with q0");
  m.q0_frequency = s.number("q0_frequency", 0, kHuge, true);
  if (m.layers.size() > size_t(kMaxDampedLayers))
    s.fail(s.node("q0_frequency"), "q0",
           fmt::format("q0 damping supports at most {} layers; the medium has {}", kMaxDampedLayers, m.layers.size()));
}

// [medium] q_scheme: "every_cell" (default) or "coarse_grained" (physics/attenuation.hpp): the
// coarse-grained scheme holds the exact solution for Q >= 20 only (physics/attenuation.hpp), and its
// fit must hold every layer's Q within 5% over the band.
void read_q_scheme(Section& s, Medium& m) {
  const std::string scheme = s.string_or("q_scheme", "every_cell");
  if (scheme != "every_cell" && scheme != "coarse_grained")
    s.fail(s.node("q_scheme"), "q_scheme",
           fmt::format("\"{}\": the allowed values are \"every_cell\" (default), \"coarse_grained\", "
                       "\"day_bradley\" and \"kristek_moczo\"", scheme));
  m.q_coarse_grained = scheme == "coarse_grained";
  if (!m.q_coarse_grained) return;
  constexpr double kLowestQ = 20;
  QFits fits = q_fits(m);
  std::vector<Layer> lowest = m.layers;  // a 3D model: its lowest Q, rounded as the solver does
  if (m.model) lowest = {Layer{0, 0, 0, 0, level_q(q_level(m.model->qp_min)), level_q(q_level(m.model->qs_min))}};
  for (const Layer& l : lowest)
    for (double q : {l.qp, l.qs}) {
      if (q > 0 && q < kLowestQ)
        s.fail(s.node("q_scheme"), "q_scheme",
               fmt::format("coarse-grained needs every qp and qs >= {} (below, it misses the exact solution by "
                           "5-11%); Q = {} here: use \"every_cell\"", kLowestQ, q));
      if (!(q > 0)) continue;
      const Relaxation& r = fits.of(q);
      double worst = 0;
      for (int i = 0; i <= 60; ++i)
        worst = std::max(worst, std::abs(quality_at(r, m.q_band[0] * std::pow(m.q_band[1] / m.q_band[0], i / 60.0)) / q - 1));
      if (worst > 0.05)
        s.fail(s.node("q_scheme"), "q_scheme",
               fmt::format("coarse-grained, Q = {} over [{}, {}] Hz is fitted only within {:.1f}% (at most 5%): use "
                           "\"every_cell\" or a narrower q_band", q, m.q_band[0], m.q_band[1], 100 * worst));
    }
}

// An Ondes3D method's pair in place of q_band (Day and Bradley's q_tau, Kristek and Moczo's q_w):
// the scheme needs qp/qs and refuses q_band and q_reference; the pair is required, 0 < lo < hi.
struct SchemePair {
  const char *scheme, *key, *band, *lo, *hi, *unit;
};
std::array<double, 2> read_scheme_pair(Section& s, const Medium& m, const SchemePair& p) {
  if (!m.attenuating())
    s.fail(s.node("q_scheme"), "q_scheme", fmt::format("\"{}\" given without any qp/qs in the medium", p.scheme));
  for (const char* k : {"q_band", "q_reference"})
    if (s.has(k)) s.fail(s.node(k), k, fmt::format("not with q_scheme = \"{}\": its band is {}", p.scheme, p.band));
  if (!s.has(p.key))
    s.fail(nullptr, p.key, fmt::format("missing: [{}, {}] in {}, needed by q_scheme = \"{}\"", p.lo, p.hi, p.unit, p.scheme));
  const std::array<double, 2> v = s.vector<2>(p.key);
  if (!(v[0] > 0) || !(v[1] > v[0]))
    s.fail(s.node(p.key), p.key, fmt::format("[{}, {}] {}: need 0 < {} < {}", v[0], v[1], p.unit, p.lo, p.hi));
  return v;
}

// q_origin: Ondes3D's indices (`what`) of the grid's cell (0, 0, 0), integers; kept where not given.
void read_q_origin(Section& s, const char* what, std::array<int, 3>& origin) {
  if (!s.has("q_origin")) return;
  const std::array<double, 3> o = s.vector<3>("q_origin");
  for (int a = 0; a < 3; ++a) {
    if (o[a] != std::round(o[a]) || std::abs(o[a]) > 1e8)
      s.fail(s.node("q_origin"), "q_origin", fmt::format("Ondes3D's indices {} must be integers", what));
    origin[a] = static_cast<int>(o[a]);
  }
}

// [medium] q_scheme = "day_bradley": Ondes3D's Day and Bradley (core/case.hpp DayBradley) from
// q_tau = [taum, tauM] (s) and q_w0 (rad/s), as its <taum> <tauM> <w0>, with no q_band; q_origin =
// [jmp, imp, k], Ondes3D's indices of the grid's cell (0, 0, 0) (default [0, 0, 1]), q_yz_skew
// (default none) and q_yz_levels (default 0) say where its cells lie, as `convert` writes them from a .prm.
void read_day_bradley(Section& s, Medium& m) {
  const std::array<double, 2> tau =
      read_scheme_pair(s, m, {"day_bradley", "q_tau", "q_tau's (and q_w0)", "taum", "tauM", "s"});
  DayBradley& d = m.day_bradley;
  d.tau_min = tau[0], d.tau_max = tau[1];
  d.w0 = s.number("q_w0", 0, kHuge, true);
  read_q_origin(s, "[jmp, imp, k]", d.origin);
  if (s.has("q_yz_skew")) d.yz_skew = s.integer_or("q_yz_skew", 0, -100000000, 100000000);
  d.yz_levels = s.integer_or("q_yz_levels", 0, 0, 100000000);
  m.q_band = {1 / (2 * M_PI * d.tau_max), 1 / (2 * M_PI * d.tau_min)};
  m.q_reference = d.w0 / (2 * M_PI);
}

// [medium] q_scheme = "kristek_moczo": Ondes3D's Kristek and Moczo (core/case.hpp KristekMoczo) from
// q_w = [wmin, wmax] (rad/s), as its <wmin> <wmax>, with no q_band, on layers sampled as Ondes3D
// samples them; q_origin = [j, i, k], Ondes3D's local indices of the grid's cell (0, 0, 0) (default
// [0, 0, 1]), as `convert` writes them from a .prm.
void read_kristek_moczo(Section& s, Medium& m) {
  const char* name = "\"kristek_moczo\"";
  if (m.attenuating() && (m.model || m.layer_sampling != LayerSampling::Ondes3d))
    s.fail(s.node("q_scheme"), "q_scheme",
           fmt::format("{} runs on layers sampled as Ondes3D samples them: layer_sampling = \"ondes3d\"", name));
  const std::array<double, 2> w = read_scheme_pair(s, m, {"kristek_moczo", "q_w", "q_w's", "wmin", "wmax", "rad/s"});
  KristekMoczo& k = m.kristek_moczo;
  k.w_min = w[0], k.w_max = w[1];
  read_q_origin(s, "[j, i, k]", k.origin);
  for (const Layer& l : m.layers)
    if ((l.qp > 0) != (l.qs > 0))
      s.fail(s.node("q_scheme"), "q_scheme", fmt::format("{} needs qp and qs together in every attenuating layer", name));
  m.q_band = {k.w_min / (2 * M_PI), k.w_max / (2 * M_PI)};
  m.q_reference = std::sqrt(m.q_band[0] * m.q_band[1]);
}

// [medium] q_band = [f_min, f_max] (Hz) and q_reference (Hz, default the band's geometric centre),
// required with and only with qp/qs.
void read_q_band(Section& s, Medium& m) {
  if (s.string_or("q_scheme", "") == "day_bradley") return read_day_bradley(s, m);
  if (s.string_or("q_scheme", "") == "kristek_moczo") return read_kristek_moczo(s, m);
  if (!s.has("q_band")) {
    if (m.attenuating())
      s.fail(nullptr, "q_band", "missing: the band [f_min, f_max] in Hz over which qp and qs hold is needed with them");
    for (const char* k : {"q_reference", "q_scheme"})
      if (s.has(k)) s.fail(s.node(k), k, "is only meaningful with qp/qs and q_band");
    return;
  }
  if (!m.attenuating()) s.fail(s.node("q_band"), "q_band", "given without any qp/qs in the medium");
  m.q_band = s.vector<2>("q_band");
  if (!(m.q_band[0] > 0) || !(m.q_band[1] > m.q_band[0]))
    s.fail(s.node("q_band"), "q_band",
           fmt::format("[{}, {}] Hz: need 0 < f_min < f_max", m.q_band[0], m.q_band[1]));
  m.q_reference = s.number_or("q_reference", std::sqrt(m.q_band[0] * m.q_band[1]), 0, kHuge, true);
  read_q_scheme(s, m);
  if (!m.q_coarse_grained && mechanisms_for(m.q_band[0], m.q_band[1]) > kMaxMechanisms)
    s.fail(s.node("q_band"), "q_band",
           fmt::format("[{}, {}] Hz spans {:.2f} decades; at most 4 are supported ({} relaxation mechanisms, each "
                       "6 memory variables in every cell)",
                       m.q_band[0], m.q_band[1], std::log10(m.q_band[1] / m.q_band[0]), kMaxMechanisms));
}

}  // namespace

std::string case_relative(const std::string& file, const std::string& case_path) {
  if (file.empty() || file[0] == '/') return file;
  const size_t slash = case_path.rfind('/');
  return slash == std::string::npos ? file : case_path.substr(0, slash + 1) + file;
}

// layer_sampling: "average" (the default) or "ondes3d" (core/case.hpp LayerSampling; with a model,
// a categorical one: Ondes3D's geological nodes).
static void read_layer_sampling(Section& s, Medium& m) {
  const std::string sampling = s.string_or("layer_sampling", "average");
  if (sampling == "ondes3d") m.layer_sampling = LayerSampling::Ondes3d;
  else if (sampling != "average")
    s.fail(s.node("layer_sampling"), "layer_sampling", "'" + sampling + "' is not one of average, ondes3d");
  if (m.ondes3d_nodes() && !m.model->nearest)
    s.fail(s.node("layer_sampling"), "layer_sampling",
           "\"ondes3d\" with a model takes its samples as Ondes3D's geological nodes: the model must be "
           "categorical (attribute nearest = 1, as convert writes them)");
}

// [[faults]]: a file of point sources in columns (io/case/fault_reader.hpp), or (format = "ondes3d")
Medium read_medium(Section s, const std::string& case_path) {
  Medium m;
  if (s.has("model")) {
    for (const char* k : {"vp", "vs", "rho", "layers"})
      if (s.has(k)) s.fail(s.node(k), k, "give either model or vp/vs/rho / [[medium.layers]], not both");
    if (s.has("q0_frequency"))
      s.fail(s.node("q0_frequency"), "q0_frequency", "q0 damping is per layer: not with a 3D model");
    const std::string file = case_relative(s.string("model"), case_path);
    try {
      m.model = read_model(file);
    } catch (const CaseError& e) {
      s.fail(s.node("model"), "model", e.what());
    }
    m.model_q = m.model->attenuating();
    read_layer_sampling(s, m);
    // Ondes3D's Day and Bradley takes each stress point's Qs from the nodes it averages there
    // (physics/grid_setup.cpp's corner classes): on its geological nodes only.
    if (s.string_or("q_scheme", "") == "day_bradley" && !m.ondes3d_nodes())
      s.fail(s.node("q_scheme"), "q_scheme",
             "\"day_bradley\" with a 3D model needs layer_sampling = \"ondes3d\" (Ondes3D's geological nodes)");
    read_q_band(s, m);
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
  read_layer_sampling(s, m);
  read_q_band(s, m);
  read_q0(s, m);
  s.reject_unknown();
  return m;
}

}  // namespace ondes
