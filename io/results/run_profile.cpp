#include "io/results/run_profile.hpp"

namespace ondes {

int64_t RunProfile::tasks() const {
  int64_t n = 0;
  for (const CodeletStats& c : codelets) n += c.tasks;
  return n;
}

double RunProfile::idle_fraction(const std::string& kind) const {
  double total = 0, executing = 0;
  for (const WorkerStats& w : workers)
    if (w.kind == kind) total += w.total_seconds, executing += w.executing_seconds;
  return total > 0 ? 1 - executing / total : 0;
}

double RunProfile::bytes_transferred() const {
  double b = 0;
  for (const TransferStats& t : transfers) b += t.bytes;
  return b;
}

int64_t RunProfile::compute_tasks(const std::string& kind) const {
  int64_t n = 0;
  for (const CodeletStats& c : codelets)
    if (c.worker_kind == kind) {
      if (c.codelet == "compute_velocity" || c.codelet == "compute_stress") n += c.tasks;
      if (c.codelet == "chain") n += c.updates;  // a window's velocity and stress updates, every step
    }
  return n;
}

}  // namespace ondes
