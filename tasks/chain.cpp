#include "tasks/chain.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <thread>

#include "tasks/chain_gpu.hpp"
#include "tasks/compute.hpp"
#include "tasks/ipc_halos.hpp"
#include "tasks/messages.hpp"
#include "tasks/peer_halos.hpp"
#include "tasks/stations.hpp"
#include "tasks/window_buffers.hpp"
#include "tasks/watch.hpp"

namespace ondes {
namespace {

struct ChainArgs {
  ComputeArgs velocity, stress;  // times: those of the first step's
  int first = 0, steps = 1;
  double dt = 0;
  int prime = 0;
  int watch = 0;
  BoundaryBuffers in_velocity{}, in_stress{}, out_velocity{}, out_stress{};
  uint32_t* wait[kDirections] = {};    // chain_in[dir].ready: this block's, on its GPU (or in main memory)
  uint32_t* signal[kDirections] = {};  // chain_out[dir].ready: the neighbour's
  HaloRoutes::ChainSide side{};         // the second stream, if any (chain_side_stream)
  int groups = 0;                      // station groups recorded by the window (recorded_by_window)
  int64_t group_cells = 0;             // the block's cells (its velocity's component stride)
  int nsteps = 0;                      // the traces' length
};

// The window's completion callback: the profile's record and the caller's (with the steps done).
struct WindowDone {
  void (*on_done)(void*, int);
  void* arg;
  int steps;
};
void window_done(void* p) {
  const auto* w = static_cast<WindowDone*>(p);
  profile::record(starpu_task_get_current(), 2 * int64_t(w->steps));
  w->on_done(w->arg, w->steps);
  delete w;
}

#ifdef ONDES_CHAINED_STEPS
// The driver's stream memory operations, taken through the runtime (the program links no libcuda).
struct StreamOps {
  PFN_cuStreamWaitValue32_v11070 wait = nullptr;
  PFN_cuStreamWriteValue32_v11070 write = nullptr;
};
const StreamOps& stream_ops() {
  static const StreamOps ops = [] {
    StreamOps o;
    auto get = [](const char* symbol) -> void* {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult q{};
      if (cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
          q != cudaDriverEntryPointSuccess)
        p = nullptr;
      cudaGetLastError();
      return p;
    };
    o.wait = reinterpret_cast<PFN_cuStreamWaitValue32_v11070>(get("cuStreamWaitValue32"));
    o.write = reinterpret_cast<PFN_cuStreamWriteValue32_v11070>(get("cuStreamWriteValue32"));
    return o;
  }();
  return ops;
}

void check_cu(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) throw std::runtime_error(fmt::format("{}: CUDA driver error {}", what, int(r)));
}

// The GPU's side of the protocol: its stream waits until every neighbour's counter reaches h (their
// halos of half step h are here), and after the kernels before it (their writes into the
// neighbours' GPUs fenced first) tells each neighbour that its halos of half step h are written.
struct StreamSignals {
  cudaStream_t stream;
  void wait(const ChainArgs& a, uint32_t h) const {
    for (uint32_t* w : a.wait)
      if (w)
        check_cu(stream_ops().wait(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(w), h,
                                   CU_STREAM_WAIT_VALUE_GEQ),
                 "waiting for a neighbour's halo");
  }
  void announce(const ChainArgs& a, uint32_t h) const {
    for (uint32_t* s : a.signal)
      if (s)
        check_cu(stream_ops().write(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(s), h,
                                    CU_STREAM_WRITE_VALUE_DEFAULT),
                 "announcing a halo");
  }
};

using chain_gpu::check_cuda;

// One field's update with a side stream (ChainArgs::side): the PML cells there beside the march
// (events: 0 the ghosts are in, 1 the PML cells done), the images after both.
template <bool Velocity>
void update_beside(const ChainArgs& a, const ComputeArgs& c, const IterationBuffers& f, const BoundaryBuffers& in,
                   const BoundaryBuffers& out, const compute_task::SourceBuffers& source, cudaStream_t stream) {
  float* field = Velocity ? f.v : f.s;
  float* other = Velocity ? f.s : f.v;
  const auto side = static_cast<cudaStream_t>(a.side.stream);
  const auto ready = static_cast<cudaEvent_t>(a.side.events[0]), pml = static_cast<cudaEvent_t>(a.side.events[1]);
  compute_task::update_field_by<Velocity, OnCuda>(c, field, out, source, [&](const BoundaryBuffers& e) {
    auto run = [&](int steps, cudaStream_t on) {
      const UpdateArrays arrays{field, other, f.mat, f.pml, Velocity ? nullptr : f.anelastic, c.anelastic};
      if (Velocity)
        cuda::compute_velocity(c.params, arrays, in, e, c.march, on, steps);
      else
        cuda::compute_stress(c.params, arrays, in, e, c.march, on, steps);
    };
    run(kGhostsStep, stream);
    check_cuda(cudaEventRecord(ready, stream), "marking the ghosts in");
    run(kMarchStep, stream);  // queued first: its thread blocks go first, the PML cells' fill its last wave
    check_cuda(cudaStreamWaitEvent(side, ready, 0), "ordering the PML cells after the ghosts");
    run(kPmlStep, side);
    check_cuda(cudaEventRecord(pml, side), "marking the PML cells done");
    check_cuda(cudaStreamWaitEvent(stream, pml, 0), "ordering the images after the PML cells");
    run(kImagesStep, stream);
  });
}

#endif  // ONDES_CHAINED_STEPS

// The CPU worker's side (chain_on_cpus): the same counters in main memory, read with acquire and
// written with release, so that a halo's writes are seen before its count.
struct HostSignals {
  void wait(const ChainArgs& a, uint32_t h) const {
    for (uint32_t* w : a.wait)
      if (w)
        while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < h) std::this_thread::yield();
  }
  void announce(const ChainArgs& a, uint32_t h) const {
    for (uint32_t* s : a.signal)
      if (s) __atomic_store_n(s, h, __ATOMIC_RELEASE);
  }
};

// One field's update of a window, its half step h = `heard + 1`: the wait for the neighbours' halos
// of half step `heard`, the update with its sources and edges, the announcement of h.
template <bool Velocity, class B, class Signals>
void update(const ChainArgs& a, const IterationBuffers& f, int n, const Signals& signals) {
  ComputeArgs c = Velocity ? a.velocity : a.stress;
  set_time(c, Velocity ? n * a.dt : n * a.dt + 0.5 * a.dt);
  const uint32_t heard = uint32_t(Velocity ? 2 * n : 2 * n + 1);
  const BoundaryBuffers& in = Velocity ? a.in_stress : a.in_velocity;
  const BoundaryBuffers& out = Velocity ? a.out_velocity : a.out_stress;
  const compute_task::SourceBuffers& source = Velocity ? f.force : f.moment;
  signals.wait(a, heard);
#ifdef ONDES_CHAINED_STEPS
  if constexpr (B::cuda)
    if (a.side.stream) {
      update_beside<Velocity>(a, c, f, in, out, source, signals.stream);
      signals.announce(a, heard + 1);
      return;
    }
#endif
  const UpdateArrays arrays{Velocity ? f.v : f.s, Velocity ? f.s : f.v, f.mat, f.pml, Velocity ? nullptr : f.anelastic};
  compute_task::update_field<Velocity, B>(c, arrays, in, out, source);
  signals.announce(a, heard + 1);
}

// Step k of the window: its station samples (the velocity as the stress update leaves it, as
// compute_stress samples it: tasks/compute.hpp), on `stream` where B is CUDA.
template <class B>
void sample(const ChainArgs& a, void* buffers[], int slots, const float* v, int k, cudaStream_t stream) {
  const BlockShape& sh = a.velocity.params.shape;
  for (int i = 0; i < a.stress.station_slots; ++i) {
    const int64_t count = vector_count(buffers[slots + 2 * i]);
    const auto* points = vector_data<StationPoint>(buffers[slots + 2 * i]);
    float* samples = vector_data<float>(buffers[slots + 2 * i + 1]) + k * count * kSampleFloats;
    if constexpr (B::cuda)
      cuda::sample_stations(v, sh.cells(), points, count, a.stress.slot[i], samples, stream);
    else
      cpu::sample_stations(v, sh.cells(), points, count, a.stress.slot[i], samples);
  }
}

// Step n of the window's recorded station groups (their points and traces from buffers[first] on),
// from the velocity v, as a record task reading it would.
template <class B>
void record_groups(const ChainArgs& a, void* buffers[], int first, const float* v, int n, cudaStream_t stream) {
  StationBlocks blocks{};
  blocks.v[0] = v;
  blocks.cells[0] = a.group_cells;
  for (int g = 0; g < a.groups; ++g) {
    const auto* points = vector_data<StationPoint>(buffers[first + 2 * g]);
    const int64_t count = vector_count(buffers[first + 2 * g]);
    float* traces = vector_data<float>(buffers[first + 2 * g + 1]);
    if constexpr (B::cuda)
      cuda::record(blocks, points, count, n, a.nsteps, traces, stream);
    else
      cpu::record(blocks, points, count, n, a.nsteps, traces);
  }
}

// The window, on the block's GPU (B OnCuda, its stream's signals) or CPU worker. Half step h counts
// from 2 first: the stress halos of the step before the window are h = 2 first, the velocity halos
// of step n are 2 n + 1, its stress ones 2 n + 2. With a side stream, a step's samples go there
// beside the stress update (event 2: the velocity updated; the side's PML cells of the stress
// update after them, which the images wait for, keep the next velocity update after them).
template <class B, class Signals>
void window(void* buffers[], void* cl_arg, const Signals& signals, cudaStream_t stream) {
  const auto a = task_args<ChainArgs>(cl_arg);
  const IterationBuffers f(buffers, a.velocity, a.stress);
  const int slots = f.next, recorded = slots + 2 * a.stress.station_slots;
  const BlockShape& sh = a.velocity.params.shape;
  if (a.prime) {
    ONDES_RUN(B, save_edges, sh, kStressKind, f.s, a.out_stress);
    signals.announce(a, uint32_t(2 * a.first));
  }
  const bool beside = B::cuda && a.side.stream && a.stress.station_slots;
  for (int k = 0; k < a.steps; ++k) {
    const int n = a.first + k;
    update<true, B>(a, f, n, signals);
#ifdef ONDES_CHAINED_STEPS
    if constexpr (B::cuda)
      if (beside) {
        const auto updated = static_cast<cudaEvent_t>(a.side.events[2]);
        const auto side = static_cast<cudaStream_t>(a.side.stream);
        check_cuda(cudaEventRecord(updated, stream), "marking the velocity updated");
        check_cuda(cudaStreamWaitEvent(side, updated, 0), "ordering the samples after the velocity");
        sample<B>(a, buffers, slots, f.v, k, side);
      }
#endif
    update<false, B>(a, f, n, signals);
    if (!beside) sample<B>(a, buffers, slots, f.v, k, stream);
    record_groups<B>(a, buffers, recorded, f.v, n, stream);
  }
  if (a.watch) watch_task::measure<B>(sh, f.v, vector_data<float>(buffers[recorded + 2 * a.groups]));
}

void cpu_entry(void* buffers[], void* cl_arg) { window<OnCpu>(buffers, cl_arg, HostSignals{}, nullptr); }
#ifdef ONDES_CHAINED_STEPS
void cuda_entry(void* buffers[], void* cl_arg) {
  const cudaStream_t stream = OnCuda::stream();
  window<OnCuda>(buffers, cl_arg, StreamSignals{stream}, stream);
}

// A counter as its GPU holds it, read on a stream of its own: the blocks' streams may be waiting on it,
// and StarPU's streams wait for the legacy default stream.
uint32_t read_gpu_counter(int node, const uint32_t* counter) {
  const ScopedDevice on(starpu_memory_node_get_devid(unsigned(node)));
  uint32_t value = UINT32_MAX;
  cudaStream_t s = nullptr;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess) {
    cudaMemcpyAsync(&value, counter, sizeof(value), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  }
  cudaGetLastError();
  return value;
}
#endif  // ONDES_CHAINED_STEPS

// A counter of memory node `node` (main memory with chain_on_cpus).
uint32_t read_counter(int node, const uint32_t* counter) {
  if (starpu_node_get_kind(unsigned(node)) == STARPU_CPU_RAM) return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
#ifdef ONDES_CHAINED_STEPS
  return read_gpu_counter(node, counter);
#else
  return UINT32_MAX;
#endif
}

uint32_t footprint(starpu_task* task) {
  const auto a = task_args<ChainArgs>(task->cl_arg);
  const BlockShape& s = a.velocity.params.shape;
  return footprint_of({s.nx, s.ny, s.nz, a.velocity.params.pml_cells, a.velocity.neighbour_mask,
                       a.stress.anelastic.mechanisms, a.velocity.has_source, a.stress.has_source, a.steps, a.watch,
                       a.stress.station_slots, a.groups});
}
size_t size(starpu_task* task, unsigned) {
  const auto a = task_args<ChainArgs>(task->cl_arg);
  return static_cast<size_t>(a.velocity.params.shape.cells()) * size_t(a.steps);
}

starpu_codelet& codelet() {
  static starpu_perfmodel model = regression_model("ondes3d_chain", footprint, size);
#ifdef ONDES_CHAINED_STEPS
  static starpu_codelet cl = make_codelet("chain", cpu_entry, cuda_entry, &model, {});
#else
  static starpu_codelet cl = make_codelet("chain", cpu_entry, nullptr, &model, {});
#endif
  return cl;
}

}  // namespace

#ifdef ONDES_CHAINED_STEPS
namespace chain_gpu {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

bool stream_memory_operations() { return stream_ops().wait && stream_ops().write; }

}  // namespace chain_gpu
#endif

// StarPU's watchdog (STARPU_WATCHDOG_TIMEOUT) saw no task end while tasks were pending: what each
// chained block last heard from its neighbours, so that a stalled window can be told from a
// window never launched.
void report_chain_stall(void* arg) {
  const auto& blocks = *static_cast<const std::vector<BlockData>*>(arg);
  std::string counters;
  for (const BlockData& b : blocks)
    for (int dir = 0; dir < kDirections; ++dir)
      if (b.routes.chained && b.routes.chain_in[dir].ready)
        counters += fmt::format(" {} from {}: {};", b.name, blocks[b.info.neighbour[dir]].name,
                                read_counter(b.place.node, b.routes.chain_in[dir].ready));
  spdlog::error("chained steps: no task ended; the half steps each block heard its neighbours announce (2n + 1: "
                "the velocity halos of step n, 2n + 2: its stress halos):{}", counters);
}

int submit_chain(BlockData& b, std::vector<StationGroup>& groups, const IterationPlan& plan, const Window& w,
                 std::vector<bool>* recorded) {
  const double dt = plan.dt;
  ChainArgs a;
  a.first = w.first;
  a.steps = w.steps;
  a.dt = dt;
  a.prime = w.prime;
  a.watch = w.watch;
  a.velocity = compute_args(b, plan.base, plan.policy, true, w.first * dt);
  a.stress = compute_args(b, plan.base, plan.policy, false, w.first * dt + 0.5 * dt);
  for (int dir = 0; dir < kDirections; ++dir) {
    if (b.info.neighbour[dir] < 0) continue;
    a.velocity.neighbour_mask |= 1 << dir;
    a.stress.neighbour_mask |= 1 << dir;
    a.in_velocity.at[dir] = b.routes.chain_in[dir].velocity;
    a.in_stress.at[dir] = b.routes.chain_in[dir].stress;
    a.out_velocity.at[dir] = b.routes.chain_out[dir].velocity;
    a.out_stress.at[dir] = b.routes.chain_out[dir].stress;
    a.wait[dir] = b.routes.chain_in[dir].ready;
    a.signal[dir] = b.routes.chain_out[dir].ready;
  }
  a.side = b.routes.chain_side;
  starpu_data_descr d[IterationBuffers::kMax + 3 + 2 * kMaxStressSlots + 2 * kMaxWindowGroups];
  int n = IterationBuffers::describe(b, a.velocity, a.stress, d);
  // The samples stay in (pinned) main memory, which the kernels write in place: no copy of them
  // between GPUs while windows run (record tasks reading them on a GPU hung the windows).
  std::vector<int> nodes;
  for (const StationSlot& ss : b.station_slots) {
    d[n++] = {ss.points, STARPU_R};
    n = add_on_node(d, n, nodes, {ss.samples[w.parity], STARPU_W}, STARPU_SPECIFIC_NODE_CPU);
    a.stress.slot[a.stress.station_slots++] = ss.slot;
  }
  a.group_cells = b.info.shape.cells();
  a.nsteps = plan.nsteps;
  for (size_t g = 0; g < groups.size() && a.groups < kMaxWindowGroups; ++g) {
    if (!recorded_by_window(groups[g], b, plan.rank)) continue;
    d[n++] = {groups[g].h_points, STARPU_R};
    d[n++] = {groups[g].h_traces, STARPU_RW};
    ++a.groups;
    if (recorded) (*recorded)[g] = true;
  }
  if (w.watch) d[n++] = {b.h_peak, STARPU_W};
  if (w.token) n = add_on_node(d, n, nodes, {w.token, STARPU_R}, STARPU_SPECIFIC_NODE_CPU);
  starpu_codelet& cl = codelet_for(codelet(), nodes, n);
  const auto on_done = plan.on_steps_done;
  void* done = on_done ? new WindowDone{on_done, plan.callback_arg, w.steps} : nullptr;
  insert_block_task(cl, d, n, &a, sizeof(a), b, {on_done ? window_done : nullptr, done}, "submitting chain");
  return 1;
}

}  // namespace ondes
