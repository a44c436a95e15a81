// The known name nearest to a misspelled one (Levenshtein distance, case-insensitive), for the
// messages that name an unknown key, tag, command or option; empty when none is near.
#pragma once
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace ondes {

inline std::string nearest_name(const std::string& name, const std::vector<std::string>& known) {
  auto distance = [](const std::string& a, const std::string& b) {  // Levenshtein, case-insensitive
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t up = row[j];
        const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
        diagonal = up;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t least = std::max<size_t>(2, name.size() / 3) + 1;
  for (const std::string& k : known)
    if (const size_t d = distance(name, k); d < least) least = d, best = k;
  return best;
}

}  // namespace ondes
