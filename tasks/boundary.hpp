// save_boundary: copies a block's edge layers of one field kind into its boundary buffer towards
// one neighbour (codelets/boundary.hpp). Buffers: the field (R), the buffer (W). Model: regression
// over the values copied.
#pragma once
#include "codelets/boundary.hpp"
#include "partition/block_data.hpp"
#include "tasks/codelet.hpp"

namespace ondes {

struct SaveArgs {
  BlockShape shape;
  int ncomp = 0;
  int dir = 0;
};

namespace save_task {

template <class B>
void entry(void* buffers[], void* cl_arg) {
  const auto a = task_args<SaveArgs>(cl_arg);
  ONDES_RUN(B, save_box, a.shape, a.ncomp, edge_box(a.shape, a.dir), vector_data<float>(buffers[0]),
            vector_data<float>(buffers[1]));
}

inline uint32_t footprint(starpu_task* task) {
  const auto a = task_args<SaveArgs>(task->cl_arg);
  const Box b = edge_box(a.shape, a.dir);
  return footprint_of({b.ni, b.nj, a.shape.nz, a.ncomp});
}
inline size_t size(starpu_task* task, unsigned) {
  const auto a = task_args<SaveArgs>(task->cl_arg);
  const Box b = edge_box(a.shape, a.dir);
  return static_cast<size_t>(b.ni) * b.nj * a.shape.nz * a.ncomp;
}

inline starpu_codelet& codelet() {
  static starpu_perfmodel model = regression_model("ondes3d_save_boundary", footprint, size);
  static starpu_codelet cl =
      make_codelet("save_boundary", entry<OnCpu>, ONDES_CUDA_ENTRY(entry), &model, {STARPU_R, STARPU_W});
  return cl;
}

}  // namespace save_task

// Saves block b's velocity (or stress) edges towards each of its neighbours. Returns the tasks
// submitted.
inline int submit_saves(BlockData& b, bool velocity, unsigned long long where) {
  int n = 0;
  for (int dir = 0; dir < kDirections; ++dir) {
    if (b.info.neighbour[dir] < 0) continue;
    SaveArgs a{b.info.shape, velocity ? kVelocityComponents : kStressComponents, dir};
    check_starpu(starpu_task_insert(&save_task::codelet(), STARPU_R, velocity ? b.h_velocity : b.h_stress, STARPU_W,
                                    velocity ? b.h_velocity_out[dir] : b.h_stress_out[dir], STARPU_VALUE, &a,
                                    sizeof(a), STARPU_EXECUTE_WHERE, where, 0),
                 "submitting save_boundary");
    ++n;
  }
  return n;
}

}  // namespace ondes
