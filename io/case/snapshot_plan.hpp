// The snapshots a case asks for, resolved once it is read: the quantities, the planes written
// (the requested ones and those Ondes3D's surface files are cut from), and whether their files can
// be written before a run starts. The files themselves: io/results/snapshot_file.hpp.
#pragma once
#include <string>

#include "core/case.hpp"

namespace ondes {

// quantity (velocity, displacement or both) into o's flags; else why(message).
template <class Fail>
void set_snapshot_quantity(SnapshotOptions& o, const std::string& quantity, Fail&& why) {
  if (quantity != "velocity" && quantity != "displacement" && quantity != "both")
    why("'" + quantity + "': allowed values are velocity, displacement, both");
  o.velocity = quantity != "displacement", o.displacement = quantity != "velocity";
}

// c.snapshots.planes: each requested plane in each quantity asked for, then the planes Ondes3D's
// surface files are cut from (io/ondes3d/ondes3d_surface_files.hpp).
void resolve_snapshot_planes(Case& c);

// Before a run: CaseError where the snapshot file or Ondes3D's surface files cannot be written.
void check_snapshot_outputs(const Case& c);

}  // namespace ondes
