// watch_velocity: the watchdog's measure of a block (codelets/watch.hpp) into its one-float peak
// handle, computed where the velocity lives. Buffers: the velocity (R), the peak (W). Model: history.
#pragma once
#include "codelets/watch.hpp"
#include "partition/block_data.hpp"
#include "tasks/codelet.hpp"

namespace ondes {

namespace watch_task {

// The block's peak (a one-float buffer) from its velocity v; also run by a window at its end.
template <class B>
void measure(const BlockShape& shape, const float* v, float* peak) {
  if constexpr (B::cuda)
    cuda::velocity_peak(shape, v, peak, B::stream());
  else
    *peak = cpu::velocity_peak(shape, v);
}

template <class B>
void entry(void* buffers[], void* cl_arg) {
  measure<B>(task_args<BlockShape>(cl_arg), vector_data<float>(buffers[0]), vector_data<float>(buffers[1]));
}

inline starpu_codelet& codelet() {
  static starpu_perfmodel model = history_model("ondes3d_watch_velocity");
  static starpu_codelet cl =
      make_codelet("watch_velocity", entry<OnCpu>, ONDES_CUDA_ENTRY(entry), &model, {STARPU_R, STARPU_W});
  return cl;
}

}  // namespace watch_task

// Returns the tasks submitted (1).
inline int submit_watch(BlockData& b, unsigned long long where) {
  BlockShape s = b.info.shape;
  check_starpu(starpu_task_insert(&watch_task::codelet(), STARPU_R, b.h_velocity, STARPU_W, b.h_peak, STARPU_VALUE, &s,
                                  sizeof(s), STARPU_EXECUTE_WHERE, where, STARPU_TASK_WORKERIDS, b.place.workers.len(),
                                  b.place.workers.data(), 0),
               "submitting watch_velocity");
  return 1;
}

}  // namespace ondes
