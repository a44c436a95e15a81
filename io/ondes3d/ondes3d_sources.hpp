// Ondes3D's kinematic source files (issue 18, issue 43): a position file (`fsrcMap` / SOURCES) and
// a moment-rate history file (`fsrcHist` / SOURCE_TIME_FUNCTION), read into moment sources with
// held time functions, with the meaning Ondes3D gives them (original/src/IO.c, ReadSrc;
// computeVeloAndSource.c, computeSeisMoment).
//
// Position file: the number of points, the hypocentre (x y z), then one line `n x y z` per point
// (n from 1, any order). History file: two free lines, the subfault size and the sampling step
// (`dsbiem dtbiem`, m and s), the number of samples, then per point `n strike dip rake` (degrees)
// and its samples: moment rate per unit area (N m / s / m^2), so that a point's moment rate is
// sample x dsbiem^2 and its moment dsbiem^2 x sum(samples) x dtbiem (no shear modulus: every public
// set's header states its M0 that way). Each sample is held for its step and acts when Ondes3D adds
// it (physics/stf.hpp, StfKind::Held). Only as many histories as the position file has points are
// read; more are ignored with a warning, as Ondes3D ignores them.
//
// Ondes3D's axes are x east, y north, z up (its radiation pattern, radxx..radyz, is Aki &
// Richards' with x and y exchanged and z reversed); a point at Ondes3D's (x, y, z) is placed at the
// project's (offset[0] + y, offset[1] + x, offset[2] - z). Points outside `keep` (Ondes3D's
// computed region, in the file's coordinates) are skipped with a warning naming each, as Ondes3D's
// "Warning: Source n ... is not included"; points whose history sums to zero carry no moment and
// are left out.
#pragma once
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "core/case.hpp"

namespace ondes {

// A box of positions in a file's own coordinates: [lo, hi) along each axis ([lo, hi] if closed).
struct FileBox {
  std::array<double, 3> lo{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  std::array<double, 3> hi{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::infinity()};
  bool closed = false;
  bool contains(const std::array<double, 3>& p) const {
    for (int a = 0; a < 3; ++a)
      if (!(p[a] >= lo[a] && (closed ? p[a] <= hi[a] : p[a] < hi[a]))) return false;
    return true;
  }
  // "x in [lo, hi) m, y in [...), z in [...)" for messages.
  std::string describe() const;
};

struct Ondes3dSourceFiles {
  std::string map, history;        // paths
  std::array<double, 3> offset{};  // metres, see above
  FileBox keep;                    // every point by default
};

// Throws CaseError naming the file, line and what was expected, or when no point is left. `text`,
// when given, receives both files' content (stored with the results, as a fault file's is).
std::vector<Source> read_ondes3d_sources(const Ondes3dSourceFiles& f, std::string* text = nullptr);

// Logs what a reader skipped: each of `what` (up to a few, then one summary line), under `title`.
void warn_skipped(const std::string& title, const std::vector<std::string>& what);

}  // namespace ondes
