#include "engine/node_share.hpp"

#include <fcntl.h>
#include <hwloc.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace ondes {

// hwloc reads and writes the kernel's list syntax.
std::set<int> parse_cpu_list(const std::string& list) {
  std::set<int> cpus;
  hwloc_bitmap_t b = hwloc_bitmap_alloc();
  // A list that does not parse, or an open range (an infinite set), is nothing read.
  if (b && hwloc_bitmap_list_sscanf(b, list.c_str()) == 0 && hwloc_bitmap_weight(b) >= 0) {
    unsigned c = 0;
    hwloc_bitmap_foreach_begin(c, b) cpus.insert(static_cast<int>(c));
    hwloc_bitmap_foreach_end();
  }
  hwloc_bitmap_free(b);
  return cpus;
}

std::string format_cpu_list(const std::set<int>& cpus) {
  hwloc_bitmap_t b = hwloc_bitmap_alloc();
  for (int c : cpus) hwloc_bitmap_set(b, static_cast<unsigned>(c));
  char* text = nullptr;
  std::string out;
  if (hwloc_bitmap_list_asprintf(&text, b) >= 0 && text) out = text;
  free(text);
  hwloc_bitmap_free(b);
  return out;
}

namespace {
std::string first_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

// The CPUs a thread may run on, from its status file.
std::set<int> allowed_cpus(const std::filesystem::path& status) {
  std::ifstream in(status);
  const std::string key = "Cpus_allowed_list:";
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, key.size(), key) == 0) return parse_cpu_list(line.substr(key.size()));
  return {};
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}
}  // namespace

BoundCpus cpus_bound_by(const std::string& program, int self, const std::string& proc) {
  namespace fs = std::filesystem;
  BoundCpus out;
  std::error_code ec;
  for (fs::directory_iterator p(proc, ec), end; !ec && p != end; p.increment(ec)) {
    const std::string pid = p->path().filename().string();
    if (!all_digits(pid) || std::stoi(pid) == self) continue;
    if (first_line(p->path() / "comm") != program) continue;  // processes come and go: read what is there
    std::error_code tec;
    for (fs::directory_iterator t(p->path() / "task", tec), tend; !tec && t != tend; t.increment(tec)) {
      const std::set<int> cpus = allowed_cpus(t->path() / "status");
      if (cpus.size() != 1) continue;
      out.cpus.insert(*cpus.begin());
      out.holders.insert(std::stoi(pid));
    }
  }
  return out;
}

NodeLock::NodeLock(const std::string& path, std::chrono::milliseconds wait) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return;
  fchmod(fd, 0666);  // whoever made it, every user's runs take it (the umask would narrow it)
  // A run stuck in its start (a GPU that does not answer) must not hold every later run back:
  // after the wait, go on without the lock.
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK || std::chrono::steady_clock::now() >= deadline) {
      close(fd);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  fd_ = fd;
}

NodeLock::~NodeLock() {
  if (fd_ >= 0) close(fd_);  // releases the lock
}

}  // namespace ondes
