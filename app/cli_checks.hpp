// The command line's checks of numbers, with messages a user can read.
#pragma once
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>

namespace ondes {

// The whole of `text` read by parse (std::stol, std::stod), or nothing when it is empty, has
// something left over or is not a number at all.
template <class T>
std::optional<T> read_whole(const std::string& text, T (*parse)(const std::string&, std::size_t*)) {
  std::size_t used = 0;
  try {
    const T v = parse(text, &used);
    if (!text.empty() && used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}
inline long to_long(const std::string& s, std::size_t* used) { return std::stol(s, used); }
inline double to_double(const std::string& s, std::size_t* used) { return std::stod(s, used); }

// An integer option's check, with a message a user can read: "--steps: -4 is outside [1, 100000000]"
// or "'abc' is not an integer".
inline CLI::Validator integer_in(long lo, long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const std::optional<long> v = read_whole(text, to_long);
        if (!v) return fmt::format("'{}' is not an integer", text);
        if (*v < lo || *v > hi) return fmt::format("{} is outside [{}, {}]", *v, lo, hi);
        return "";
      },
      fmt::format("INT in [{}, {}]", lo, hi));
}

inline CLI::Validator number_at_least(double lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        const std::optional<double> v = read_whole(text, to_double);
        if (!v || !std::isfinite(*v)) return fmt::format("'{}' is not a number", text);
        if (*v < lo) return fmt::format("{} is below {}", *v, lo);
        return "";
      },
      fmt::format("NUMBER >= {}", lo));
}

}  // namespace ondes
