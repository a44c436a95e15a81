#include "tasks/peer_halos.hpp"

#include <map>
#include <memory>
#include <utility>

#include "tasks/codelet.hpp"

namespace ondes {
namespace {

bool on_gpu(int node) { return node >= 0 && starpu_node_get_kind(unsigned(node)) == STARPU_CUDA_RAM; }

// Whether kernels on GPU memory node a may write memory of node b; enables the access where the
// device allows it (StarPU's CUDA driver does the same at start-up unless
// STARPU_ENABLE_CUDA_GPU_GPU_DIRECT=0; enabling twice is harmless).
bool peer_reachable(int a, int b) {
#if defined(STARPU_SIMGRID)
  (void)a, (void)b;
  return true;  // the simulated GPUs: the platform's links carry what peer writes would
#elif defined(ONDES_CUDA_CODELETS)
  const int da = starpu_memory_node_get_devid(unsigned(a)), db = starpu_memory_node_get_devid(unsigned(b));
  int can = 0;
  if (cudaDeviceCanAccessPeer(&can, da, db) != cudaSuccess || !can) return false;
  const ScopedDevice on(da);
  const cudaError_t e = cudaDeviceEnablePeerAccess(db, 0);
  cudaGetLastError();  // clears cudaErrorPeerAccessAlreadyEnabled
  return e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled;
#else
  (void)a, (void)b;
  return false;
#endif
}

}  // namespace

int route_peer_halos(std::vector<BlockData>& blocks, const ExecutionPolicy& policy) {
  std::map<std::pair<int, int>, bool> reachable;
  int routed = 0;
  for (BlockData& b : blocks) {
    b.routes.out_node.fill(-1);
    if (!policy.peer_halos || !policy.gpu_affinity || !b.local || b.place.where != STARPU_CUDA || !on_gpu(b.place.node))
      continue;
    for (int dir = 0; dir < kDirections; ++dir) {
      const int nb = b.info.neighbour[dir];
      if (nb < 0) continue;
      const BlockData& o = blocks[nb];
      if (!o.local || !on_gpu(o.place.node) || o.place.node == b.place.node) continue;
      const auto key = std::make_pair(b.place.node, o.place.node);
      if (!reachable.count(key)) reachable[key] = peer_reachable(b.place.node, o.place.node);
      if (!reachable[key]) continue;
      b.routes.out_node[dir] = o.place.node;
      ++routed;
    }
  }
  return routed;
}

int add_on_node(starpu_data_descr* d, int n, std::vector<int>& nodes, starpu_data_descr x, int node) {
  nodes.resize(n, STARPU_SPECIFIC_NODE_LOCAL);
  nodes.push_back(node);
  d[n] = x;
  return n + 1;
}

starpu_codelet& codelet_for(starpu_codelet& base, std::vector<int>& nodes, int n) {
  if (nodes.empty()) return base;
  nodes.resize(n, STARPU_SPECIFIC_NODE_LOCAL);
  return codelet_on_nodes(base, nodes);
}

starpu_codelet& codelet_on_nodes(const starpu_codelet& base, const std::vector<int>& nodes) {
  struct Placed {
    starpu_codelet cl;
    std::vector<int> nodes;
  };
  static std::map<std::pair<const starpu_codelet*, std::vector<int>>, std::unique_ptr<Placed>> made;
  auto& p = made[{&base, nodes}];
  if (!p) {
    p = std::make_unique<Placed>(Placed{base, nodes});
    p->cl.specific_nodes = 1;
    p->cl.dyn_nodes = p->nodes.data();
  }
  return p->cl;
}

}  // namespace ondes
