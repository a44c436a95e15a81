// extract_plane: a plane of a block's velocity into a buffer (args PlaneArgs; buffers: the
// velocity (R), the plane (W)); accumulate_plane: the same added to a displacement (the plane RW).
// update_pgv: the running peak ground velocity of a block's top face (args BlockShape; buffers: the
// velocity (R), the peaks (RW)). Models: history.
// (codelets/snapshot.hpp)
#pragma once
#include "codelets/snapshot.hpp"
#include "tasks/codelet.hpp"
#include "tasks/iteration.hpp"
#include "tasks/messages.hpp"

namespace ondes {

namespace plane_task {

template <class B>
void entry(void* buffers[], void* cl_arg) {
  ONDES_RUN(B, extract_plane, task_args<PlaneArgs>(cl_arg), vector_data<float>(buffers[0]),
            vector_data<float>(buffers[1]));
}

inline starpu_codelet& codelet() {
  static starpu_perfmodel model = history_model("ondes3d_extract_plane");
  static starpu_codelet cl =
      make_codelet("extract_plane", entry<OnCpu>, ONDES_CUDA_ENTRY(entry), &model, {STARPU_R, STARPU_W});
  return cl;
}
// A displacement plane's (PlaneArgs::accumulate): the buffer read and written every iteration.
inline starpu_codelet& accumulate_codelet() {
  static starpu_perfmodel model = history_model("ondes3d_accumulate_plane");
  static starpu_codelet cl =
      make_codelet("accumulate_plane", entry<OnCpu>, ONDES_CUDA_ENTRY(entry), &model, {STARPU_R, STARPU_RW});
  return cl;
}

}  // namespace plane_task

namespace pgv_task {

template <class B>
void entry(void* buffers[], void* cl_arg) {
  ONDES_RUN(B, update_pgv, task_args<BlockShape>(cl_arg), vector_data<float>(buffers[0]),
            vector_data<float>(buffers[1]));
}

inline starpu_codelet& codelet() {
  static starpu_perfmodel model = history_model("ondes3d_update_pgv");
  static starpu_codelet cl =
      make_codelet("update_pgv", entry<OnCpu>, ONDES_CUDA_ENTRY(entry), &model, {STARPU_R, STARPU_RW});
  return cl;
}

}  // namespace pgv_task

// The extract task of a part this rank owns, and the message that brings it to rank 0. Returns the
// tasks submitted. The task runs where the block's tasks run (its GPU where the blocks are pinned),
// as update_pgv and watch_velocity do: no copy of the block's velocity to another GPU, and (chained
// steps, tasks/chain.hpp) never queued on another block's GPU behind a window that waits for this
// block's next one, which waits for this task.
// A displacement part's buffer is brought up to date every iteration (submit_accumulate), here only sent.
inline void insert_plane_task(const PlanePart& p, unsigned long long where) {
  const bool accumulate = p.args.accumulate != 0.0f;
  const WorkerSet& workers = p.workers ? *p.workers : any_workers();
  check_starpu(starpu_task_insert(accumulate ? &plane_task::accumulate_codelet() : &plane_task::codelet(), STARPU_R,
                                  p.velocity, accumulate ? STARPU_RW : STARPU_W, p.buffer, STARPU_VALUE, &p.args,
                                  sizeof(p.args), STARPU_EXECUTE_WHERE, where, STARPU_TASK_WORKERIDS, workers.len(),
                                  workers.data(), 0),
               accumulate ? "submitting accumulate_plane" : "submitting extract_plane");
}
inline int submit_plane(const PlanePart& p, int rank, unsigned long long where) {
  int tasks = 0;
  if (p.owner == rank && p.args.accumulate == 0.0f) {
    insert_plane_task(p, where);
    tasks = 1;
  }
  const Transfer t{p.buffer, rank == 0 ? p.owner : 0, p.tag, 0};
  if (rank != 0)
    send(t);
  else if (p.owner != 0)
    receive(t);
  return tasks;
}

// A displacement part this rank owns: its buffer += dt v, after every iteration. Returns the tasks submitted.
inline int submit_accumulate(const PlanePart& p, int rank, unsigned long long where) {
  if (p.owner != rank || p.args.accumulate == 0.0f) return 0;
  insert_plane_task(p, where);
  return 1;
}

// Returns the tasks submitted (1).
inline int submit_pgv(starpu_data_handle_t velocity, starpu_data_handle_t peaks, BlockShape s,
                      unsigned long long where, const WorkerSet& workers) {
  check_starpu(starpu_task_insert(&pgv_task::codelet(), STARPU_R, velocity, STARPU_RW, peaks, STARPU_VALUE, &s,
                                  sizeof(s), STARPU_EXECUTE_WHERE, where, STARPU_TASK_WORKERIDS, workers.len(),
                                  workers.data(), 0),
               "submitting update_pgv");
  return 1;
}

}  // namespace ondes
