#pragma once
#include <string>

namespace ondes {

// TOML 1.0 allows non-ASCII characters only inside strings and comments. toml++ 3.3 (Debian 12)
// reaches __builtin_unreachable() on some of them elsewhere (upstream issues #190 and #295, fixed
// after 3.4), which is undefined behaviour: refuse them here, with the line, before it parses.
// Also refused: a non-ASCII character first on the line after a line-ending backslash in a
// multi-line basic string, the other path to the same bug.
// Throws CaseError naming the file and line.
void check_non_ascii_placement(const std::string& text, const std::string& path);

}  // namespace ondes
