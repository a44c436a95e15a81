// step: a whole iteration of a block without neighbours, as one task: compute_velocity's update
// and sources, compute_stress's, then one time sample of each station group lying in the block
// alone. Why: on one GPU, each dependent task hop leaves the GPU idle (StarPU finds the task done,
// releases its data, schedules and launches the next); a one-block iteration had two (velocity ->
// stress -> velocity; the recording ran beside the stress): docs/performance.md, Decisions: one
// task a half step. Nothing else changes: the same kernels in the same order, hence the same bits.
// Buffers: velocity (RW), stress (RW), material (R), PML memory (RW) if has_pml, the anelastic
// buffer (RW) if the stress update has one, the force points and samples (R) if the velocity has
// sources, the moment ones (R) if the stress has, then per station group its points (R) and
// traces (RW), then the block's peak (W) when the watchdog's measure is due. Model: regression over
// the block's cells.
// ExecutionPolicy::lone_block_step false keeps the two compute tasks and the record task.
#pragma once
#include "tasks/compute.hpp"
#include "tasks/stations.hpp"
#include "tasks/watch.hpp"

namespace ondes {

constexpr int kMaxStepGroups = 4;  // station groups recorded by a step task (more: record tasks)

struct StepArgs {
  ComputeArgs velocity, stress;
  int watch = 0;  // the watchdog's measure is due: the block's peak buffer is the last
  int groups = 0;
  RecordArgs record[kMaxStepGroups];
};

// The buffers a task over whole iterations of a block takes first (the step task, tasks/chain.hpp's
// window): velocity (RW), stress (RW), material (R), PML memory (RW) if any, the anelastic buffer
// (RW) if any, the force sources (compute.hpp source_buffers) if any, the moment ones if any.
struct IterationBuffers {
  float* v = nullptr;
  float* s = nullptr;
  const float* mat = nullptr;
  char* pml = nullptr;
  char* anelastic = nullptr;
  compute_task::SourceBuffers force, moment;
  int next = 3;  // the index of the task's next buffer
  static constexpr int kMax = 5 + 2 * compute_task::SourceBuffers::kCount;  // describe's most

  IterationBuffers(void* buffers[], const ComputeArgs& velocity, const ComputeArgs& stress)
      : v(vector_data<float>(buffers[0])), s(vector_data<float>(buffers[1])), mat(vector_data<float>(buffers[2])) {
    if (velocity.has_pml) pml = vector_data<char>(buffers[next++]);
    if (stress.anelastic.mechanisms) anelastic = vector_data<char>(buffers[next++]);
    using compute_task::SourceBuffers;
    if (velocity.has_source) force = SourceBuffers::at(buffers, next), next += SourceBuffers::kCount;
    if (stress.has_source) moment = SourceBuffers::at(buffers, next), next += SourceBuffers::kCount;
  }
  // The descriptors of those buffers of block b into d; returns their count.
  static int describe(const BlockData& b, const ComputeArgs& velocity, const ComputeArgs& stress,
                      starpu_data_descr* d) {
    int k = 0;
    d[k++] = {b.h_velocity, STARPU_RW};
    d[k++] = {b.h_stress, STARPU_RW};
    d[k++] = {b.h_material, STARPU_R};
    if (velocity.has_pml) d[k++] = {b.h_pml, STARPU_RW};
    if (stress.anelastic.mechanisms) d[k++] = {b.h_anelastic, STARPU_RW};
    if (velocity.has_source) k += source_buffers(b, true, d + k);
    if (stress.has_source) k += source_buffers(b, false, d + k);
    return k;
  }
};

namespace step_task {

template <class B>
void entry(void* buffers[], void* cl_arg) {
  const auto a = task_args<StepArgs>(cl_arg);
  IterationBuffers f(buffers, a.velocity, a.stress);
  float* v = f.v;
  int next = f.next;
  compute_task::update_field<true, B>(a.velocity, {v, f.s, f.mat, f.pml, nullptr}, {}, {}, f.force);
  compute_task::update_field<false, B>(a.stress, {f.s, v, f.mat, f.pml, f.anelastic}, {}, {}, f.moment);
  for (int g = 0; g < a.groups; ++g, next += 2) {
    StationBlocks blocks{};
    blocks.v[0] = v;
    blocks.cells[0] = a.record[g].cells[0];
    ONDES_RUN(B, record, blocks, vector_data<StationPoint>(buffers[next]), vector_count(buffers[next]),
              a.record[g].step, a.record[g].nsteps, vector_data<float>(buffers[next + 1]));
  }
  if (a.watch) watch_task::measure<B>(a.velocity.params.shape, v, vector_data<float>(buffers[next]));
}

inline uint32_t footprint(starpu_task* task) {
  const auto a = task_args<StepArgs>(task->cl_arg);
  const BlockShape& s = a.velocity.params.shape;
  return footprint_of({s.nx, s.ny, s.nz, a.velocity.pml_cells, a.stress.anelastic.mechanisms,
                       a.velocity.has_source, a.stress.has_source, a.groups, a.watch});
}
inline size_t size(starpu_task* task, unsigned) {
  return static_cast<size_t>(task_args<StepArgs>(task->cl_arg).velocity.params.shape.cells());
}

inline starpu_codelet& codelet() {
  static starpu_perfmodel model = regression_model("ondes3d_step", footprint, size);
  static starpu_codelet cl = make_codelet("step", entry<OnCpu>, ONDES_CUDA_ENTRY(entry), &model, {});
  return cl;
}

}  // namespace step_task

// A station group the step task of block b records: on this rank, read from b's velocity alone.
inline bool recorded_by_step(const StationGroup& g, const BlockData& b, int rank) {
  return g.involved && g.home == rank && !g.sampled && g.blocks.size() == 1 && g.blocks[0] == b.info.id;
}

// Submits iteration n of block b (no neighbours) as one step task at time t, recording the station
// groups recorded_by_step (the first kMaxStepGroups of them, marked true in *recorded, one flag a
// group, set false by the caller), and with watch
// the watchdog's measure into the block's peak (what watch_velocity does, without a task hop of its
// own: docs/performance.md, Decisions: one task a half step); on_done(arg), if given, replaces the codelet's
// completion callback. Returns the tasks submitted (1).
inline int submit_step(BlockData& b, std::vector<StationGroup>& groups, const IterationPlan& plan, int n, bool watch,
                       std::vector<bool>* recorded) {
  StepArgs a;
  a.watch = watch;
  const double t = n * plan.dt;
  a.velocity = compute_args(b, plan.base, plan.policy, true, t);
  a.stress = compute_args(b, plan.base, plan.policy, false, t + 0.5 * plan.dt);
  starpu_data_descr d[IterationBuffers::kMax + 1 + 2 * kMaxStepGroups];
  int k = IterationBuffers::describe(b, a.velocity, a.stress, d);
  for (size_t g = 0; g < groups.size() && a.groups < kMaxStepGroups; ++g) {
    if (!recorded_by_step(groups[g], b, plan.rank)) continue;
    RecordArgs& r = a.record[a.groups++];
    r.step = n;
    r.nsteps = plan.nsteps;
    r.nblocks = 1;
    r.cells[0] = b.info.shape.cells();
    d[k++] = {groups[g].h_points, STARPU_R};
    d[k++] = {groups[g].h_traces, STARPU_RW};
    (*recorded)[g] = true;
  }
  if (watch) d[k++] = {b.h_peak, STARPU_W};
  insert_block_task(step_task::codelet(), d, k, &a, sizeof(a), b, {plan.on_stress_done, plan.callback_arg},
                    "submitting step");
  return 1;
}

}  // namespace ondes
