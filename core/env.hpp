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

}  // namespace ondes
