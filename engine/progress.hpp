// Progress of a run on the terminal: iteration, simulated time, cell-updates per second, ETA.
// A background thread reads a counter that task callbacks increment; at most 2 lines a second on
// a terminal (rewritten in place), one every 10 s in a log.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace ondes {

class Progress {
 public:
  // blocks: compute_stress tasks per iteration; first: this window's first iteration, last: the run's.
  Progress(int blocks, int first, int last, double dt, double cells, bool enabled);
  ~Progress();
  static void on_block_done(void* self);  // StarPU callback
  static void on_blocks_done(void* self, int count);  // the same, count times (a chained window's steps)

 private:
  void loop();
  void print(bool final);
  std::atomic<long> done_{0};
  int blocks_, first_, last_;
  double dt_, cells_;
  bool tty_, enabled_;
  std::chrono::steady_clock::time_point start_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ondes
