// save_edges: copies a block's edge layers of one field kind into its boundary buffers towards
// every neighbour (codelets/edges.hpp). Buffers: the field (R), then one buffer (W) per bit of
// mask, in Direction order. Model: regression over the values copied, history keyed by the block's
// dimensions and neighbours.
#pragma once
#include "codelets/edges.hpp"
#include "partition/block_data.hpp"
#include "tasks/codelet.hpp"
#include "tasks/ipc_halos.hpp"
#include "tasks/peer_halos.hpp"

namespace ondes {

struct EdgesArgs {
  BlockShape shape;
  int kind = 0;  // FieldKind
  int mask = 0;  // directions with a neighbour
};

namespace edges_task {

template <class B>
void entry(void* buffers[], void* cl_arg) {
  const auto a = task_args<EdgesArgs>(cl_arg);
  BoundaryBuffers out{};
  for (int dir = 0, next = 1; dir < kDirections; ++dir)
    if (a.mask & (1 << dir)) out.at[dir] = vector_data<float>(buffers[next++]);
  ONDES_RUN(B, save_edges, a.shape, a.kind, vector_data<float>(buffers[0]), out);
}

inline uint32_t footprint(starpu_task* task) {
  const auto a = task_args<EdgesArgs>(task->cl_arg);
  return footprint_of({a.shape.nx, a.shape.ny, a.shape.nz, a.kind, a.mask});
}
inline size_t size(starpu_task* task, unsigned) {
  const auto a = task_args<EdgesArgs>(task->cl_arg);
  int64_t n = 0;
  for (int dir = 0; dir < kDirections; ++dir)
    if (a.mask & (1 << dir)) n += box_floats(a.shape, kHaloComponents, edge_box(a.shape, dir));
  return static_cast<size_t>(n);
}

inline starpu_codelet& codelet() {
  static starpu_perfmodel model = regression_model("ondes3d_save_edges", footprint, size);
  static starpu_codelet cl = make_codelet("save_edges", entry<OnCpu>, ONDES_CUDA_ENTRY(entry), &model, {});
  return cl;
}

}  // namespace edges_task

// Saves block b's velocity (or stress) edges towards all its neighbours. Returns the tasks
// submitted: 1, or 0 for a block without neighbours. A block whose buffers travel by CUDA IPC
// saves on its GPU (where the buffers are), writing their tokens.
inline int submit_edges(const std::vector<BlockData>& blocks, BlockData& b, bool velocity, unsigned long long where) {
  starpu_data_descr d[1 + 2 * kDirections];
  int n = 0;
  d[n++] = {velocity ? b.h_velocity : b.h_stress, STARPU_R};
  EdgesArgs a{b.info.shape, velocity ? kVelocityKind : kStressKind, 0};
  for (int dir = 0; dir < kDirections; ++dir) {
    if (b.info.neighbour[dir] < 0) continue;
    d[n++] = {velocity ? b.h_velocity_out[dir] : b.h_stress_out[dir], STARPU_W};
    a.mask |= 1 << dir;
  }
  if (a.mask == 0) return 0;
  std::vector<int> nodes;
  n = add_tokens(blocks, b, velocity, true, false, d, n, nodes);
  if (has_ipc_outputs(b)) where = STARPU_CUDA;
  starpu_codelet& cl = codelet_for(edges_task::codelet(), nodes, n);
  check_starpu(starpu_task_insert(&cl, STARPU_DATA_MODE_ARRAY, d, n, STARPU_VALUE, &a, sizeof(a),
                                  STARPU_EXECUTE_WHERE, where, STARPU_TASK_WORKERIDS, b.place.workers.len(),
                                  b.place.workers.data(), 0),
               "submitting save_edges");
  return 1;
}

}  // namespace ondes
