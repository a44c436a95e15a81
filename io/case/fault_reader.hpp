// A kinematic finite fault: a text file of point sources, one per line, read into moment sources.
#pragma once
#include <string>
#include <vector>

#include "core/case.hpp"

namespace ondes {

// Reads `path`. The first line that is not blank or a comment (#) names the columns (whitespace or
// commas between them): x y z (m), rupture_time and rise_time (s), and either m0 (N m) with strike,
// dip, rake (degrees) or mxx myy mzz mxy mxz myz (N m). Each row becomes a moment source whose
// moment rate has the shape `stf` (triangle: rise_time is its duration; smooth_ramp: its T),
// starting at rupture_time. Errors (CaseError) name the file, line and column.
// `text`, when given, receives the file's content.
std::vector<Source> read_fault(const std::string& path, StfKind stf, std::string* text = nullptr);

}  // namespace ondes
