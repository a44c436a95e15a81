// Snapshots during a run: every `every` iterations an extract_plane task per block and plane copies
// the velocity where it lives (CPU or GPU); rank 0 gets every block's plane buffer (its own through
// starpu_data_acquire_cb, the others' as StarPU-MPI messages, nothing waits) and writes the frame
// once every block has arrived. An update_pgv task per block and iteration keeps the top face's
// peak ground velocity, gathered on rank 0 at the end.
#pragma once
#include <starpu.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/snapshot_file.hpp"
#include "partition/block_data.hpp"
#include "partition/mapping.hpp"

namespace ondes {

class SnapshotRecorder {
 public:
  // Every rank builds one with the same blocks and map; rank 0 writes `path`.
  SnapshotRecorder(const Case& c, std::vector<BlockData>& blocks, const RankMap& map, int rank, const std::string& path);
  ~SnapshotRecorder();
  SnapshotRecorder(const SnapshotRecorder&) = delete;
  SnapshotRecorder& operator=(const SnapshotRecorder&) = delete;

  // After iteration `it` was submitted: its PGV update, and a frame when it is due.
  void submit(int it, unsigned long long where);
  // Writes the frames every block has delivered (rank 0; call from the submitting thread).
  void flush();
  // After the last task, on every rank: the remaining frames, the PGV map, the XDMF file.
  void finish();
  int tasks_per_iteration() const;

 private:
  struct Part;  // one block's buffer for one plane
  struct Frame {
    std::vector<std::vector<float>> planes;  // [plane][3][n2][n1]
    int pending = 0;
  };
  const Case& case_;
  std::vector<BlockData>& blocks_;
  std::vector<int> owner_;  // by block
  int rank_;
  std::unique_ptr<SnapshotWriter> writer_;  // rank 0
  std::vector<std::unique_ptr<Part>> parts_;  // those this rank extracts or receives, in global order
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
