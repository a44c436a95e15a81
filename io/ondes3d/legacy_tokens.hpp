// Whitespace-separated values of a legacy text file, each with its line, for readers whose errors
// must name the file, line and what was expected (Ondes3D's source, history and station files).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ondes {

// The whole of `text` as a finite number (an integer), or nothing: the legacy readers' one parse.
std::optional<double> parse_number(const std::string& text);
std::optional<long> parse_integer(const std::string& text);

class LegacyTokens {
 public:
  // Reads `path`, or <path>.gz decompressed where only that exists (CaseError if neither opens);
  // `what` names it in messages ("station file").
  LegacyTokens(const std::string& path, const std::string& what);
  // Skips the rest of the current line and the next n - 1 whole lines (free text).
  void skip_lines(int n);
  double number(const std::string& expected);
  std::string word(const std::string& expected) { return next(expected); }
  long integer(const std::string& expected, long lo, long hi);
  bool done() const;
  const std::string& text() const { return text_; }
  // "path:line" of the next value (or of the end).
  std::string where() const;
  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::string next(const std::string& expected);
  std::string path_, what_, text_;
  size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace ondes
