// Ondes3D's parameter files, run unchanged (issue 18). Two dialects:
//  - tagged (the CPU code's IO.c): the whole file read with whitespace removed, each value the text
//    between <key> and </key>, anything outside tags a comment: <dt> <ds> <tmax> <xMin>..<zMax>,
//    <fd0>, <dir>, <fsrcMap>, <fsrcHist>, <fstatMap>, <nlayer> and <layerN> blocks holding
//    <rho> <vp> <vs> <depth> (km, the layer's top as z up) and optionally <q0> (with <f0>, Hz, or
//    else <fd0>) or <Qp> <Qs> (with <taum> <tauM> <w0>); the top is Ondes3D's stock free surface
//    unless <surface>absorbing</surface> (a tag Ondes3D ignores) asks for its absorbing build's;
//  - KEY = value lines with # comments (the CUDA and StarPU ports): NDIM, XMIN..ZMIN, TIME_STEPS,
//    DS, DT, DF, SOURCES, SOURCE_TIME_FUNCTION, STATIONS, OUTPUT_DIR, MODEL_TYPE = 1D, NB_LAYERS and
//    `LAYER_n top vp vs rho q` lines.
// Both describe cells by index along Ondes3D's axes (x east, y north, z up; the free surface at
// z = 0) with a 10-cell C-PML outside the [MIN, MAX] ranges; the case built here is the same grid in
// the project's axes (x north, y east, z down from the surface), the C-PML inside it, every
// position shifted by the same offset (docs/user-guide.md: "Ondes3D's input files"). What is not supported yet
// (geological models, 3D model files, an absorbing top in the second dialect) is refused by name.
#pragma once
#include <string>
#include <vector>

#include "core/case.hpp"

namespace ondes {

enum class PrmDialect { None, Tagged, KeyValue };

// Which dialect `text` is written in; None for anything else (a TOML case).
PrmDialect prm_dialect(const std::string& text);

// One value of the case and where it came from, for `ondes3d convert` (e.g. "grid.nx" from
// "case.prm:4 (XMIN, XMAX)").
struct Provenance {
  std::string key, origin;
};

// Reads an Ondes3D parameter file and the files it names into a case (not yet validated: the
// caller runs validate_case). Throws CaseError naming the file, line or key and what was expected.
Case read_ondes3d_prm(const std::string& path, const std::string& text, std::vector<Provenance>* where = nullptr);

// The TOML case equivalent to `c` (read by read_ondes3d_prm), each value with a comment naming its
// origin; running it gives the same seismograms, bit for bit.
std::string ondes3d_to_toml(const Case& c, const std::vector<Provenance>& where, const std::string& toml_path);

}  // namespace ondes
