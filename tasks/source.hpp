// update_source: adds the block's source points to a field at time t (codelets/source.hpp).
// Buffers: the field (RW), the points (R), the samples of their sampled time functions (R; one
// unused value when none is sampled). Model: history.
#pragma once
#include "codelets/source.hpp"
#include "tasks/codelet.hpp"

namespace ondes {

struct SourceArgs {
  int64_t cells = 0;
  double time = 0;
};

namespace source_task {

template <class B>
void entry(void* buffers[], void* cl_arg) {
  const auto a = task_args<SourceArgs>(cl_arg);
  ONDES_RUN(B, apply_sources, vector_data<float>(buffers[0]), a.cells, vector_data<SourcePoint>(buffers[1]),
            vector_count(buffers[1]), vector_data<double>(buffers[2]), a.time);
}

inline starpu_codelet& codelet() {
  static starpu_perfmodel model = history_model("ondes3d_update_source");
  static starpu_codelet cl =
      make_codelet("update_source", entry<OnCpu>, ONDES_CUDA_ENTRY(entry), &model, {STARPU_RW, STARPU_R, STARPU_R});
  return cl;
}

}  // namespace source_task

// Returns the tasks submitted: 1, or 0 without points (null handle).
inline int submit_source(starpu_data_handle_t field, starpu_data_handle_t points, starpu_data_handle_t samples,
                         int64_t cells, double t, unsigned long long where, const WorkerSet& workers) {
  if (!points) return 0;
  SourceArgs a{cells, t};
  check_starpu(starpu_task_insert(&source_task::codelet(), STARPU_RW, field, STARPU_R, points, STARPU_R, samples,
                                  STARPU_VALUE, &a, sizeof(a), STARPU_EXECUTE_WHERE, where, STARPU_TASK_WORKERIDS, workers.len(),
                                  workers.data(), 0),
               "submitting update_source");
  return 1;
}

}  // namespace ondes
