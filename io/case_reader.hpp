#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "physics/case.hpp"

namespace ondes {

// A case the program refuses, with a message naming the file, line and key.
struct CaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads and validates a case; throws CaseError before anything large is allocated.
Case read_case(const std::string& path);
Case parse_case(const std::string& text, const std::string& path);

// Physical checks of a parsed case (CFL, positions, velocities, blocks). Throws CaseError;
// returns the warnings (e.g. too few points per wavelength).
std::vector<std::string> validate_case(const Case& c);

}  // namespace ondes
