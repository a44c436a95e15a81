#include "io/ondes3d_values.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <vector>

namespace ondes {

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
std::string resolve_prm_file(const std::string& file, const std::string& prm_path) {
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

}  // namespace ondes
