// Snapshots during a run: every `every` iterations an extract_plane task per block and plane copies
// the velocity where it lives (CPU or GPU), StarPU brings the small plane buffer to main memory
// (starpu_data_acquire_cb, nothing waits), and the frame is written once every block has arrived.
// An update_pgv task per block and iteration keeps the top face's peak ground velocity.
#pragma once
#include <starpu.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/snapshot_file.hpp"
#include "partition/block_data.hpp"

namespace ondes {

class SnapshotRecorder {
 public:
  // Blocks are this process's (snapshots are single-process); path: the HDF5 file to write.
  SnapshotRecorder(const Case& c, std::vector<BlockData>& blocks, const std::string& path);
  ~SnapshotRecorder();
  SnapshotRecorder(const SnapshotRecorder&) = delete;
  SnapshotRecorder& operator=(const SnapshotRecorder&) = delete;

  // After iteration `it` was submitted: its PGV update, and a frame when it is due.
  void submit(int it, unsigned long long where);
  // Writes the frames every block has delivered (call from the submitting thread).
  void flush();
  // After the last task: the remaining frames, the PGV map, the XDMF file.
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
  SnapshotWriter writer_;
  std::vector<std::unique_ptr<Part>> parts_;
  std::vector<HostFloats> pgv_;  // per block (empty for blocks not ours)
  std::vector<starpu_data_handle_t> h_pgv_;
  std::mutex mutex_;
  std::map<int, Frame> frames_;  // by iteration
  bool finished_ = false;
  static void on_part(void* arg);
};

}  // namespace ondes
