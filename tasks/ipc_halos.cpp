#include "tasks/ipc_halos.hpp"

#include <array>
#include <cstring>
#include <string>

#include "tasks/codelet.hpp"
#include "tasks/messages.hpp"
#include "tasks/peer_halos.hpp"

// IPC halos exist where the codelets have CUDA and StarPU-MPI is there: real ranks map each other's
// GPU memory by CUDA IPC; simulated ones (the SMPI build, tools/sim_nodes.sh with ranks sharing a
// node) have no GPU memory to map, so each side takes a buffer of its own on its simulated GPU and
// the tokens order them as in a real run. The halo's bytes, which a real sender's kernels write into
// the reader's GPU, cost what the calibrated save task took; no transfer is simulated for them.
#if defined(ONDES_CUDA_CODELETS) && !defined(ONDES_NO_MPI)
#define ONDES_IPC_HALOS 1
#endif

namespace ondes {
namespace {

#ifdef ONDES_IPC_HALOS
// What the reading rank tells the sending one about a boundary buffer.
struct Offer {
  IpcHandle ipc;  // usable: the reader computes the block on its GPU only and allocated the buffer there
  int64_t bytes = 0;
};

starpu_data_handle_t& out_handle(BlockData& b, const Transfer& t) {
  return t.kind == kVelocityKind ? b.h_velocity_out[t.dir] : b.h_stress_out[t.dir];
}

#ifdef STARPU_SIMGRID
// Simulated: the reader's buffer and the sender's stand-in for it, each on its own simulated GPU.
void* offer_buffer(int node, size_t bytes, Offer& o) {
  o.ipc.usable = 1;
  return reinterpret_cast<void*>(starpu_malloc_on_node(unsigned(node), bytes));
}
void* open_buffer(int node, const Offer& o) {
  return reinterpret_cast<void*>(starpu_malloc_on_node(unsigned(node), size_t(o.bytes)));
}
void free_buffer(const IpcMemory::Buffer& b) { starpu_free_on_node(unsigned(b.node), uintptr_t(b.data), b.bytes); }
void close_buffer(const IpcMemory::Buffer& b) { free_buffer(b); }
#else
// The reader: a buffer of `bytes` in its GPU's memory (node), offered by IPC handle.
void* offer_buffer(int node, size_t bytes, Offer& o) {
  const ScopedDevice on(starpu_memory_node_get_devid(unsigned(node)));
  void* p = nullptr;
  if (cudaMalloc(&p, bytes) != cudaSuccess) p = nullptr;
  cudaGetLastError();
  if (p) o.ipc = ipc_handle(p, node, o.ipc.host);
  if (p && !o.ipc.usable) {
    cudaFree(p);
    p = nullptr;
  }
  return p;
}

// The sender: the reader's buffer mapped for its GPU's kernels (null where it cannot be).
void* open_buffer(int node, const Offer& o) { return ipc_open(o.ipc, node, o.ipc.host); }

void free_buffer(const IpcMemory::Buffer& b) { cudaFree(b.data); }
void close_buffer(const IpcMemory::Buffer& b) { cudaIpcCloseMemHandle(b.data); }
#endif

// Block b's buffer of transfer t now lives at p on GPU memory node `node`, and its message is its token.
void switch_to_token(BlockData& b, Transfer& t, int node, void* p) {
  starpu_data_handle_t& h = out_handle(b, t);
  unregister(h);
  starpu_vector_data_register(&h, unsigned(node), reinterpret_cast<uintptr_t>(p), t.bytes / sizeof(float),
                              sizeof(float));
  starpu_data_handle_t& token = t.kind == kVelocityKind ? b.routes.h_velocity_token[t.dir] : b.routes.h_stress_token[t.dir];
  register_vector(&token, &b.routes.token_values[t.kind * kDirections + t.dir], 1);
  t.handle = token;
  t.bytes = sizeof(int32_t);
}
#endif  // ONDES_IPC_HALOS

}  // namespace

int only_gpu_node() {
  int node = -1;
  const int n = static_cast<int>(starpu_worker_get_count());
  for (int w = 0; w < n; ++w) {
    if (starpu_worker_get_type(w) != STARPU_CUDA_WORKER) continue;
    const int m = static_cast<int>(starpu_worker_get_memory_node(w));
    if (node >= 0 && m != node) return -1;
    node = m;
  }
  return node;
}

bool gpu_only(const BlockData& b) {
  return starpu_worker_get_count_by_type(STARPU_CPU_WORKER) == 0 || !(b.place.where & STARPU_CPU);
}

#if defined(ONDES_IPC_HALOS) && !defined(STARPU_SIMGRID)
static_assert(sizeof(cudaIpcMemHandle_t) <= sizeof(IpcHandle::handle), "an IPC handle fits");

IpcHandle ipc_handle(void* p, int node, const std::string& host) {
  IpcHandle h;
  std::strncpy(h.host, host.c_str(), sizeof(h.host) - 1);
  const ScopedDevice on(starpu_memory_node_get_devid(unsigned(node)));
  cudaIpcMemHandle_t ipc;
  if (cudaIpcGetMemHandle(&ipc, p) == cudaSuccess) {
    h.usable = 1;
    std::memcpy(h.handle, &ipc, sizeof(ipc));
  }
  cudaGetLastError();
  return h;
}

void* ipc_open(const IpcHandle& h, int node, const std::string& host) {
  if (!h.usable || host != h.host) return nullptr;
  const ScopedDevice on(starpu_memory_node_get_devid(unsigned(node)));
  cudaIpcMemHandle_t ipc;
  std::memcpy(&ipc, h.handle, sizeof(ipc));
  void* p = nullptr;
  if (cudaIpcOpenMemHandle(&p, ipc, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) p = nullptr;
  cudaGetLastError();
  return p;
}

void ipc_close(void* p) { cudaIpcCloseMemHandle(p); }
#else
IpcHandle ipc_handle(void*, int, const std::string& host) {
  IpcHandle h;
  std::strncpy(h.host, host.c_str(), sizeof(h.host) - 1);
  return h;
}
void* ipc_open(const IpcHandle&, int, const std::string&) { return nullptr; }
void ipc_close(void*) {}
#endif

#ifndef ONDES_IPC_HALOS
void IpcMemory::release() {}
int route_ipc_halos(std::vector<BlockData>&, Halo&, const ExecutionPolicy&, const std::string&, IpcMemory&) { return 0; }
#else
void IpcMemory::release() {
  for (const Buffer& b : opened) close_buffer(b);
  for (const Buffer& b : allocated) free_buffer(b);
  opened.clear();
  allocated.clear();
}

namespace {
// Per field kind, one entry per transfer of the halo's list (send or recv) of that kind.
template <class T>
using PerKind = std::array<std::vector<T>, 2>;

// 1. The reader offers each buffer it receives (offers: kept until the sends are done), allocated
// on its GPU (`node`) where its reader block is GPU-only; returns those buffers (null: none).
PerKind<void*> offer_received(const std::vector<BlockData>& blocks, const Halo& halo, int node,
                              const std::string& host, PerKind<Offer>& offers, Posted& posted) {
  PerKind<void*> mine;
  for (int k = 0; k < 2; ++k) {
    offers[k].resize(halo.recv[k].size());
    mine[k].resize(halo.recv[k].size(), nullptr);
    for (size_t i = 0; i < halo.recv[k].size(); ++i) {
      const Transfer& t = halo.recv[k][i];
      Offer& o = offers[k][i];
      std::strncpy(o.ipc.host, host.c_str(), sizeof(o.ipc.host) - 1);
      o.bytes = int64_t(t.bytes);
      const BlockData& reader = blocks[blocks[t.block].info.neighbour[t.dir]];
      if (node >= 0 && gpu_only(reader)) mine[k][i] = offer_buffer(node, t.bytes, o);
      posted.send(&o, sizeof(o), t.peer, kIpcOfferTagBase + t.tag);
    }
  }
  return mine;
}

// 2. The sender maps what it can and answers (answers: kept until the sends are done); returns
// the buffers mapped (null: none).
PerKind<void*> map_offers(const std::vector<BlockData>& blocks, const Halo& halo, int node, const std::string& host,
                          PerKind<int32_t>& answers, Posted& posted) {
  PerKind<void*> mapped;
  for (int k = 0; k < 2; ++k) {
    answers[k].resize(halo.send[k].size(), 0);
    mapped[k].resize(halo.send[k].size(), nullptr);
    for (size_t i = 0; i < halo.send[k].size(); ++i) {
      const Transfer& t = halo.send[k][i];
      Offer o;
      receive_now(&o, sizeof(o), t.peer, kIpcOfferTagBase + t.tag, "receiving an IPC offer");
      if (o.ipc.usable && node >= 0 && gpu_only(blocks[t.block]) && host == o.ipc.host)
        mapped[k][i] = open_buffer(node, o);
      answers[k][i] = mapped[k][i] != nullptr;
      posted.send(&answers[k][i], sizeof(int32_t), t.peer, kIpcAnswerTagBase + t.tag);
    }
  }
  return mapped;
}
}  // namespace

int route_ipc_halos(std::vector<BlockData>& blocks, Halo& halo, const ExecutionPolicy& policy, const std::string& host,
                    IpcMemory& memory) {
  const int node = policy.peer_halos ? only_gpu_node() : -1;
  PerKind<Offer> offers;
  PerKind<int32_t> answers;
  Posted posted;
  const PerKind<void*> mine = offer_received(blocks, halo, node, host, offers, posted);
  const PerKind<void*> mapped = map_offers(blocks, halo, node, host, answers, posted);
  int routed = 0;
  // 3. Both sides switch the buffers the sender took to tokens; the reader frees the others.
  for (int k = 0; k < 2; ++k)
    for (size_t i = 0; i < halo.recv[k].size(); ++i) {
      Transfer& t = halo.recv[k][i];
      int32_t taken = 0;
      receive_now(&taken, sizeof(taken), t.peer, kIpcAnswerTagBase + t.tag, "receiving an IPC answer");
      if (!mine[k][i]) continue;
      const IpcMemory::Buffer buffer{mine[k][i], node, t.bytes};
      if (!taken) {
        free_buffer(buffer);
        continue;
      }
      memory.allocated.push_back(buffer);
      switch_to_token(blocks[t.block], t, node, mine[k][i]);
      ++routed;
    }
  posted.wait();
  for (int k = 0; k < 2; ++k)
    for (size_t i = 0; i < halo.send[k].size(); ++i)
      if (void* p = mapped[k][i]) {
        memory.opened.push_back({p, node, halo.send[k][i].bytes});
        switch_to_token(blocks[halo.send[k][i].block], halo.send[k][i], node, p);
        ++routed;
      }
  return routed;
}
#endif

int add_tokens(const std::vector<BlockData>& blocks, const BlockData& b, bool velocity, bool writes, bool reads,
               starpu_data_descr* d, int n, std::vector<int>& nodes) {
  auto add = [&](starpu_data_handle_t token, starpu_data_access_mode mode) {
    n = add_on_node(d, n, nodes, {token, mode}, STARPU_SPECIFIC_NODE_CPU);
  };
  for (int dir = 0; dir < kDirections; ++dir) {
    const int nb = b.info.neighbour[dir];
    if (nb < 0) continue;
    const auto& own = velocity ? b.routes.h_velocity_token : b.routes.h_stress_token;
    if (writes && own[dir]) add(own[dir], STARPU_RW);
    const BlockData& other = blocks[nb];
    const auto& theirs = velocity ? other.routes.h_stress_token : other.routes.h_velocity_token;
    if (reads && theirs[opposite(dir)]) add(theirs[opposite(dir)], STARPU_R);
  }
  return n;
}

bool has_ipc_outputs(const BlockData& b) {
  for (int dir = 0; dir < kDirections; ++dir)
    if (b.routes.h_velocity_token[dir] || b.routes.h_stress_token[dir]) return true;
  return false;
}

}  // namespace ondes
