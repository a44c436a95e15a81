#include "tasks/profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace ondes::profile {
namespace {

struct Event {
  int worker;
  const char* codelet;
  std::string task;  // the task's StarPU name (a block task's block), or empty
  double start_us, end_us;
  double ready_us;         // pushed to the scheduler: its dependencies met
  double push_us, pop_us;  // the policy's time to take it in and to hand it to the worker
};

struct Totals {
  int64_t tasks = 0;
  double us = 0;
  int64_t updates = 0;
};

struct State {
  std::mutex m;
  bool trace = false;
  std::map<std::pair<const char*, int>, Totals> totals;  // (codelet name, a static string; worker type)
  std::vector<Event> events;
  std::map<int, Totals> parked;  // by worker
};

State& state() {
  static State s;
  return s;
}

std::string worker_kind(int worker) {
  return starpu_worker_get_type(worker) == STARPU_CUDA_WORKER ? "cuda" : "cpu";
}

// A CUDA worker's GPU (several workers, one per stream, share one); empty for a CPU worker.
std::string worker_device(int worker) {
  return starpu_worker_get_type(worker) == STARPU_CUDA_WORKER ? std::to_string(starpu_worker_get_devid(worker)) : "";
}

std::string node_kind(unsigned node) {
  return starpu_node_get_kind(node) == STARPU_CUDA_RAM ? "cuda" : "ram";
}

// StarPU 1.3 takes a non-const pointer.
double microseconds(timespec t) { return starpu_timing_timespec_to_us(&t); }
double seconds(timespec t) { return microseconds(t) * 1e-6; }

}  // namespace

void start(bool trace) {
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) starpu_profiling_worker_get_info(int(w), nullptr);
  for (int b = 0; b < starpu_bus_get_count(); ++b) starpu_bus_get_profiling_info(b, nullptr);
  State& s = state();
  std::lock_guard<std::mutex> g(s.m);
  s.trace = trace;
  s.totals.clear();
  s.events.clear();
  s.parked.clear();
}

void record(const starpu_task* task, int64_t updates) {
  if (!task || !task->cl || !task->profiling_info) return;
  const starpu_profiling_task_info* p = task->profiling_info;
  if (p->workerid < 0) return;
  const double start = microseconds(p->start_time);
  const double end = microseconds(p->end_time);
  State& s = state();
  std::lock_guard<std::mutex> g(s.m);
  Totals& t = s.totals[{task->cl->name ? task->cl->name : "?", starpu_worker_get_type(p->workerid)}];
  ++t.tasks;
  t.us += end - start;
  t.updates += updates;
  if (s.trace) {
    // A time StarPU did not set stays zero: the task's own start stands for it (a span of 0).
    const auto at = [start](timespec t) { return t.tv_sec == 0 && t.tv_nsec == 0 ? start : microseconds(t); };
    s.events.push_back({p->workerid, task->cl->name, task->name ? task->name : "", start, end, at(p->push_start_time),
                        at(p->push_end_time) - at(p->push_start_time), at(p->pop_end_time) - at(p->pop_start_time)});
  }
}

void task_ended(void*) { record(starpu_task_get_current()); }

void parked(int worker, double seconds) {
  State& s = state();
  std::lock_guard<std::mutex> g(s.m);
  Totals& t = s.parked[worker];
  ++t.tasks;
  t.us += seconds * 1e6;
}

RunProfile collect() {
  RunProfile r;
  std::map<int, Totals> parked;
  {
    State& s = state();
    std::lock_guard<std::mutex> g(s.m);
    parked = s.parked;
    for (const auto& [key, t] : s.totals)
      r.codelets.push_back({key.first, key.second == STARPU_CUDA_WORKER ? "cuda" : "cpu", t.tasks, t.us * 1e-6, t.updates});
  }
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    starpu_profiling_worker_info info;
    starpu_profiling_worker_get_info(int(w), &info);
    char name[64];
    starpu_worker_get_name(int(w), name, sizeof(name));
    const Totals& p = parked[int(w)];
    r.workers.push_back({int(w), name, worker_kind(int(w)), seconds(info.total_time),
                         std::max(0.0, seconds(info.executing_time) - p.us * 1e-6), seconds(info.sleeping_time),
                         std::max<int64_t>(0, info.executed_tasks - p.tasks)});
  }
  for (int b = 0; b < starpu_bus_get_count(); ++b) {
    starpu_profiling_bus_info info;
    starpu_bus_get_profiling_info(b, &info);
    if (info.transfer_count == 0) continue;
    const int src = starpu_bus_get_src(b), dst = starpu_bus_get_dst(b);
    r.transfers.push_back({src, dst, node_kind(unsigned(src)), node_kind(unsigned(dst)),
                           double(info.transferred_bytes), info.transfer_count});
  }
  return r;
}

void write_trace(const std::string& path) {
  State& s = state();
  std::lock_guard<std::mutex> g(s.m);
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write the task trace", path));
  double t0 = s.events.empty() ? 0 : s.events.front().start_us;
  for (const Event& e : s.events) t0 = std::min({t0, e.start_us, e.ready_us});
  out << "worker,worker_kind,codelet,start_s,end_s,block,device,ready_s,push_us,pop_us\n";
  for (const Event& e : s.events)
    out << fmt::format("{},{},{},{:.7f},{:.7f},{},{},{:.7f},{:.2f},{:.2f}\n", e.worker, worker_kind(e.worker), e.codelet,
                       (e.start_us - t0) * 1e-6, (e.end_us - t0) * 1e-6, e.task, worker_device(e.worker),
                       (e.ready_us - t0) * 1e-6, e.push_us, e.pop_us);
  if (!out) throw std::runtime_error(fmt::format("{}: writing the task trace failed", path));
}

}  // namespace ondes::profile
