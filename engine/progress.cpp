#include "engine/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace ondes {

Progress::Progress(int blocks, int first, int last, double dt, double cells, bool enabled)
    : blocks_(blocks), first_(first), last_(last), dt_(dt), cells_(cells), tty_(isatty(STDERR_FILENO)),
      enabled_(enabled), start_(std::chrono::steady_clock::now()) {
  if (enabled_) thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> g(m_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  print(true);
}

void Progress::on_block_done(void* self) { on_blocks_done(self, 1); }
void Progress::on_blocks_done(void* self, int count) {
  static_cast<Progress*>(self)->done_.fetch_add(count, std::memory_order_relaxed);
}

void Progress::loop() {
  const auto period = tty_ ? std::chrono::milliseconds(500) : std::chrono::seconds(10);
  std::unique_lock<std::mutex> lk(m_);
  while (!cv_.wait_for(lk, period, [this] { return stop_; })) print(false);
}

void Progress::print(bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const long iters = done_.load() / blocks_;
  const int it = first_ + static_cast<int>(iters);
  const double rate = elapsed > 0 ? iters * cells_ / elapsed : 0;
  const double eta = iters > 0 ? elapsed * (last_ - it) / iters : 0;
  const std::string line = fmt::format("iteration {}/{}  t = {:.4f} s  {:.3g} cell-updates/s  ETA {:.0f} s", it,
                                       last_, it * dt_, rate, eta);
  if (tty_)
    std::fprintf(stderr, "\r%s\033[K%s", line.c_str(), final ? "\n" : "");
  else
    std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace ondes
