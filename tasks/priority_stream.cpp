#include "tasks/codelet.hpp"

#ifdef ONDES_CUDA_CODELETS
#include <spdlog/spdlog.h>

#include <array>


namespace ondes {
namespace {

thread_local cudaStream_t g_override = nullptr;

// A worker's stream of its GPU's highest priority and the two events that tie it to StarPU's
// stream, made by the worker's thread on first use (its GPU is current there).
struct PriorityStream {
  cudaStream_t stream = nullptr;
  cudaEvent_t in = nullptr, out = nullptr;
};
// Null stream where CUDA refused one: the scope then leaves StarPU's stream in place.
PriorityStream& priority_stream(int worker) {
  static std::array<PriorityStream, STARPU_NMAXWORKERS> streams;
  static std::array<bool, STARPU_NMAXWORKERS> tried{};
  PriorityStream& p = streams[worker];
  if (!tried[worker]) {
    tried[worker] = true;
    int least = 0, greatest = 0;
    const bool ok = cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess &&
                    cudaStreamCreateWithPriority(&p.stream, cudaStreamNonBlocking, greatest) == cudaSuccess &&
                    cudaEventCreateWithFlags(&p.in, cudaEventDisableTiming) == cudaSuccess &&
                    cudaEventCreateWithFlags(&p.out, cudaEventDisableTiming) == cudaSuccess;
    if (!ok) {
      spdlog::warn("no high-priority CUDA stream for worker {} ({}): its frontier tasks stay on StarPU's stream",
                   worker, cudaGetErrorString(cudaGetLastError()));
      p = PriorityStream{};
    }
  }
  return p;
}

}  // namespace

cudaStream_t cuda_stream() { return g_override ? g_override : starpu_cuda_get_local_stream(); }

PriorityScope::PriorityScope() {
  starpu_task* t = starpu_task_get_current();
  if (!t || t->priority <= 0) return;
  const int worker = starpu_worker_get_id_check();
  PriorityStream& p = priority_stream(worker);
  if (!p.stream) return;
  worker_ = worker;
  starpu_ = starpu_cuda_get_local_stream();
  cudaEventRecord(p.in, starpu_);  // after what StarPU queued before this task (its pipeline)
  cudaStreamWaitEvent(p.stream, p.in, 0);
  g_override = p.stream;
}

PriorityScope::~PriorityScope() {
  if (worker_ < 0) return;
  PriorityStream& p = priority_stream(worker_);
  cudaEventRecord(p.out, p.stream);
  cudaStreamWaitEvent(starpu_, p.out, 0);  // StarPU sees the task end when its stream passes this
  g_override = nullptr;
}

}  // namespace ondes
#endif
