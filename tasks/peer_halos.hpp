// Peer halos: one process driving several GPUs lets a block's kernels write the boundary buffer
// that a neighbour on another GPU reads straight into that GPU's memory, so no copy follows the
// update. The compute task accesses that buffer (W) on the neighbour's memory node (the codelet's
// specific nodes: StarPU places the buffer there, the kernel gets its address there; peer access
// is enabled between the two GPUs), and the neighbour's next update reads it where it already is.
// Why: on four H100s in one process (benchmark.toml 1x4), a frontier block's update waited for the
// end of its neighbour's, then for StarPU's copy of the buffer to be issued, done and noticed:
// three hops of the runtime each half step on the critical path; a peer write leaves one.
#pragma once
#include <starpu.h>

#include <vector>

#include "core/execution_policy.hpp"
#include "partition/block_data.hpp"

namespace ondes {

// Sets each local block's out_node: the memory node of the neighbour reading each boundary buffer
// where the policy asks for peer halos, the block computes on one GPU only (place.where CUDA,
// pinned) and the neighbour on another GPU of this process that this one may reach (peer access is
// enabled here where StarPU has not); -1 otherwise. Returns the buffers so routed.
int route_peer_halos(std::vector<BlockData>& blocks, const ExecutionPolicy& policy);

// `base` with buffer i of its tasks on memory node nodes[i] (STARPU_SPECIFIC_NODE_LOCAL: the
// worker's own): one copy per codelet and node list, kept for the process's life (tasks hold it).
starpu_codelet& codelet_on_nodes(const starpu_codelet& base, const std::vector<int>& nodes);

// Sets d[n] = x, on memory node `node` in `nodes` (the buffers before it on the worker's own, as
// far as nodes does not say otherwise); returns n + 1.
int add_on_node(starpu_data_descr* d, int n, std::vector<int>& nodes, starpu_data_descr x, int node);

// The codelet for a task of n buffers: `base` where no buffer goes elsewhere than the worker's own
// memory (nodes empty), else codelet_on_nodes of nodes padded to n.
starpu_codelet& codelet_for(starpu_codelet& base, std::vector<int>& nodes, int n);

}  // namespace ondes
