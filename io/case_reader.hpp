#pragma once
#include <string>
#include <vector>

#include "core/case.hpp"
#include "core/case_error.hpp"

namespace ondes {

// Reads and validates a case; throws CaseError before anything large is allocated.
Case read_case(const std::string& path);
Case parse_case(const std::string& text, const std::string& path);

// Physical checks of a parsed case (CFL, positions, velocities, blocks). Throws CaseError;
// returns the warnings (e.g. too few points per wavelength).
std::vector<std::string> validate_case(const Case& c);

}  // namespace ondes
