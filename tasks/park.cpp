#include "tasks/park.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include <spdlog/spdlog.h>

#include "tasks/codelet.hpp"
#include "tasks/profile.hpp"

namespace ondes {
namespace {

// What the parked tasks sleep on; lives as long as the process (a scope waits for its tasks, so
// one scope's release never meets the next scope's tasks).
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool open = true;
};
Gate& gate() {
  static Gate g;
  return g;
}

void park_entry(void*[], void*) {
  const auto start = std::chrono::steady_clock::now();
  Gate& g = gate();
  {
    std::unique_lock<std::mutex> lock(g.m);
    g.cv.wait(lock, [&] { return g.open; });
  }
  profile::parked(starpu_worker_get_id_check(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// CPU only, no buffers, no model (a parked task's length says nothing about the worker), no
// profiling callback: its time is taken off the worker's busy time instead.
starpu_codelet& park_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c = make_codelet("park_cpu", park_entry, nullptr, nullptr, {});
    c.nbuffers = 0;
    c.callback_func = nullptr;
    return c;
  }();
  return cl;
}

}  // namespace

std::vector<int> ParkedCpus::cpu_workers() {
  std::vector<int> w(starpu_worker_get_count_by_type(STARPU_CPU_WORKER));
  w.resize(starpu_worker_get_ids_by_type(STARPU_CPU_WORKER, w.data(), static_cast<unsigned>(w.size())));
  return w;
}

ParkedCpus::ParkedCpus(const std::vector<int>& workers) {
  std::vector<int> others;
  for (int w = 0; w < static_cast<int>(starpu_worker_get_count()); ++w)
    if (std::find(workers.begin(), workers.end(), w) == workers.end()) others.push_back(w);
  if (workers.empty() || others.empty()) return;
  {
    std::lock_guard<std::mutex> g(gate().m);
    gate().open = false;
  }
  try {
    for (int w : workers) {
      starpu_task* t = starpu_task_create();
      t->cl = &park_codelet();
      t->execute_on_a_specific_worker = 1;
      t->workerid = static_cast<unsigned>(w);
      t->detach = 0;  // release() waits for it
      t->name = "park_cpu";
      t->sched_ctx = 0;
      const int ret = starpu_task_submit(t);
      if (ret != 0) starpu_task_destroy(t);
      check_starpu(ret, "submitting park_cpu");
      tasks_.push_back(t);
    }
    // The initial context's policy, set up as it was there (no priority range given: the policy
    // sets its own, e.g. dmdas any int; a range passed explicitly overflowed dmdasd's count of
    // priorities and divided dmda's by zero).
    const starpu_sched_policy* policy = starpu_sched_ctx_get_sched_policy(0);
    ctx_ = starpu_sched_ctx_create(others.data(), static_cast<int>(others.size()), "unparked",
                                   STARPU_SCHED_CTX_POLICY_NAME,
                                   policy && policy->policy_name ? policy->policy_name : "dmda", 0);
    starpu_sched_ctx_set_context(&ctx_);
  } catch (...) {
    release();
    throw;
  }
}

ParkedCpus::~ParkedCpus() { release(); }

void ParkedCpus::release() {
  if (ctx_ != STARPU_NMAX_SCHED_CTXS) starpu_sched_ctx_set_context(nullptr);
  {
    std::lock_guard<std::mutex> g(gate().m);
    gate().open = true;
  }
  gate().cv.notify_all();
  for (starpu_task* t : tasks_)  // destroys it (task->destroy)
    if (starpu_task_wait(t) != 0) spdlog::warn("a park_cpu task could not be waited for");
  tasks_.clear();
  if (ctx_ != STARPU_NMAX_SCHED_CTXS) {
    starpu_task_wait_for_all_in_ctx(ctx_);
    starpu_sched_ctx_delete(ctx_);
    ctx_ = STARPU_NMAX_SCHED_CTXS;
  }
}

}  // namespace ondes
