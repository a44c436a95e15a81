// Snapshots during a run. The iteration's graph (tasks/iteration) extracts every `every`
// iterations each block's part of each plane where the velocity lives (CPU or GPU) and brings it to
// rank 0 as a StarPU-MPI message, and updates each block's peak ground velocity every iteration.
// This recorder owns those buffers; on rank 0 it reads the parts back as they arrive
// (starpu_data_acquire_cb, nothing waits), writes each frame once every part is in, and at the end
// gathers the peak ground velocity map.
#pragma once
#include <starpu.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/results/snapshot_file.hpp"
#include "partition/block_data.hpp"
#include "partition/mapping.hpp"
#include "tasks/iteration.hpp"

namespace ondes {

class SnapshotRecorder {
 public:
  // Every rank builds one with the same blocks and map; rank 0 writes `path`.
  SnapshotRecorder(const Case& c, std::vector<BlockData>& blocks, const RankMap& map, int rank, const std::string& path);
  ~SnapshotRecorder();
  SnapshotRecorder(const SnapshotRecorder&) = delete;
  SnapshotRecorder& operator=(const SnapshotRecorder&) = delete;

  // The parts of the planes this rank extracts or receives, and each block's PGV handle (null
  // where this rank does not own the block, or without PGV), for the iteration's graph.
  std::vector<PlanePart>& planes() { return planes_; }
  const std::vector<starpu_data_handle_t>& pgv_handles() const { return h_pgv_; }
  // After the graph submitted the parts of the frame of iteration `it`: rank 0 collects them.
  void deliver(int it);
  // Writes the frames every block has delivered (rank 0; call from the submitting thread).
  void flush();
  // After the last task, on every rank: the remaining frames, the PGV map, the XDMF file.
  void finish();
  // Checkpoints: the PGV map so far ([2][ny][nx] on rank 0, empty elsewhere; every rank takes
  // part), and a restart's: each rank's blocks' peaks from the map, and on rank 0 the frames of an
  // earlier snapshot file (io/snapshot_file earlier_frames).
  std::vector<float> pgv_map();
  void restore_pgv(const std::vector<float>& map);
  // The displacement planes' sums so far, each [3][n2][n1] by the case's plane index (rank 0; every
  // rank takes part), and a restart's: each owner's parts from them (`planes` by plane index, empty
  // for velocity planes).
  std::map<size_t, std::vector<float>> displacement_planes();
  void restore_displacement(const std::map<size_t, std::vector<float>>& planes);
  void carry_frames(const EarlierFrames& earlier);

 private:
  struct Place {  // where a part goes in its plane
    size_t plane;
    int x0, y0;  // the block's origin in the grid
  };
  struct Frame {
    std::vector<std::vector<float>> planes;  // [plane][3][n2][n1]
    int pending = 0;
  };
  const Case& case_;
  std::vector<BlockData>& blocks_;
  std::vector<int> owner_;  // by block
  int rank_;
  std::unique_ptr<SnapshotWriter> writer_;  // rank 0
  // Every part of every rank in global order (a displacement plane's gather): its plane, owner and
  // place, and its buffer where this rank owns it.
  struct AnyPart {
    size_t plane;
    int owner, x0, y0;
    BlockShape shape;
    starpu_data_handle_t buffer;  // null unless this rank owns it
  };
  std::vector<AnyPart> all_;
  std::vector<PlanePart> planes_;  // those this rank extracts or receives, in global order
  std::vector<Place> places_;      // of each of planes_
  std::vector<HostFloats> buffers_;  // of each of planes_
  std::vector<HostFloats> pgv_;  // per block this rank owns
  std::vector<starpu_data_handle_t> h_pgv_;
  std::mutex mutex_;
  std::condition_variable delivered_;  // a part arrived
  std::map<int, Frame> frames_;  // by iteration (rank 0)
  bool finished_ = false;
  static void on_part(void* arg);
  std::vector<float> gather_pgv();
};

}  // namespace ondes
