// Chained steps' set-up (tasks/chain.hpp): whether the blocks can chain, their halo channels on
// the GPUs (shared with the ranks of a node by CUDA IPC), their side streams; tasks/chain.cpp runs
// the windows.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>

#include "tasks/chain.hpp"
#include "tasks/chain_gpu.hpp"
#include "tasks/ipc_halos.hpp"
#include "tasks/messages.hpp"
#include "tasks/park.hpp"
#include "tasks/peer_halos.hpp"

namespace ondes {
namespace {

// The channel of `floats` floats a field at p: the two fields and the counter after them.
size_t channel_field_bytes(int64_t floats) { return ((size_t(floats) * sizeof(float) + 255) / 256) * 256; }
size_t channel_bytes(int64_t floats) { return 2 * channel_field_bytes(floats) + 256; }
HaloChannel channel_at(void* p, int64_t floats) {
  char* c = static_cast<char*>(p);
  const size_t field = channel_field_bytes(floats);
  return {reinterpret_cast<float*>(c), reinterpret_cast<float*>(c + field), reinterpret_cast<uint32_t*>(c + 2 * field)};
}

// A channel of `floats` floats a field and its counter (set to 0), in main memory (chain_on_cpus).
HaloChannel host_channel(int64_t floats, ChainMemory& memory) {
  void* p = std::aligned_alloc(256, channel_bytes(floats));
  if (!p) throw std::bad_alloc();
  memory.host.push_back(p);
  std::memset(p, 0, channel_bytes(floats));
  return channel_at(p, floats);
}

#ifdef ONDES_CHAINED_STEPS
using chain_gpu::check_cuda;

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
HaloRoutes::ChainSide create_side(int node, ChainMemory& memory) {
  const ScopedDevice on(starpu_memory_node_get_devid(unsigned(node)));
  HaloRoutes::ChainSide side;
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
      offers.push_back(ipc_handle(b.routes.chain_in[dir].velocity, b.place.node, host));
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
      void* p = ipc_open(h, b.place.node, host);
      if (!p) {
        if (no.empty()) no = fmt::format("the GPU of block {} (rank {}, node {}) not mappable by CUDA IPC", blocks[nb].name,
                                         map.owner(nb), h.host);
        continue;
      }
      memory.opened.push_back(p);
      b.routes.chain_out[dir] = channel_at(p, boundary_floats(b.info.shape, dir));
    }
  posted.wait();
  return no;
}

#endif  // ONDES_CHAINED_STEPS

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
  if (b.place.node >= 0)
    return b.place.where == STARPU_CUDA && starpu_node_get_kind(unsigned(b.place.node)) == STARPU_CUDA_RAM ? b.place.node : -1;
  return gpu_only(b) ? only_gpu_node() : -1;
}

// Why the blocks cannot chain on their GPUs ("" if they can), before the GPUs are asked.
// Quiet where the run has no GPU a block to give (ChainRefusal).
ChainRefusal gpu_obstacle(const std::vector<BlockData>& blocks, const ExecutionPolicy& policy, int ranks) {
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
      if (b.local && nb >= 0 && blocks[nb].local && b.routes.out_node[dir] < 0)
        return {"a halo not written into the neighbour's GPU"};
    }
  return {};
}

// Why the blocks cannot chain on CPU workers (chain_on_cpus; "" if they can): a window waits for
// its neighbours' windows, so each needs a worker of its own. The record tasks may share them: a
// window waits only for the record tasks of two windows before (ChainMemory's tokens), which no
// running window can hold up.
ChainRefusal cpu_obstacle(const std::vector<BlockData>& blocks, int ranks) {
  if (ranks > 1) return {"chain_on_cpus runs in one process"};
  const size_t cpus = ParkedCpus::cpu_workers().size();
  if (cpus < blocks.size())
    return {fmt::format("chain_on_cpus: {} CPU workers for {} blocks (a worker a block)", cpus, blocks.size())};
  return {};
}

// Why the blocks cannot chain their steps ("" if they can). Over MPI, this rank's view: its own
// blocks, their neighbours of other ranks reached by CUDA IPC (share_channels, after every rank
// agreed).
ChainRefusal obstacle(const std::vector<BlockData>& blocks, const std::vector<StationGroup>& groups,
                      const ExecutionPolicy& policy, bool per_step_readers, int ranks) {
  if (policy.chain_steps <= 0) return {"chain_steps = 0"};
  if (per_step_readers) return {"peak ground velocity maps or displacement snapshots read every step"};
  if (blocks.size() < 2) return {"one block", true};
  const ChainRefusal where = policy.chain_on_cpus ? cpu_obstacle(blocks, ranks) : gpu_obstacle(blocks, policy, ranks);
  if (!where.why.empty()) return where;
  for (const StationGroup& g : groups) {
    if (!g.involved) continue;
    if (!g.sampled) return {"a station group read from the velocity"};
    for (size_t s = 0; s < g.blocks.size(); ++s)
      if (blocks[g.blocks[s]].local && !g.in_stress[s]) return {"a station group sampled by a task of its own"};
  }
  return {};
}

// Chained on CPU workers: block i's tasks on the i-th CPU worker, the channels in main memory.
void place_on_cpus(std::vector<BlockData>& blocks, ChainMemory& memory) {
  const std::vector<int> cpus = ParkedCpus::cpu_workers();
  size_t next = 0;
  for (BlockData& b : blocks) {
    b.place.workers = WorkerSet{};
    b.place.workers.add(cpus[next++]);
    b.place.where = STARPU_CPU;
    b.place.node = STARPU_MAIN_RAM;
  }
  for (BlockData& b : blocks)
    for (int dir = 0; dir < kDirections; ++dir)
      if (const int nb = b.info.neighbour[dir]; nb >= 0) {
        b.routes.chain_in[dir] = host_channel(boundary_floats(blocks[nb].info.shape, opposite(dir)), memory);
        blocks[nb].routes.chain_out[opposite(dir)] = b.routes.chain_in[dir];
      }
}

// The local blocks chained, and what their windows share: the stall report, the record tokens.
int chain_blocks(std::vector<BlockData>& blocks, const std::vector<StationGroup>& groups, ChainMemory& memory) {
  int chained = 0;
  for (BlockData& b : blocks)
    if (b.local) b.routes.chained = true, ++chained;
  starpu_task_watchdog_set_hook(report_chain_stall, &blocks);
  if (std::any_of(groups.begin(), groups.end(), [](const StationGroup& g) { return g.involved; }))
    for (int p = 0; p < 2; ++p) register_vector(&memory.record_tokens[p], &memory.token_values[p], 1);
  return chained;
}

}  // namespace

void ChainMemory::release() {
  for (void* p : opened) ipc_close(p);
  opened.clear();
  if (!allocated.empty() || !host.empty()) starpu_task_watchdog_set_hook(nullptr, nullptr);
  for (void* p : host) std::free(p);
  host.clear();
#ifdef ONDES_CHAINED_STEPS
  for (void* p : allocated) cudaFree(p);
  for (const HaloRoutes::ChainSide& side : sides) {
    cudaStreamDestroy(static_cast<cudaStream_t>(side.stream));
    for (void* e : side.events) cudaEventDestroy(static_cast<cudaEvent_t>(e));
  }
#endif
  allocated.clear();
  sides.clear();
  for (starpu_data_handle_t& h : record_tokens) unregister(h);
}

int route_chained_steps(std::vector<BlockData>& blocks, const std::vector<StationGroup>& groups,
                        const ExecutionPolicy& policy, const ChainSite& site, bool per_step_readers,
                        ChainMemory& memory, ChainRefusal* refusal) {
  const RankMap& map = site.map;
  const int rank = site.rank;
  const std::string& host = site.host;
  ChainRefusal no = obstacle(blocks, groups, policy, per_step_readers, map.ranks);
#if defined(STARPU_SIMGRID)
  if (no.why.empty()) no.why = "not simulated (the windows order the halos outside StarPU's task graph)";
#elif defined(ONDES_CHAINED_STEPS)
  if (no.why.empty() && !policy.chain_on_cpus && !chain_gpu::stream_memory_operations())
    no.why = "no stream memory operations in the CUDA driver";
#else
  if (no.why.empty() && !policy.chain_on_cpus) no.why = "no CUDA codelets";
#endif
  // Over MPI every rank chains or none does: chained windows send no halo messages.
  no = agreed(no, rank, map.ranks, kChainTagBase);
  if (no.why.empty() && policy.chain_on_cpus) {
    place_on_cpus(blocks, memory);
    return chain_blocks(blocks, groups, memory);
  }
#ifdef ONDES_CHAINED_STEPS
  if (no.why.empty()) {
    for (BlockData& b : blocks)
      if (b.local) b.place.node = gpu_node(b);
    for (BlockData& b : blocks)
      for (int dir = 0; dir < kDirections; ++dir) {
        const int nb = b.info.neighbour[dir];
        if (!b.local || nb < 0) continue;
        BlockData& writer = blocks[nb];
        b.routes.chain_in[dir] = allocate_channel(b.place.node, boundary_floats(writer.info.shape, opposite(dir)), memory);
        if (writer.local) writer.routes.chain_out[opposite(dir)] = b.routes.chain_in[dir];
      }
    if (map.ranks > 1) no = agreed({share_channels(blocks, map, host, memory)}, rank, map.ranks, kChainTagBase);
    if (!no.why.empty()) {
      memory.release();
      for (BlockData& b : blocks) b.routes.chain_in = b.routes.chain_out = {};
    }
  }
  if (no.why.empty()) {
    // The second stream takes the PML cells and the station samples: a block with neither keeps one.
    for (BlockData& b : blocks)
      if (b.local && policy.chain_side_stream && (b.pml_cells > 0 || !b.station_slots.empty()))
        b.routes.chain_side = create_side(b.place.node, memory);
    return chain_blocks(blocks, groups, memory);
  }
#endif
  if (refusal) *refusal = no;
  return 0;
}

}  // namespace ondes
