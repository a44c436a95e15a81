// The snapshot file: planes of the velocity at chosen iterations and the peak ground velocity map,
// in HDF5, with an XDMF description so that ParaView and VisIt open the time series directly.
//
//   /<plane>/<iteration>/{vx, vy, vz, norm}  float32, attribute time (s); <plane> is e.g. "z0"
//                                            (axis and grid index); shape [nz][ny][nx] with 1 along
//                                            the normal, as the XDMF topology says
//   /pgv/{horizontal, norm}                  float32 [1][ny][nx], m/s, the top face's peaks
//   <stem>.xdmf                              one temporal collection per plane, one grid for the PGV
//
// Written under <path>.partial and renamed by close(), with the XDMF file last: a run that dies
// leaves no file that looks complete.
#pragma once
#include <hdf5.h>

#include <string>
#include <vector>

#include "core/case.hpp"
#include "io/results/partial_file.hpp"

namespace ondes {

// The global size of a plane: n1 (fast) x n2 (slow), and its 3-D dims [z][y][x] with 1 on the normal.
struct PlaneExtent {
  int n1 = 0, n2 = 0;
  int dims[3] = {1, 1, 1};
};
PlaneExtent plane_extent(const Grid& g, const PlaneSpec& p);
std::string plane_group(const PlaneSpec& p);  // "z0", "x120"
// snapshots.file, or <output stem>_snapshots.h5 beside the run's output.
std::string snapshot_path(const Case& c);

// A restart after `done` iterations: the frames of the iterations before it (indices below `done`)
// that an earlier snapshot file holds for this case's planes (same h, dt and plane shapes), from
// `named` (the snapshot file a checkpoint names), else snapshot_path(c) (an earlier run of the same
// output); no file and no frames where neither holds any.
struct EarlierFrame {
  size_t plane;  // index into the case's planes
  int iteration;
};
struct EarlierFrames {
  std::string file;
  std::vector<EarlierFrame> frames;
};
EarlierFrames earlier_frames(const std::string& named, const Case& c, int done);
// What a restart says where neither holds a frame that was due before it.
std::string no_earlier_frames(const std::string& named, const Case& c, int done);

class SnapshotWriter {
 public:
  SnapshotWriter(const std::string& path, const Case& c);
  ~SnapshotWriter();
  SnapshotWriter(const SnapshotWriter&) = delete;
  SnapshotWriter& operator=(const SnapshotWriter&) = delete;

  // data: [3][n2][n1] (vx, vy, vz) of plane `plane` (index into the case's planes) after `iteration`.
  void write_frame(size_t plane, int iteration, const std::vector<float>& data);
  // pgv: [2][ny][nx] (horizontal, norm).
  void write_pgv(const std::vector<float>& pgv);
  // A restarted run: the earlier frames (earlier_frames) copied in first, so that this file holds
  // the whole series.
  void carry_frames(const EarlierFrames& earlier);
  // Writes the XDMF file and moves both into place.
  void close();

 private:
  const Case& case_;
  std::string path_;
  PartialFile h5_, xdmf_;
  hid_t file_ = -1;  // h5_'s, open until close()
  std::vector<std::vector<int>> frames_;  // per plane, the iterations written
  bool pgv_ = false;
  std::string xdmf_text() const;
};

}  // namespace ondes
