#include "io/case/toml_guard.hpp"

#include <fmt/format.h>

#include "core/case_error.hpp"

namespace ondes {

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

}  // namespace ondes
