// Independent runs sharing one node (a run per GPU of a workstation, several runs on a host without
// cgroups): StarPU binds each process's threads from the first core of its affinity mask up, so
// such runs pile their worker and GPU-driver threads onto the same cores. What a starting run needs
// to see the others: the cores their bound threads hold, read from /proc, and a lock that makes
// runs starting together take turns until each has bound its threads (engine/runtime.cpp decides).
#pragma once
#include <chrono>
#include <set>
#include <string>
#include <vector>

namespace ondes {

// The CPUs of a "Cpus_allowed_list" value ("3", "0-3,8,10-11"); empty when it cannot be read.
std::set<int> parse_cpu_list(const std::string& list);
// The same written back, in ranges ("0-3,8,10-11").
std::string format_cpu_list(const std::set<int>& cpus);

struct BoundCpus {
  std::set<int> cpus;     // CPUs (the OS's numbers) that one bound thread each holds
  std::set<int> holders;  // the processes they belong to
};

// Threads of other processes named `program` (their /proc/PID/comm) that are bound to a single CPU,
// under the /proc tree `proc` (a fake tree in tests); this process (`self`) is left out.
BoundCpus cpus_bound_by(const std::string& program, int self, const std::string& proc = "/proc");

// An exclusive lock on a file shared by every user of this node (flock), held for the object's
// lifetime; without a usable lock file, or once `wait` has passed, nothing is held and the run
// goes on.
class NodeLock {
 public:
  explicit NodeLock(const std::string& path, std::chrono::milliseconds wait = std::chrono::seconds(30));
  ~NodeLock();
  NodeLock(const NodeLock&) = delete;
  NodeLock& operator=(const NodeLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace ondes
