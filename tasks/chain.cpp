#include "tasks/chain.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <set>

#include "tasks/compute.hpp"
#include "tasks/ipc_halos.hpp"
#include "tasks/messages.hpp"
#include "tasks/peer_halos.hpp"
#include "tasks/step.hpp"
#include "tasks/watch.hpp"

// Chained steps need the CUDA codelets and real GPUs (not the SimGrid builds).
#if defined(ONDES_CUDA_CODELETS) && !defined(STARPU_SIMGRID)
#define ONDES_CHAINED_STEPS 1
#include <cuda.h>
#include <cudaTypedefs.h>
#endif

namespace ondes {
namespace {

struct ChainArgs {
  ComputeArgs velocity, stress;  // times: those of the first step's
  int first = 0, steps = 1;
  double dt = 0;
  int prime = 0;
  int watch = 0;
  BoundaryBuffers in_velocity{}, in_stress{}, out_velocity{}, out_stress{};
  uint32_t* wait[kDirections] = {};    // chain_in[dir].ready: this block's, on its GPU
  uint32_t* signal[kDirections] = {};  // chain_out[dir].ready: the neighbour's, on its GPU
  BlockData::ChainSide side{};         // the second stream, if any (chain_side_stream)
};

// The window's completion callback: the profile's record and the caller's (with the steps done).
struct WindowDone {
  void (*on_done)(void*, int);
  void* arg;
  int steps;
};
void window_done(void* p) {
  const auto* w = static_cast<WindowDone*>(p);
  profile::record(starpu_task_get_current());
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

// The stream waits until every neighbour's counter reaches h: their halos of half step h are here.
void wait_halos(cudaStream_t stream, const ChainArgs& a, uint32_t h) {
  for (uint32_t* w : a.wait)
    if (w)
      check_cu(stream_ops().wait(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(w), h,
                                   CU_STREAM_WAIT_VALUE_GEQ),
               "waiting for a neighbour's halo");
}

// After the kernels before it (their writes into the neighbours' GPUs fenced first), the stream
// tells each neighbour that its halos of half step h are written.
void announce_halos(cudaStream_t stream, const ChainArgs& a, uint32_t h) {
  for (uint32_t* s : a.signal)
    if (s)
      check_cu(stream_ops().write(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(s), h,
                                    CU_STREAM_WRITE_VALUE_DEFAULT),
               "announcing a halo");
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

// One field's update of a window, its half step h = `heard + 1`: the wait for the neighbours' halos
// of half step `heard`, the update with its sources and edges, the announcement of h. With a side
// stream (ChainArgs::side), the PML cells run there beside the march (events: 0 the ghosts are
// in, 1 the PML cells done), the images after both.
template <bool Velocity>
void update(const ChainArgs& a, const IterationBuffers& f, int n, cudaStream_t stream) {
  ComputeArgs c = Velocity ? a.velocity : a.stress;
  c.time = Velocity ? n * a.dt : n * a.dt + 0.5 * a.dt;
  const uint32_t heard = uint32_t(Velocity ? 2 * n : 2 * n + 1);
  float* field = Velocity ? f.v : f.s;
  float* other = Velocity ? f.s : f.v;
  char* anelastic = Velocity ? nullptr : f.anelastic;
  const BoundaryBuffers& in = Velocity ? a.in_stress : a.in_velocity;
  const BoundaryBuffers& out = Velocity ? a.out_velocity : a.out_stress;
  void* const* source = Velocity ? f.force : f.moment;
  wait_halos(stream, a, heard);
  if (!a.side.stream) {
    compute_task::update_field<Velocity, OnCuda>(c, field, other, f.mat, f.pml, anelastic, in, out, source[0],
                                                 source[1]);
  } else {
    const auto side = static_cast<cudaStream_t>(a.side.stream);
    const auto ready = static_cast<cudaEvent_t>(a.side.events[0]), pml = static_cast<cudaEvent_t>(a.side.events[1]);
    compute_task::update_field_by<Velocity, OnCuda>(c, field, out, source[0], source[1], [&](const BoundaryBuffers& e) {
      auto run = [&](int steps, cudaStream_t on) {
        if (Velocity)
          cuda::compute_velocity(c.params, field, other, f.mat, f.pml, c.pml_cells, in, e, c.march, on, steps);
        else
          cuda::compute_stress(c.params, field, other, f.mat, f.pml, c.pml_cells, anelastic, c.anelastic, in, e,
                               c.march, on, steps);
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
  announce_halos(stream, a, heard + 1);
}

// Step k of the window: its station samples (the velocity as the stress update leaves it, as
// compute_stress samples it: tasks/compute.hpp), on the side stream beside the stress update if
// there is one (event 2: the velocity updated; the side's PML cells of the stress update after
// them, which the images wait for, keep the next velocity update after them).
void sample(const ChainArgs& a, void* buffers[], int slots, const float* v, int k, cudaStream_t stream) {
  const BlockShape& sh = a.velocity.params.shape;
  for (int i = 0; i < a.stress.station_slots; ++i) {
    const int64_t count = vector_count(buffers[slots + 2 * i]);
    cuda::sample_stations(v, sh.cells(), vector_data<StationPoint>(buffers[slots + 2 * i]), count, a.stress.slot[i],
                          vector_data<float>(buffers[slots + 2 * i + 1]) + k * count * kSampleFloats, stream);
  }
}

// The window on the block's GPU. Half step h counts from 2 first: the stress halos of the step
// before the window are h = 2 first, the velocity halos of step n are 2 n + 1, its stress ones 2 n + 2.
void entry(void* buffers[], void* cl_arg) {
  const auto a = task_args<ChainArgs>(cl_arg);
  const cudaStream_t stream = OnCuda::stream();
  const IterationBuffers f(buffers, a.velocity, a.stress);
  const int slots = f.next;
  const BlockShape& sh = a.velocity.params.shape;
  if (a.prime) {
    cuda::save_edges(sh, kStressKind, f.s, a.out_stress, stream);
    announce_halos(stream, a, uint32_t(2 * a.first));
  }
  for (int k = 0; k < a.steps; ++k) {
    const int n = a.first + k;
    update<true>(a, f, n, stream);
    if (a.side.stream && a.stress.station_slots) {
      const auto updated = static_cast<cudaEvent_t>(a.side.events[2]);
      const auto side = static_cast<cudaStream_t>(a.side.stream);
      check_cuda(cudaEventRecord(updated, stream), "marking the velocity updated");
      check_cuda(cudaStreamWaitEvent(side, updated, 0), "ordering the samples after the velocity");
      sample(a, buffers, slots, f.v, k, side);
    }
    update<false>(a, f, n, stream);
    if (!a.side.stream) sample(a, buffers, slots, f.v, k, stream);
  }
  if (a.watch)
    watch_task::measure<OnCuda>(sh, f.v, vector_data<float>(buffers[slots + 2 * a.stress.station_slots]));
}

// The channel of `floats` floats a field at p: the two fields and the counter after them.
size_t channel_field_bytes(int64_t floats) { return ((size_t(floats) * sizeof(float) + 255) / 256) * 256; }
size_t channel_bytes(int64_t floats) { return 2 * channel_field_bytes(floats) + 256; }
HaloChannel channel_at(void* p, int64_t floats) {
  char* c = static_cast<char*>(p);
  const size_t field = channel_field_bytes(floats);
  return {reinterpret_cast<float*>(c), reinterpret_cast<float*>(c + field), reinterpret_cast<uint32_t*>(c + 2 * field)};
}

// A channel of `floats` floats a field and its counter (set to 0), on the GPU of memory node `node`.
HaloChannel allocate_channel(int node, int64_t floats, ChainMemory& memory) {
  const ScopedDevice on(starpu_memory_node_get_devid(unsigned(node)));
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, channel_bytes(floats)), "allocating a halo channel");
  memory.allocated.push_back(p);
  check_cuda(cudaMemset(p, 0, channel_bytes(floats)), "clearing a halo channel");
  return channel_at(p, floats);
}

// A side stream and its events on the GPU of memory node `node`.
BlockData::ChainSide create_side(int node, ChainMemory& memory) {
  const ScopedDevice on(starpu_memory_node_get_devid(unsigned(node)));
  BlockData::ChainSide side;
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "creating a block's side stream");
  side.stream = stream;
  for (void*& e : side.events) {
    cudaEvent_t event = nullptr;
    check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "creating a side stream's event");
    e = event;
  }
  memory.sides.push_back(side);
  return side;
}

// Ranks of one node: each rank hands the rank of each neighbour block its channel's IPC handle, and
// maps the channels its blocks write (chain_out) from the handles it receives. Returns "" or why not.
std::string share_channels(std::vector<BlockData>& blocks, const RankMap& map, const std::string& host,
                           ChainMemory& memory) {
  std::vector<IpcHandle> offers;
  offers.reserve(blocks.size() * kDirections);  // their memory stays until the sends are done
  Posted posted;
  for (const BlockData& b : blocks)
    for (int dir = 0; dir < kDirections; ++dir) {
      const int nb = b.info.neighbour[dir];
      if (!b.local || nb < 0 || blocks[nb].local) continue;
      offers.push_back(ipc_handle(b.chain_in[dir].velocity, b.node, host));
      posted.send(&offers.back(), sizeof(IpcHandle), map.owner(nb), kChainTagBase + 2 + 4 * int64_t(b.info.id) + dir);
    }
  std::string no;
  for (BlockData& b : blocks)
    for (int dir = 0; dir < kDirections; ++dir) {
      const int nb = b.info.neighbour[dir];
      if (!b.local || nb < 0 || blocks[nb].local) continue;
      IpcHandle h;
      receive_now(&h, sizeof(h), map.owner(nb), kChainTagBase + 2 + 4 * int64_t(nb) + opposite(dir),
                  "receiving a chained channel's IPC handle");
      void* p = ipc_open(h, b.node, host);
      if (!p) {
        if (no.empty()) no = fmt::format("the GPU of block {} (rank {}, node {}) not mappable by CUDA IPC", blocks[nb].name,
                                         map.owner(nb), h.host);
        continue;
      }
      memory.opened.push_back(p);
      b.chain_out[dir] = channel_at(p, boundary_floats(b.info.shape, dir));
    }
  posted.wait();
  return no;
}

// A counter as its GPU holds it, read on a stream of its own: the blocks' streams may be waiting on it,
// and StarPU's streams wait for the legacy default stream.
uint32_t read_counter(int node, const uint32_t* counter) {
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

// StarPU's watchdog (STARPU_WATCHDOG_TIMEOUT) saw no task end while tasks were pending: what each
// chained block's GPU last heard from its neighbours, so that a stalled window can be told from a
// window never launched.
void report_stall(void* arg) {
  const auto& blocks = *static_cast<const std::vector<BlockData>*>(arg);
  std::string counters;
  for (const BlockData& b : blocks)
    for (int dir = 0; dir < kDirections; ++dir)
      if (b.chained && b.chain_in[dir].ready)
        counters += fmt::format(" {} from {}: {};", b.name, blocks[b.info.neighbour[dir]].name,
                                read_counter(b.node, b.chain_in[dir].ready));
  spdlog::error("chained steps: no task ended; the half steps each block heard its neighbours announce (2n + 1: "
                "the velocity halos of step n, 2n + 2: its stress halos):{}", counters);
}
#endif  // ONDES_CHAINED_STEPS

uint32_t footprint(starpu_task* task) {
  const auto a = task_args<ChainArgs>(task->cl_arg);
  const BlockShape& s = a.velocity.params.shape;
  return footprint_of({s.nx, s.ny, s.nz, a.velocity.pml_cells, a.velocity.neighbour_mask, a.stress.anelastic.mechanisms,
                       a.velocity.has_source, a.stress.has_source, a.steps, a.watch, a.stress.station_slots});
}
size_t size(starpu_task* task, unsigned) {
  const auto a = task_args<ChainArgs>(task->cl_arg);
  return static_cast<size_t>(a.velocity.params.shape.cells()) * size_t(a.steps);
}

starpu_codelet& codelet() {
  static starpu_perfmodel model = regression_model("ondes3d_chain", footprint, size);
#ifdef ONDES_CHAINED_STEPS
  static starpu_codelet cl = [] {
    starpu_codelet c = make_codelet("chain", nullptr, entry, &model, {});
    c.cpu_funcs_name[0] = nullptr;
    return c;
  }();
#else
  static starpu_codelet cl = make_codelet("chain", nullptr, nullptr, &model, {});
#endif
  return cl;
}

// One rank's refusal as a message, for the ranks to agree on (the first rank's that has one).
struct RefusalMessage {
  char why[200] = {};
  int32_t quiet = 0;
};
ChainRefusal agreed(const ChainRefusal& mine, int rank, int ranks, int64_t tag) {
  if (ranks <= 1) return mine;
  RefusalMessage m;
  if (!mine.why.empty()) fmt::format_to_n(m.why, sizeof(m.why) - 1, "rank {}: {}", rank, mine.why);
  m.quiet = mine.quiet;
  const RefusalMessage all = combine_on_all(
      rank, ranks, m, tag, [](const RefusalMessage& x, const RefusalMessage& y) { return x.why[0] ? x : y; },
      "agreeing on chained steps");
  return {all.why, all.quiet != 0};
}

// The GPU memory node block b computes on: its pinned GPU's, or, where nothing pins the blocks (a
// rank of one GPU), the process's one GPU's if b runs on GPUs only; -1 otherwise.
int gpu_node(const BlockData& b) {
  if (b.node >= 0)
    return b.compute_where == STARPU_CUDA && starpu_node_get_kind(unsigned(b.node)) == STARPU_CUDA_RAM ? b.node : -1;
  return gpu_only(b) ? only_gpu_node() : -1;
}

// Why the blocks cannot chain their steps ("" if they can), before the GPUs are asked. Over MPI,
// this rank's view: its own blocks, their neighbours of other ranks reached by CUDA IPC
// (share_channels, after every rank agreed).
// Quiet where the run has no GPU a block to give (ChainRefusal).
ChainRefusal obstacle(const std::vector<BlockData>& blocks, const std::vector<StationGroup>& groups,
                      const ExecutionPolicy& policy, bool per_step_readers, int ranks) {
  if (policy.chain_steps <= 0) return {"chain_steps = 0"};
  if (per_step_readers) return {"peak ground velocity maps or displacement snapshots read every step"};
  if (blocks.size() < 2) return {"one block", true};
  if (!policy.peer_halos) return {"peer_halos = false"};
  std::set<int> nodes;
  for (const BlockData& b : blocks) {
    if (!b.local) continue;
    const int node = gpu_node(b);
    if (node < 0) return {"a block not on a GPU of its own", true};
    if (!nodes.insert(node).second) return {"two blocks on a GPU", ranks == 1 && only_gpu_node() >= 0};
  }
  // Only once every block has a GPU of its own: blocks sharing one write no halo into another GPU.
  for (const BlockData& b : blocks)
    for (int dir = 0; dir < kDirections; ++dir) {
      const int nb = b.info.neighbour[dir];
      if (b.local && nb >= 0 && blocks[nb].local && b.out_node[dir] < 0)
        return {"a halo not written into the neighbour's GPU"};
    }
  for (const StationGroup& g : groups) {
    if (!g.involved) continue;
    if (!g.sampled) return {"a station group read from the velocity"};
    for (size_t s = 0; s < g.blocks.size(); ++s)
      if (blocks[g.blocks[s]].local && !g.in_stress[s]) return {"a station group sampled by a task of its own"};
  }
  return {};
}

}  // namespace

void ChainMemory::release() {
  for (void* p : opened) ipc_close(p);
  opened.clear();
#ifdef ONDES_CHAINED_STEPS
  if (!allocated.empty()) starpu_task_watchdog_set_hook(nullptr, nullptr);
  for (void* p : allocated) cudaFree(p);
  for (const BlockData::ChainSide& side : sides) {
    cudaStreamDestroy(static_cast<cudaStream_t>(side.stream));
    for (void* e : side.events) cudaEventDestroy(static_cast<cudaEvent_t>(e));
  }
#endif
  allocated.clear();
  sides.clear();
  for (starpu_data_handle_t& h : record_tokens) unregister(h);
}

int route_chained_steps(std::vector<BlockData>& blocks, const std::vector<StationGroup>& groups,
                        const ExecutionPolicy& policy, const RankMap& map, int rank, const std::string& host,
                        bool per_step_readers, ChainMemory& memory, ChainRefusal* refusal) {
  ChainRefusal no = obstacle(blocks, groups, policy, per_step_readers, map.ranks);
#ifdef ONDES_CHAINED_STEPS
  if (no.why.empty() && (!stream_ops().wait || !stream_ops().write))
    no.why = "no stream memory operations in the CUDA driver";
#elif defined(STARPU_SIMGRID)
  if (no.why.empty()) no.why = "not simulated (the GPUs would order the halos outside StarPU's task graph)";
#else
  if (no.why.empty()) no.why = "no CUDA codelets";
#endif
  // Over MPI every rank chains or none does: chained windows send no halo messages.
  no = agreed(no, rank, map.ranks, kChainTagBase);
#ifdef ONDES_CHAINED_STEPS
  if (no.why.empty()) {
    for (BlockData& b : blocks)
      if (b.local) b.node = gpu_node(b);
    for (BlockData& b : blocks)
      for (int dir = 0; dir < kDirections; ++dir) {
        const int nb = b.info.neighbour[dir];
        if (!b.local || nb < 0) continue;
        BlockData& writer = blocks[nb];
        b.chain_in[dir] = allocate_channel(b.node, boundary_floats(writer.info.shape, opposite(dir)), memory);
        if (writer.local) writer.chain_out[opposite(dir)] = b.chain_in[dir];
      }
    if (map.ranks > 1) no = agreed({share_channels(blocks, map, host, memory)}, rank, map.ranks, kChainTagBase);
    if (!no.why.empty()) {
      memory.release();
      for (BlockData& b : blocks) b.chain_in = b.chain_out = {};
    }
  }
  if (no.why.empty()) {
    int chained = 0;
    for (BlockData& b : blocks)
      if (b.local) {
        b.chained = true;
        // The second stream takes the PML cells and the station samples: a block with neither keeps one.
        if (policy.chain_side_stream && (b.pml_cells > 0 || !b.station_slots.empty()))
          b.chain_side = create_side(b.node, memory);
        ++chained;
      }
    starpu_task_watchdog_set_hook(report_stall, &blocks);
    if (std::any_of(groups.begin(), groups.end(), [](const StationGroup& g) { return g.involved; }))
      for (int p = 0; p < 2; ++p) register_vector(&memory.record_tokens[p], &memory.token_values[p], 1);
    return chained;
  }
#endif
  if (refusal) *refusal = no;
  return 0;
}

int submit_chain(BlockData& b, const StepParams& base, const ExecutionPolicy& policy, int first, int steps, double dt,
                 int parity, bool prime, bool watch, starpu_data_handle_t token, void (*on_done)(void*, int), void* arg) {
  ChainArgs a;
  a.first = first;
  a.steps = steps;
  a.dt = dt;
  a.prime = prime;
  a.watch = watch;
  a.velocity = compute_args(b, base, policy, true, first * dt);
  a.stress = compute_args(b, base, policy, false, first * dt + 0.5 * dt);
  for (int dir = 0; dir < kDirections; ++dir) {
    if (b.info.neighbour[dir] < 0) continue;
    a.velocity.neighbour_mask |= 1 << dir;
    a.stress.neighbour_mask |= 1 << dir;
    a.in_velocity.at[dir] = b.chain_in[dir].velocity;
    a.in_stress.at[dir] = b.chain_in[dir].stress;
    a.out_velocity.at[dir] = b.chain_out[dir].velocity;
    a.out_stress.at[dir] = b.chain_out[dir].stress;
    a.wait[dir] = b.chain_in[dir].ready;
    a.signal[dir] = b.chain_out[dir].ready;
  }
  a.side = b.chain_side;
  starpu_data_descr d[10 + 2 * kMaxStressSlots];
  int n = IterationBuffers::describe(b, a.velocity, a.stress, d);
  // The samples stay in (pinned) main memory, which the kernels write in place: no copy of them
  // between GPUs while windows run (record tasks reading them on a GPU hung the windows).
  std::vector<int> nodes;
  for (const StationSlot& ss : b.station_slots) {
    d[n++] = {ss.points, STARPU_R};
    n = add_on_node(d, n, nodes, {ss.samples[parity], STARPU_W}, STARPU_SPECIFIC_NODE_CPU);
    a.stress.slot[a.stress.station_slots++] = ss.slot;
  }
  if (watch) d[n++] = {b.h_peak, STARPU_W};
  if (token) n = add_on_node(d, n, nodes, {token, STARPU_R}, STARPU_SPECIFIC_NODE_CPU);
  starpu_codelet& cl = codelet_for(codelet(), nodes, n);
  void* done = on_done ? new WindowDone{on_done, arg, steps} : nullptr;
  insert_block_task(cl, d, n, &a, sizeof(a), b, on_done ? window_done : nullptr, done, "submitting chain");
  return 1;
}

}  // namespace ondes
