// IPC halos: ranks of one node, each driving its own GPU, exchange halos GPU to GPU. The rank that
// reads a boundary buffer allocates it in its GPU's memory and hands the sending rank a CUDA IPC
// handle of it; the sender registers that memory as its own buffer, so its kernels write the halo
// straight into the reader's GPU (peer writes, as tasks/peer_halos.hpp does inside one process).
// What still crosses MPI is a token of 4 bytes a buffer and half step: the sender's task writes its
// token (RW), StarPU-MPI sends it once the task is done; the reader receives it, and its update
// reads the token (R) beside the buffer, so StarPU starts the update only after the halo arrived.
// Nothing is written too early: a block's next update of a field needs the neighbour's halo of the
// other field, which the neighbour sends only after its update that read the previous halo.
// Why: StarPU 1.3's MPI layer moves GPU data through host memory (GPU -> host, MPI, host -> GPU),
// far slower than peer halos (docs/performance.md, Decisions: IPC halos).
// Both sides agree buffer by buffer at start-up (the reader offers, the sender answers); a buffer
// whose sender or reader may compute on CPU workers, or whose ranks are on different hosts or GPUs
// that cannot reach each other, travels through StarPU-MPI as before. [tuning] peer_halos = false
// turns both peer paths off.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/execution_policy.hpp"
#include "partition/block_data.hpp"
#include "partition/halo.hpp"

namespace ondes {

// CUDA IPC of GPU memory between ranks of one node, outside StarPU's handles (the boundary buffers
// below, the channels of chained steps: tasks/chain.hpp); real GPUs only (elsewhere nothing is
// usable). A handle of memory a rank allocated, as it hands it to another rank:
struct IpcHandle {
  int32_t usable = 0;     // handle holds a CUDA IPC handle
  char host[64] = {};     // the node of the rank that allocated the memory
  char handle[64] = {};   // cudaIpcMemHandle_t
};
// p: the start of a cudaMalloc allocation on GPU memory node `node`; `host`: this rank's node.
IpcHandle ipc_handle(void* p, int node, const std::string& host);
// The memory of h mapped for this rank's GPU (memory node `node`), or null: another node, or CUDA
// cannot map it. Closed by ipc_close.
void* ipc_open(const IpcHandle& h, int node, const std::string& host);
void ipc_close(void* p);

// The memory node of this process's one GPU, or -1 (no GPU, or several: one process driving several
// GPUs uses peer_halos.hpp between them).
int only_gpu_node();
// Whether block b's tasks run on GPU workers only (no CPU worker, or its compute tasks kept off them).
bool gpu_only(const BlockData& b);

// The GPU memory this rank allocated or opened for IPC halos; freed by release().
struct IpcMemory {
  struct Buffer {
    void* data;
    int node;  // its GPU memory node
    size_t bytes;
  };
  std::vector<Buffer> allocated, opened;
  void release();
};

// Agrees with the neighbouring ranks on the buffers that travel by CUDA IPC (collective: every rank
// of the run calls it, with the halo build_halo gave it), registers those buffers on this rank's
// GPU, gives them tokens (BlockData::h_velocity_token / h_stress_token) and makes the halo's
// messages for them carry the token instead of the buffer. `host` names this rank's node: ranks
// whose names differ never pair. Returns the buffers this rank so sends and receives.
int route_ipc_halos(std::vector<BlockData>& blocks, Halo& halo, const ExecutionPolicy& policy, const std::string& host,
                    IpcMemory& memory);

// Appends to d[n...] the tokens a task of block b over `velocity`'s half step takes: RW those of the
// boundary buffers it writes (its own, of that field) if `writes`, R those of the neighbours'
// buffers it reads (of the other field) if `reads`; each on main memory (STARPU_SPECIFIC_NODE_CPU,
// at its index in nodes, padded with STARPU_SPECIFIC_NODE_LOCAL). Returns the new count.
int add_tokens(const std::vector<BlockData>& blocks, const BlockData& b, bool velocity, bool writes, bool reads,
               starpu_data_descr* d, int n, std::vector<int>& nodes);

// Whether any boundary buffer of block b travels by IPC (its saves must then run on its GPU).
bool has_ipc_outputs(const BlockData& b);

}  // namespace ondes
