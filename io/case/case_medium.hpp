// The [medium] table of a case (io/case/case_reader.cpp): homogeneous, layers or a 3D model, with
// attenuation (qp, qs and their band and scheme) or Ondes3D's q0 damping.
#pragma once
#include <string>

#include "core/case.hpp"
#include "io/case/toml_section.hpp"

namespace ondes {

// A path a case file names, relative to the case file's folder (unless absolute).
std::string case_relative(const std::string& file, const std::string& case_path);

// Reads and checks [medium]; a model file is named relative to the case file's folder.
Medium read_medium(Section s, const std::string& case_path);

}  // namespace ondes
