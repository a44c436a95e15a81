// The ONDES_* environment switches (A/B of two code paths): one reading for every layer.
#pragma once
#include <cstdlib>
#include <string_view>

namespace ondes {

// Whether environment variable `name` is set to `value`.
inline bool env_is(const char* name, std::string_view value) {
  const char* e = std::getenv(name);
  return e && value == e;
}

// Environment variable `name` as an integer, or `otherwise` when unset or not a whole number.
inline int env_int(const char* name, int otherwise) {
  const char* e = std::getenv(name);
  if (!e || !*e) return otherwise;
  char* end = nullptr;
  const long v = std::strtol(e, &end, 10);
  return *end == '\0' ? static_cast<int>(v) : otherwise;
}

}  // namespace ondes
