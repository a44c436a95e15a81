#include "io/ondes3d/legacy_tokens.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <zlib.h>

#include "core/case_error.hpp"

namespace ondes {

std::optional<double> parse_number(const std::string& t) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0' || !std::isfinite(v) || errno == ERANGE) return std::nullopt;
  return v;
}

std::optional<long> parse_integer(const std::string& t) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(t.c_str(), &end, 10);
  if (end == t.c_str() || *end != '\0' || errno == ERANGE) return std::nullopt;
  return v;
}

// The file's text; where it is missing but <path>.gz is there (the public Ondes3D sets ship their
// large files compressed), the decompressed text of that.
std::string read_text_or_gz(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (in) {
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  gzFile gz = gzopen((path + ".gz").c_str(), "rb");
  if (!gz) throw CaseError(fmt::format("{}: cannot open the {} (nor {}.gz)", path, what, path));
  std::string text;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(gz, buf, sizeof buf)) > 0) text.append(buf, n);
  const bool failed = n < 0;
  gzclose(gz);
  if (failed) throw CaseError(fmt::format("{}.gz: damaged compressed {}", path, what));
  return text;
}

LegacyTokens::LegacyTokens(const std::string& path, const std::string& what)
    : path_(path), what_(what), text_(read_text_or_gz(path, what)) {}

void LegacyTokens::skip_lines(int n) {
  for (; n > 0 && pos_ < text_.size(); ++pos_)
    if (text_[pos_] == '\n') --n, ++line_;
}

bool LegacyTokens::done() const {
  for (size_t p = pos_; p < text_.size(); ++p)
    if (!std::isspace(static_cast<unsigned char>(text_[p]))) return false;
  return true;
}

std::string LegacyTokens::where() const {
  size_t p = pos_;
  int line = line_;
  for (; p < text_.size() && std::isspace(static_cast<unsigned char>(text_[p])); ++p)
    if (text_[p] == '\n') ++line;
  return fmt::format("{}:{}", path_, line);
}

void LegacyTokens::fail(const std::string& message) const {
  throw CaseError(fmt::format("{} ({}): {}", where(), what_, message));
}

std::string LegacyTokens::next(const std::string& expected) {
  for (; pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])); ++pos_)
    if (text_[pos_] == '\n') ++line_;
  if (pos_ >= text_.size()) fail(fmt::format("the file ends where {} was expected", expected));
  const size_t start = pos_;
  while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  return text_.substr(start, pos_ - start);
}

double LegacyTokens::number(const std::string& expected) {
  const std::string at = where();
  const std::string t = next(expected);
  const std::optional<double> v = parse_number(t);
  if (!v) throw CaseError(fmt::format("{} ({}): '{}' where {} (a number) was expected", at, what_, t, expected));
  return *v;
}

long LegacyTokens::integer(const std::string& expected, long lo, long hi) {
  const std::string at = where();
  const std::string t = next(expected);
  const std::optional<long> parsed = parse_integer(t);
  if (!parsed) throw CaseError(fmt::format("{} ({}): '{}' where {} (an integer) was expected", at, what_, t, expected));
  const long v = *parsed;
  if (v < lo || v > hi)
    throw CaseError(fmt::format("{} ({}): {} = {} is outside the allowed range [{}, {}]", at, what_, expected, v, lo, hi));
  return v;
}

}  // namespace ondes
