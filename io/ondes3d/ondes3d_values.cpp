#include "io/ondes3d/ondes3d_values.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <vector>

#include <spdlog/spdlog.h>

namespace ondes {

const std::vector<std::string>& ondes3d_tags() {
  static const std::vector<std::string> t{"dt", "ds", "tmax", "xMin", "xMax", "yMin", "yMax", "zMin", "zMax",
                                          "i0", "j0", "k0", "fd0", "x0", "y0", "z0", "dir", "fsrcMap", "fstatMap",
                                          "fsrcHist", "fgeo", "nlayer", "taum", "tauM", "w0", "wmin", "wmax", "f0",
                                          "surface"};
  return t;
}
const std::vector<std::string>& ondes3d_layer_tags() {
  static const std::vector<std::string> t{"rho", "vp", "vs", "depth", "name", "q0", "Qp", "Qs"};
  return t;
}
const std::vector<std::string>& ondes3d_keys() {
  static const std::vector<std::string> k{"NDIM", "XMIN", "XMAX", "YMIN", "YMAX", "ZMIN", "TIME_STEPS", "DS", "DT",
                                          "DF", "DELTA", "OUTPUT_DIR", "SOURCES", "SOURCE_TIME_FUNCTION", "STATIONS",
                                          "MODEL_TYPE", "MODEL_FILE", "NB_LAYERS", "X0", "Y0", "THETA", "I0", "J0",
                                          "IMAX", "JMAX", "KMAX"};
  return k;
}

namespace {

void warn_unknown(const std::string& path, int line, const std::string& spelled, const std::string& near,
                  const std::string& near_spelled) {
  spdlog::warn("{}:{}: {} is not one of Ondes3D's {}: ignored, as Ondes3D ignores it{}", path, line, spelled,
               spelled[0] == '<' ? "tags" : "keys", near.empty() ? "" : fmt::format(" (did you mean {}?)", near_spelled));
}

}  // namespace

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
  for (const std::string& k : ondes3d_tags()) field("", 0, flat.size(), k, "");
  // Every other opening tag: outside the layers a top-level one, inside a layer a layer's.
  std::vector<std::pair<size_t, size_t>> layers;  // the spans of <layerN> blocks
  for (size_t a = flat.find('<'); a != std::string::npos; a = flat.find('<', a + 1)) {
    const size_t b = flat.find('>', a);
    if (b == std::string::npos) break;
    const std::string tag = flat.substr(a + 1, b - a - 1);
    if (tag.empty() || tag[0] == '/' || !std::all_of(tag.begin(), tag.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)); }))
      continue;
    if (tag.rfind("layer", 0) == 0 && tag.size() > 5 && std::all_of(tag.begin() + 5, tag.end(), ::isdigit)) {
      layers.push_back({a, flat.find("</" + tag + ">", b)});
      continue;
    }
    const bool in_layer = std::any_of(layers.begin(), layers.end(), [&](auto l) { return a > l.first && a < l.second; });
    const auto& known = in_layer ? ondes3d_layer_tags() : ondes3d_tags();
    if (std::find(known.begin(), known.end(), tag) == known.end()) {
      const std::string near = nearest_name(tag, known);
      warn_unknown(path, line_of[a], "<" + tag + ">", near, "<" + near + ">");
    }
  }
  if (v.has("nlayer")) {
    const int n = v.integer("nlayer", "the number of layers", 1, 1000);
    for (int l = 1; l <= n; ++l) {
      const std::string name = fmt::format("layer{}", l);
      const auto [a, b] = field("", 0, flat.size(), name, "");
      if (a == std::string::npos) continue;  // reported when its values are asked for
      for (const std::string& k : ondes3d_layer_tags()) field(name + ".", a, b, k, "");
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
    const bool assignment = line.find('=') != std::string::npos;
    std::replace(line.begin(), line.end(), '=', ' ');
    std::istringstream words(line);
    std::string key, value, rest;
    if (!(words >> key) || key[0] == '#') continue;
    const auto& known = ondes3d_keys();
    // Free text: a line that neither assigns nor starts with a key (the GPU port's files say "write
    // what you like, as long as a line does not start with a key word").
    if (!assignment && key.rfind("LAYER_", 0) != 0 && std::find(known.begin(), known.end(), key) == known.end()) continue;
    if (!(words >> value))
      throw CaseError(fmt::format("{}:{}: {} has no value (expected `{} = value`)", path, number, key, key));
    std::getline(words, rest);
    if (key.rfind("LAYER_", 0) != 0 && std::find(known.begin(), known.end(), key) == known.end()) {
      const std::string near = nearest_name(key, known);
      warn_unknown(path, number, key, near, near);
    }
    if (!v.has(key)) v.add(key, key.rfind("LAYER_", 0) == 0 ? value + rest : value, number);  // the first, as the port reads
  }
  return v;
}

// Ondes3D opens the files a parameter file names from the folder it runs in; so does this reader,
// and failing that from the parameter file's folder.
std::string PrmFiles::find(const std::string& file, const std::string& origin, bool folder) {
  namespace fs = std::filesystem;
  const fs::path p(file);
  std::error_code ec;
  auto found = [&](const fs::path& f) {
    return folder ? fs::is_directory(f, ec) : fs::exists(f, ec) || fs::exists(fs::path(f.string() + ".gz"), ec);
  };
  const fs::path here = fs::absolute(p).lexically_normal();
  if (p.is_absolute() || found(here)) return here.string();
  const fs::path beside = (fs::absolute(prm_path_).parent_path() / p).lexically_normal();
  if (folder && !found(beside)) return here.string();  // written where Ondes3D would (made first, or --output)
  if (!found(beside))
    throw CaseError(fmt::format("{}: file '{}' is not found: looked for {} (from the current folder, where Ondes3D "
                                "looks) and {} (beside the parameter file)",
                                origin, file, here.string(), beside.string()));
  if (!said_)
    spdlog::warn("{}: '{}' is not in the current folder ({}), where Ondes3D looks: taken from the parameter file's "
                 "folder ({}), as is any other file named there and missing here",
                 prm_path_, file, fs::current_path(ec).string(), beside.parent_path().string());
  said_ = true;
  return beside.string();
}

}  // namespace ondes
