// The values of an Ondes3D parameter file by key, in either dialect (io/ondes3d/ondes3d_prm.hpp), each with
// the line it came from, and the files the parameter file names, found as Ondes3D finds them.
#pragma once
#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/case_error.hpp"
#include "core/nearest_name.hpp"
#include "io/ondes3d/legacy_tokens.hpp"
#include "io/ondes3d/ondes3d_prm.hpp"

namespace ondes {

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

// The tags and keys of Ondes3D's two dialects (its user guide, original/src/IO.c and the GPU and
// StarPU ports' readers).
const std::vector<std::string>& ondes3d_tags();
const std::vector<std::string>& ondes3d_layer_tags();
const std::vector<std::string>& ondes3d_keys();

// The tagged dialect: Ondes3D reads the file with every blank removed and takes the text between the
// first <key> and the next </key>. Layer blocks hold their own keys: "layerN.rho" and so on.
PrmValues read_tagged(const std::string& path, const std::string& text);

// The KEY = value dialect: the first token of a line is its key, the next its value (LAYER_n lines
// keep the rest of the line); lines starting with # are comments.
PrmValues read_key_value(const std::string& path, const std::string& text);

// The files a parameter file names, found as Ondes3D finds them: from the folder it runs in; where
// one is not there, the one beside the parameter file (said once per parameter file, naming the
// folder), never further. A file found in neither place is a CaseError naming both paths tried and
// the key (`origin`, PrmValues::origin). `folder`: an output folder, the current folder's where it is
// in neither place (Ondes3D needs it made first; `--output` puts the outputs elsewhere).
class PrmFiles {
 public:
  explicit PrmFiles(std::string prm_path) : prm_path_(std::move(prm_path)) {}
  std::string find(const std::string& file, const std::string& origin, bool folder = false);

 private:
  std::string prm_path_;
  bool said_ = false;
};

}  // namespace ondes
