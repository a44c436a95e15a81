#include "io/case/fault_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "core/case_error.hpp"
#include "physics/source.hpp"

namespace ondes {
namespace {

std::vector<std::string> split_fields(std::string line) {
  std::replace(line.begin(), line.end(), ',', ' ');
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

std::string strip_comment(const std::string& line) { return line.substr(0, line.find('#')); }

// Which column holds each quantity; checks the header names every one needed, once.
class Columns {
 public:
  Columns(const std::vector<std::string>& header, const std::string& where) {
    for (size_t i = 0; i < header.size(); ++i)
      if (!index_.emplace(header[i], i).second)
        throw CaseError(fmt::format("{}: column '{}' is named twice", where, header[i]));
    tensor_ = index_.count("mxx") > 0;
    std::vector<std::string> needed = {"x", "y", "z", "rupture_time", "rise_time"};
    const std::vector<std::string> moment =
        tensor_ ? std::vector<std::string>{"mxx", "myy", "mzz", "mxy", "mxz", "myz"}
                : std::vector<std::string>{"m0", "strike", "dip", "rake"};
    needed.insert(needed.end(), moment.begin(), moment.end());
    for (const std::string& n : needed)
      if (!index_.count(n))
        throw CaseError(fmt::format("{}: the header lacks column '{}' (needed: x y z rupture_time rise_time and "
                                    "either m0 strike dip rake or mxx myy mzz mxy mxz myz)",
                                    where, n));
    for (const auto& [name, i] : index_)
      if (std::find(needed.begin(), needed.end(), name) == needed.end())
        throw CaseError(fmt::format("{}: unknown column '{}'", where, name));
    width_ = header.size();
  }
  bool tensor() const { return tensor_; }
  size_t width() const { return width_; }
  size_t operator[](const std::string& name) const { return index_.at(name); }

 private:
  std::map<std::string, size_t> index_;
  bool tensor_ = false;
  size_t width_ = 0;
};

// One row's values by column name, each parsed and range-checked with its line in the message.
struct Row {
  const std::vector<std::string>& fields;
  const Columns& cols;
  std::string where;
  double get(const std::string& name, double lo, double hi, bool lo_open = false) const {
    const std::string& text = fields[cols[name]];
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !std::isfinite(v))
      throw CaseError(fmt::format("{}: {} = '{}' is not a finite number", where, name, text));
    if ((lo_open ? !(v > lo) : !(v >= lo)) || v > hi)
      throw CaseError(fmt::format("{}: {} = {} is outside the allowed range {}{}, {}]", where, name, v,
                                  lo_open ? "(" : "[", lo, hi));
    return v;
  }
};

}  // namespace

std::vector<Source> read_fault(const std::string& path, StfKind stf, std::string* text) {
  std::ifstream file(path);
  if (!file) throw CaseError(fmt::format("{}: cannot open the fault file", path));
  std::stringstream whole;
  whole << file.rdbuf();
  if (text) *text = whole.str();
  std::istringstream in(whole.str());
  constexpr double kHuge = 1e30;
  std::vector<Source> out;
  std::unique_ptr<Columns> cols;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto fields = split_fields(strip_comment(line));
    if (fields.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, number);
    if (!cols) {
      cols = std::make_unique<Columns>(fields, where);
      continue;
    }
    if (fields.size() != cols->width())
      throw CaseError(fmt::format("{}: {} values, but the header names {} columns", where, fields.size(), cols->width()));
    const Row r{fields, *cols, where};
    Source s;
    s.kind = SourceKind::Moment;
    s.label = where;
    s.position = {r.get("x", -kHuge, kHuge), r.get("y", -kHuge, kHuge), r.get("z", -kHuge, kHuge)};
    if (cols->tensor()) {
      const char* names[6] = {"mxx", "myy", "mzz", "mxy", "mxz", "myz"};
      for (int c = 0; c < 6; ++c) s.moment[c] = r.get(names[c], -kHuge, kHuge);
    } else {
      s.moment = double_couple(r.get("strike", -360, 360), r.get("dip", 0, 90), r.get("rake", -360, 360),
                               r.get("m0", 0, kHuge));
    }
    s.stf.kind = stf;
    s.stf.t0 = r.get("rupture_time", 0, kHuge);
    s.stf.duration = r.get("rise_time", 0, kHuge, true);
    out.push_back(s);
  }
  if (!cols) throw CaseError(fmt::format("{}: no header line naming the columns", path));
  if (out.empty()) throw CaseError(fmt::format("{}: the header is followed by no point source", path));
  return out;
}

}  // namespace ondes
