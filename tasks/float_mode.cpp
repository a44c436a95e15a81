#include "tasks/float_mode.hpp"

#include <starpu.h>

#include <atomic>

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace ondes {
namespace {

#if defined(__SSE__) || defined(__x86_64__)
constexpr unsigned kFtzDaz = 0x8040;  // MXCSR: flush to zero (bit 15), denormals are zero (bit 6)
void set_mode(void*) { _mm_setcsr(_mm_getcsr() | kFtzDaz); }
bool has_mode() { return (_mm_getcsr() & kFtzDaz) == kFtzDaz; }
#elif defined(__aarch64__)
constexpr unsigned long kFz = 1ul << 24;  // FPCR.FZ
unsigned long fpcr() {
  unsigned long r;
  __asm__ volatile("mrs %0, fpcr" : "=r"(r));
  return r;
}
void set_mode(void*) {
  const unsigned long r = fpcr() | kFz;
  __asm__ volatile("msr fpcr, %0" : : "r"(r));
}
bool has_mode() { return (fpcr() & kFz) != 0; }
#else
#error "no flush-to-zero mode known for this processor: CPU and CUDA results would differ"
#endif

void count_mode(void* counter) {
  if (has_mode()) static_cast<std::atomic<int>*>(counter)->fetch_add(1);
}

}  // namespace

void flush_subnormals_on_cpu_workers() { starpu_execute_on_each_worker(set_mode, nullptr, STARPU_CPU); }

int cpu_workers_flushing_subnormals() {
  std::atomic<int> n{0};
  starpu_execute_on_each_worker(count_mode, &n, STARPU_CPU);
  return n.load();
}

}  // namespace ondes
