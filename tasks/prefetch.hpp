// prefetch_ghosts: brings a block's incoming boundary buffers from another GPU to its own as soon
// as their producer is done, rather than when the block's next update is ready to run. A CUDA
// task on the consumer's GPU that does nothing: StarPU copies its buffers (R) there before it
// runs. Why: a strip's update was pushed only once its own GPU's big block was done, and then
// waited for the neighbour GPU's buffer (fetched only then), the GPUs settling half a step apart
// (docs/performance.md, Decisions: ghost prefetch). Buffers: the neighbours' boundary
// buffers (R). No model.
#pragma once
#include "partition/block_data.hpp"
#include "tasks/codelet.hpp"

namespace ondes {

namespace prefetch_task {

inline void entry(void*[], void*) {}

inline starpu_codelet& codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c = make_codelet("prefetch_ghosts", entry, entry, nullptr, {});
    c.callback_func = nullptr;  // nothing to profile: its time is the copy's
    return c;
  }();
  return cl;
}

}  // namespace prefetch_task

// After the velocity (or stress) updates of a half step: block b's buffers of that field from the
// neighbours whose GPU (memory node) is not b's, fetched to b's GPU. Returns the tasks submitted.
inline int submit_ghost_prefetch(std::vector<BlockData>& blocks, const BlockData& b, bool velocity) {
  if (!b.local || b.place.node < 0 || starpu_node_get_kind(unsigned(b.place.node)) != STARPU_CUDA_RAM) return 0;
  starpu_data_descr d[kDirections];
  int n = 0;
  for (int dir = 0; dir < kDirections; ++dir) {
    const int nb = b.info.neighbour[dir];
    if (nb < 0 || !blocks[nb].local || blocks[nb].place.node < 0 || blocks[nb].place.node == b.place.node) continue;
    const BlockData& other = blocks[nb];
    if (other.routes.out_node[opposite(dir)] == b.place.node) continue;  // written here by a peer write
    d[n++] = {velocity ? other.h_velocity_out[opposite(dir)] : other.h_stress_out[opposite(dir)], STARPU_R};
  }
  if (n == 0) return 0;
  check_starpu(starpu_task_insert(&prefetch_task::codelet(), STARPU_DATA_MODE_ARRAY, d, n, STARPU_EXECUTE_WHERE,
                                  STARPU_CUDA, STARPU_TASK_WORKERIDS, b.place.workers.len(), b.place.workers.data(),
                                  STARPU_PRIORITY, b.place.priority, 0),
               "submitting prefetch_ghosts");
  return 1;
}

}  // namespace ondes
