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
// The checks of validate_case on the blocks nbx x nby alone (cells per block, edge strips, the cuts
// a surface or an attenuation allows, StarPU's 32-bit counts); throws CaseError naming run.blocks.
void validate_blocks(const Case& c);

}  // namespace ondes
