#include "io/case/snapshot_plan.hpp"

#include <fmt/format.h>

#include "io/ondes3d/ondes3d_surface_files.hpp"
#include "io/results/partial_file.hpp"
#include "io/results/snapshot_file.hpp"

namespace ondes {

void resolve_snapshot_planes(Case& c) {
  SnapshotOptions& o = c.snapshots;
  o.planes.clear();
  for (const PlaneSpec& p : o.requested) {
    if (o.velocity) o.planes.push_back({p.axis, p.index, p.name, false});
    if (o.displacement) o.planes.push_back({p.axis, p.index, p.name + " displacement", true});
  }
  if (o.ondes3d.on) add_ondes3d_planes(c, o.velocity, o.displacement);
}

void check_snapshot_outputs(const Case& c) {
  if (c.snapshots.every <= 0) return;
  const std::string snapshots = snapshot_path(c);
  check_result_path(fmt::format("{}: snapshots.file = {}", c.path, snapshots), snapshots, c.path);
  check_ondes3d_surface_dir(c);
}

}  // namespace ondes
