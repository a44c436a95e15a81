// What a scheduler study needs to know about a run, as StarPU's profiling measured it (rank 0):
// tasks and their mean duration per codelet and worker kind, each worker's busy and idle time,
// bytes moved between memory nodes. Plain data: filled by tasks/profile, written by io/output_h5.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ondes {

struct CodeletStats {
  std::string codelet, worker_kind;  // worker_kind: "cpu" or "cuda"
  int64_t tasks = 0;
  double total_seconds = 0;  // summed task durations (start to end of the codelet)
  int64_t updates = 0;       // block updates made by window tasks (tasks/chain.hpp: two a step)
  double mean_seconds() const { return tasks ? total_seconds / tasks : 0; }
};

struct WorkerStats {
  int id = 0;
  std::string name, kind;
  double total_seconds = 0, executing_seconds = 0, sleeping_seconds = 0;
  int64_t tasks = 0;
  double idle_fraction() const { return total_seconds > 0 ? 1 - executing_seconds / total_seconds : 0; }
};

struct TransferStats {
  int src_node = 0, dst_node = 0;
  std::string src_kind, dst_kind;  // "ram" or "cuda"
  double bytes = 0;
  int64_t count = 0;
};

struct RunProfile {
  std::vector<CodeletStats> codelets;
  std::vector<WorkerStats> workers;
  std::vector<TransferStats> transfers;
  int64_t tasks() const;
  // Summed idle time over summed time of the workers of a kind (0 when there are none).
  double idle_fraction(const std::string& kind) const;
  double bytes_transferred() const;
  // Block updates (velocity and stress: compute tasks, two a step of a window) run by workers of a kind.
  int64_t compute_tasks(const std::string& kind) const;
};

}  // namespace ondes
