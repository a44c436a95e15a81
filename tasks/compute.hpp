// compute_velocity / compute_stress of one block: fill the ghosts of the other field from the
// neighbours' boundary buffers, update (codelets/compute.hpp), add the block's source points of
// the field if it has any (codelets/source.hpp, at time `time`), then save the updated field's
// edges into its own boundary buffers: one task per block and half step where an update_source
// and a save_edges task followed the compute task before (a dependent task costs an idle GPU: docs/
// performance.md, Decisions: one task a half step).
// Buffers: the updated field (RW), the other field (RW where neighbours fill its ghosts, else R),
// material (R), PML memory (RW) if has_pml, for compute_stress the anelastic buffer (RW) if
// has_anelastic, one neighbour's boundary buffer (R) per bit of neighbour_mask, then the block's
// own boundary buffer (W) towards each of those neighbours, each in Direction order, then the
// source points, their emitters and samples (R) and the emitters' values (SCRATCH) if has_source,
// and for compute_stress the points (R) and samples (W) of each station slot the block samples
// (station_slots). Model: regression over the block's cells, history keyed by its dimensions, PML
// cells, neighbours and source.
#pragma once
#include <type_traits>

#include "codelets/boundary.hpp"
#include "codelets/compute.hpp"
#include "codelets/edges.hpp"
#include "codelets/source.hpp"
#include "codelets/stations.hpp"
#include "partition/block_data.hpp"
#include "tasks/codelet.hpp"
#include "tasks/iteration_plan.hpp"
#include "tasks/ipc_halos.hpp"
#include "tasks/peer_halos.hpp"

namespace ondes {

struct ComputeArgs {
  StepParams params;
  int has_pml = 0;
  AnelasticShape anelastic;  // mechanisms 0: elastic, no anelastic buffer
  int neighbour_mask = 0;  // directions whose ghosts it fills and whose boundary buffer it writes
  int has_source = 0;
  double time = 0;  // of the source's time functions
  int station_slots = 0;               // stations' corners sampled after a stress update
  int slot[kMaxStressSlots] = {};     // each one's slot in its group
  MarchGeometry march;                 // of the CUDA kernels (ExecutionPolicy)
  EdgeSaving edges = EdgeSaving::Auto;  // where the block's edges are saved (ExecutionPolicy)
};

namespace compute_task {

// Whether the block's edges are saved by a copy after its update (else by the update: the saving
// kernels), as ExecutionPolicy::edges says; Auto: on CUDA workers apart for a block with no x
// neighbour and by the update otherwise, on CPU workers by the update. Why: a saving march needs
// the registers of 3 thread blocks an SM against the plain march's 4, and a march that reads x
// faces from the neighbours' buffers (XHalo) runs at 3 anyway; so a block with x neighbours saves
// in its march for free, while one without loses more march speed than a copy of its y faces
// costs (docs/performance.md, Decisions: where edges are saved).
template <class B>
bool edges_apart(const ComputeArgs& a) {
  if (a.has_source) return true;  // the neighbours must see the sources: saved after them
  switch (a.edges) {
    case EdgeSaving::Apart: return true;
    case EdgeSaving::Update: return false;
    default: return B::cuda && !(a.neighbour_mask & (1 << XM | 1 << XP));
  }
}

// A field's source buffers in a task (StarPU vectors: partition/block_data.hpp SourceHandles; null
// without sources).
struct SourceBuffers {
  static constexpr int kCount = 5;
  void* points = nullptr;
  void* emitters = nullptr;
  void* samples = nullptr;
  void* values = nullptr;  // scratch
  void* runs = nullptr;
  // The task's buffers from `next` on.
  static SourceBuffers at(void* buffers[], int next) {
    return {buffers[next], buffers[next + 1], buffers[next + 2], buffers[next + 3], buffers[next + 4]};
  }
  SourceArgs args() const {
    return {vector_data<SourcePoint>(points), vector_count(points), vector_data<SourceEmitter>(emitters),
            vector_count(emitters), vector_data<double>(samples), vector_data<double>(values),
            vector_data<SourceRun>(runs), vector_count(runs)};
  }
};

// One field's update of a block, `update(edges)` updating its cells (and saving their edges into
// `edges` where the update saves them), then the sources, then the field's edges into `out` where
// they are saved apart.
template <bool Velocity, class B, class Update>
void update_field_by(const ComputeArgs& a, float* field, const BoundaryBuffers& out, const SourceBuffers& src,
                     Update&& update) {
  const BlockShape& s = a.params.shape;
  const bool apart = edges_apart<B>(a);
  update(apart ? BoundaryBuffers{} : out);
  if (a.has_source)
    ONDES_RUN(B, apply_sources, field, src.args(), a.time);
  if (apart && a.neighbour_mask) ONDES_RUN(B, save_edges, s, Velocity ? kVelocityKind : kStressKind, field, out);
}

// One field's update of a block: the other field's ghosts from the neighbours' buffers `in`, the
// update, the sources, and the field's edges into `out`. The compute task's work, and each half of
// a window's step (tasks/chain.cpp). f: the task's arrays (codelets/compute.hpp), their PML cells'
// count and anelastic shape taken from a.
template <bool Velocity, class B>
void update_field(const ComputeArgs& a, const UpdateArrays& f, const BoundaryBuffers& in, const BoundaryBuffers& out,
                  const SourceBuffers& src) {
  UpdateArrays arrays = f;
  arrays.q = a.anelastic;
  update_field_by<Velocity, B>(a, f.field, out, src, [&](const BoundaryBuffers& edges) {
    if (Velocity)
      ONDES_RUN_TUNED(B, a.march, compute_velocity, a.params, arrays, in, edges);
    else
      ONDES_RUN_TUNED(B, a.march, compute_stress, a.params, arrays, in, edges);
  });
}

template <bool Velocity, class B>
void entry(void* buffers[], void* cl_arg) {
#ifdef ONDES_CUDA_CODELETS
  std::conditional_t<B::cuda, PriorityScope, int> frontier{};
#endif
  const auto a = task_args<ComputeArgs>(cl_arg);
  int next = 3;
  char* pml = a.has_pml ? vector_data<char>(buffers[next++]) : nullptr;
  char* anelastic = !Velocity && a.anelastic.mechanisms ? vector_data<char>(buffers[next++]) : nullptr;
  BoundaryBuffers in{}, out{};
  for (int dir = 0; dir < kDirections; ++dir)
    if (a.neighbour_mask & (1 << dir)) in.at[dir] = vector_data<float>(buffers[next++]);
  for (int dir = 0; dir < kDirections; ++dir)
    if (a.neighbour_mask & (1 << dir)) out.at[dir] = vector_data<float>(buffers[next++]);
  const SourceBuffers src = a.has_source ? SourceBuffers::at(buffers, next) : SourceBuffers{};
  update_field<Velocity, B>(
      a, {vector_data<float>(buffers[0]), vector_data<float>(buffers[1]), vector_data<float>(buffers[2]), pml, anelastic},
      in, out, src);
  // The velocity as the stress update leaves it (its ghosts filled, its cells untouched): what a
  // sample_stations task after this one would read.
  next += a.has_source ? SourceBuffers::kCount : 0;
  for (int i = 0; i < a.station_slots; ++i, next += 2)
    ONDES_RUN(B, sample_stations, vector_data<float>(buffers[1]), a.params.shape.cells(),
              vector_data<StationPoint>(buffers[next]), vector_count(buffers[next]), a.slot[i],
              vector_data<float>(buffers[next + 1]));
}
template <class B>
void velocity_entry(void* buffers[], void* cl_arg) {
  entry<true, B>(buffers, cl_arg);
}
template <class B>
void stress_entry(void* buffers[], void* cl_arg) {
  entry<false, B>(buffers, cl_arg);
}

inline uint32_t footprint(starpu_task* task) {
  const auto a = task_args<ComputeArgs>(task->cl_arg);
  const BlockShape& s = a.params.shape;
  return footprint_of(
      {s.nx, s.ny, s.nz, a.params.pml_cells, a.neighbour_mask, a.anelastic.mechanisms, a.has_source});
}
inline size_t size(starpu_task* task, unsigned) {
  return static_cast<size_t>(task_args<ComputeArgs>(task->cl_arg).params.shape.cells());
}

template <bool Velocity>
starpu_codelet& codelet() {
  static starpu_perfmodel model =
      regression_model(Velocity ? "ondes3d_compute_velocity" : "ondes3d_compute_stress", footprint, size);
  static starpu_codelet cl =
      Velocity ? make_codelet("compute_velocity", velocity_entry<OnCpu>, ONDES_CUDA_ENTRY(velocity_entry), &model, {})
               : make_codelet("compute_stress", stress_entry<OnCpu>, ONDES_CUDA_ENTRY(stress_entry), &model, {});
  return cl;
}

}  // namespace compute_task

// A task's completion callback: fn(arg), which replaces the codelet's; none if fn is null.
struct Completion {
  void (*fn)(void*) = nullptr;
  void* arg = nullptr;
};

// Submits a task of codelet cl over buffers d[0..n) with value arguments args (bytes) on block b's
// workers, at its priority, named after the block, with completion `done`.
inline void insert_block_task(starpu_codelet& cl, starpu_data_descr* d, int n, void* args, size_t bytes,
                              const BlockData& b, Completion done, const char* what) {
  const auto on_done = done.fn;
  void* arg = done.arg;
  const int ret = on_done ? starpu_task_insert(&cl, STARPU_DATA_MODE_ARRAY, d, n, STARPU_VALUE, args, bytes,
                                               STARPU_EXECUTE_WHERE, b.place.where, STARPU_PRIORITY, b.place.priority,
                                               STARPU_TASK_WORKERIDS, b.place.workers.len(), b.place.workers.data(),
                                               STARPU_NAME, b.name.c_str(), STARPU_CALLBACK_WITH_ARG_NFREE, on_done,
                                               arg, 0)
                          : starpu_task_insert(&cl, STARPU_DATA_MODE_ARRAY, d, n, STARPU_VALUE, args, bytes,
                                               STARPU_EXECUTE_WHERE, b.place.where, STARPU_PRIORITY, b.place.priority,
                                               STARPU_TASK_WORKERIDS, b.place.workers.len(), b.place.workers.data(),
                                               STARPU_NAME, b.name.c_str(), 0);
  check_starpu(ret, what);
}

// Sets the time t of a's update: that of its sources' time functions, and for a stress update with
// narrow memory its step's seed (core/anelastic_layout.hpp step_seed).
inline void set_time(ComputeArgs& a, double t) {
  a.time = t;
  if (a.anelastic.narrow_memory()) a.anelastic.seed = step_seed(a.anelastic.block_seed, t);
}

// The step parameters of block b: the run's (base) with b's shape, C-PML box and classes, planes,
// and the grid's Ondes3D faces it lies on.
inline StepParams block_params(const BlockData& b, const StepParams& base) {
  StepParams p = base;
  p.shape = b.info.shape;
  p.pml = b.pml_box;
  p.uniform_planes = b.uniform_planes;
  p.parity_planes = b.parity_planes;
  if (b.info.neighbour[YM] >= 0) p.ondes3d_faces &= ~1;  // not the grid's y faces
  if (b.info.neighbour[YP] >= 0) p.ondes3d_faces &= ~2;
  if (b.info.neighbour[XP] >= 0) p.ondes3d_faces &= ~8;  // not the grid's x-high face
  p.pml_classes = b.pml_classes;  // both 0 for a block without PML cells (no PML buffer)
  p.pml_cells = b.pml_cells;
  return p;
}

// The arguments of block b's velocity (or stress) update at time t (of its sources), without its
// neighbours (neighbour_mask 0), run as the policy says.
inline ComputeArgs compute_args(const BlockData& b, const StepParams& base, const ExecutionPolicy& policy,
                                bool velocity, double t) {
  ComputeArgs a;
  a.march = policy.march;
  a.edges = policy.edges;
  a.params = block_params(b, base);
  a.has_pml = b.h_pml != nullptr;
  if (!velocity && b.h_anelastic) a.anelastic = b.anelastic_shape;
  a.has_source = (velocity ? b.h_force : b.h_moment).points != nullptr;
  set_time(a, t);
  return a;
}

// The source points, emitters, samples and runs (R) of block b's velocity (or stress), and the
// scratch of its emitters' values, into d; returns their count.
inline int source_buffers(const BlockData& b, bool velocity, starpu_data_descr* d) {
  const SourceHandles& h = velocity ? b.h_force : b.h_moment;
  d[0] = {h.points, STARPU_R};
  d[1] = {h.emitters, STARPU_R};
  d[2] = {h.samples, STARPU_R};
  d[3] = {h.values, STARPU_SCRATCH};
  d[4] = {h.runs, STARPU_R};
  return compute_task::SourceBuffers::kCount;
}

// Submits compute_velocity (or compute_stress) of block b at time t (of its source points, if it
// has any for the field), reading its neighbours' boundary buffers of the other field and writing
// its own of the updated field, compute_stress sampling its station slots into their buffers
// `parity`; compute_stress completes with the plan's on_stress_done. Returns the tasks submitted
// (1).
inline int submit_compute(std::vector<BlockData>& blocks, BlockData& b, const IterationPlan& plan, bool velocity,
                          double t, int parity) {
  const Completion done = velocity ? Completion{} : Completion{plan.on_stress_done, plan.callback_arg};
  // above STARPU_NMAXBUFS, task_insert allocates
  starpu_data_descr d[5 + compute_task::SourceBuffers::kCount + 4 * kDirections + 2 * kMaxStressSlots];
  int n = 0;
  d[n++] = {velocity ? b.h_velocity : b.h_stress, STARPU_RW};
  d[n++] = {velocity ? b.h_stress : b.h_velocity, STARPU_RW};  // R without neighbours: below
  d[n++] = {b.h_material, STARPU_R};
  ComputeArgs a = compute_args(b, plan.base, plan.policy, velocity, t);
  if (a.has_pml) d[n++] = {b.h_pml, STARPU_RW};
  if (a.anelastic.mechanisms) d[n++] = {b.h_anelastic, STARPU_RW};
  for (int dir = 0; dir < kDirections; ++dir) {
    const int nb = b.info.neighbour[dir];
    if (nb < 0) continue;
    const BlockData& other = blocks[nb];
    d[n++] = {velocity ? other.h_stress_out[opposite(dir)] : other.h_velocity_out[opposite(dir)], STARPU_R};
    a.neighbour_mask |= 1 << dir;
  }
  std::vector<int> nodes;  // the buffers' memory nodes, where a boundary buffer goes to a peer GPU
  for (int dir = 0; dir < kDirections; ++dir) {
    if (!(a.neighbour_mask & (1 << dir))) continue;
    const starpu_data_descr out{velocity ? b.h_velocity_out[dir] : b.h_stress_out[dir], STARPU_W};
    if (b.routes.out_node[dir] >= 0)
      n = add_on_node(d, n, nodes, out, b.routes.out_node[dir]);
    else
      d[n++] = out;
  }
  // The other field is written where ghosts come from neighbours; read only otherwise, so that a
  // one-block run's record_seismograms (reading the velocity) runs beside compute_stress instead of
  // after it: velocity -> stress -> record -> velocity was two task hops a step where one suffices.
  if (!a.neighbour_mask) d[1].mode = STARPU_R;
  if (a.has_source) n += source_buffers(b, velocity, d + n);
  if (!velocity)
    for (const StationSlot& ss : b.station_slots) {
      d[n++] = {ss.points, STARPU_R};
      d[n++] = {ss.samples[parity], STARPU_W};
      a.slot[a.station_slots++] = ss.slot;
    }
  n = add_tokens(blocks, b, velocity, true, true, d, n, nodes);  // of halos between ranks by CUDA IPC
  starpu_codelet& cl =
      codelet_for(velocity ? compute_task::codelet<true>() : compute_task::codelet<false>(), nodes, n);
  insert_block_task(cl, d, n, &a, sizeof(a), b, done,
                    velocity ? "submitting compute_velocity" : "submitting compute_stress");
  return 1;
}

}  // namespace ondes
