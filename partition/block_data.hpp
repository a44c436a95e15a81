// A block's arrays and their StarPU handles. Arrays are allocated with starpu_malloc (pinned when
// a GPU is used) and registered once; StarPU moves them between memory nodes, the application never does.
#pragma once
#include <starpu.h>

#include <array>
#include <string>
#include <vector>

#include "partition/decomposition.hpp"
#include "partition/handles.hpp"
#include "partition/mapping.hpp"
#include "core/case.hpp"
#include "physics/grid_setup.hpp"

namespace ondes {

// A station group's slot that a block's compute_stress task samples (partition/stations.hpp):
// the group's corner points (R) and the slot's samples (W; the two buffers windows take in turn).
struct StationSlot {
  starpu_data_handle_t points = nullptr;
  std::array<starpu_data_handle_t, 2> samples{};
  int slot = 0;
};

// The halo one neighbour writes for a block whose steps are chained (tasks/chain.hpp), in the
// block's GPU memory: the two boundary buffers and the count of half steps whose halo has arrived.
struct HaloChannel {
  float* velocity = nullptr;
  float* stress = nullptr;
  uint32_t* ready = nullptr;
};

// A SourceSet's handles (physics/grid_setup.hpp): its points, emitters, samples and runs, and a
// scratch of one double an emitter (their values at a step: codelets/source.hpp).
struct SourceHandles {
  starpu_data_handle_t points = nullptr, emitters = nullptr, samples = nullptr, values = nullptr, runs = nullptr;
};

// Where a block's tasks run: the run's plan (plan/run_plan.cpp) put on the block once at start-up
// by the engine (Simulation's apply_plan, pin_blocks), before the routes; chained windows take the
// memory node of the GPU a block computes on, or hand each block a CPU worker of its own
// (tasks/chain_route.cpp, route_chained_steps).
struct BlockPlacement {
  unsigned long long where = STARPU_CPU | STARPU_CUDA;  // the workers its compute tasks may use
  // Its compute tasks' StarPU priority: 1 for a frontier block (a neighbour on another rank or GPU),
  // whose edges others wait for, under the policies that sort by priority (dmdas, prio).
  int priority = 0;
  int node = -1;      // the memory node of its pinned workers' GPU (or RAM); -1 when not pinned
  WorkerSet workers;  // the workers its tasks may run on, when one process drives several GPUs: its GPU's
};

// How a block's halos travel: set once at start-up by tasks/'s routes (route_peer_halos,
// route_ipc_halos, route_chained_steps), read by the submissions after them.
struct HaloRoutes {
  // The memory node its compute tasks write each boundary buffer on: -1 its own (the worker's),
  // else the GPU of the neighbour that reads it (tasks/peer_halos.hpp).
  std::array<int, kDirections> out_node{{-1, -1, -1, -1}};
  // The token of each boundary buffer that travels between ranks by CUDA IPC (tasks/ipc_halos.hpp),
  // null where StarPU-MPI carries the buffer itself; token_values is their memory.
  std::array<starpu_data_handle_t, kDirections> h_velocity_token{}, h_stress_token{};
  std::array<int32_t, 2 * kDirections> token_values{};
  // Its steps run in chained windows (tasks/chain.hpp): its halos come through chain_in (from the
  // neighbour in each direction), its own go through chain_out (the neighbours' chain_in).
  bool chained = false;
  std::array<HaloChannel, kDirections> chain_in{}, chain_out{};
  // Where its windows run part of each update on a second stream (ExecutionPolicy::chain_side_stream):
  // that stream on its GPU and the events that order the two (cudaStream_t, cudaEvent_t); null otherwise.
  struct ChainSide {
    void* stream = nullptr;
    std::array<void*, 3> events{};
  } chain_side;
};

// A block this rank owns has all its arrays. A block of another rank that borders one of ours has
// only the boundary buffers it sends us (receive copies, filled by StarPU-MPI); others have nothing.
struct BlockData {
  BlockInfo info;
  std::string name;  // "x<bx>y<by>": its tasks' StarPU name, the block column of the task trace
  bool local = true;
  // Its velocity, stress and material arrays in pinned host memory (starpu_malloc; else
  // posix_memalign): where CPU workers may compute it; a block only GPUs compute crosses the bus at
  // the start and the end only.
  bool pinned = true;
  float* velocity = nullptr;  // 3 components
  float* stress = nullptr;    // 6 components
  float* material = nullptr;  // core/layout.hpp's material buffer: material_floats(*this) floats
  int64_t node_classes = 0;   // Ondes3D's node classes it holds (core/layout.hpp kNodeClassFloats), or 0
  char* pml = nullptr;        // PmlLayout buffer, null when the block has no PML cell
  char* anelastic = nullptr;   // AnelasticLayout buffer, null when the medium does not attenuate
  size_t anelastic_bytes = 0;
  AnelasticShape anelastic_shape;
  size_t pml_bytes = 0;
  int64_t pml_cells = 0;
  int pml_classes = 0;        // the vp classes of its C-PML's levels (StepParams::pml_classes)
  PmlBox pml_box;             // the cells outside the PML; pml_index(pml_box, ...) places the others
  bool uniform_planes = false;  // every plane of the material uniform (StepParams::uniform_planes)
  bool parity_planes = false;   // else every plane of period 2 along x and y (StepParams::parity_planes)
  BlockSources sources;  // force points (velocity), moment points (stress)
  std::array<HostFloats, kDirections> velocity_out, stress_out;  // boundary buffers

  starpu_data_handle_t h_velocity = nullptr, h_stress = nullptr, h_material = nullptr, h_pml = nullptr;
  starpu_data_handle_t h_anelastic = nullptr;
  SourceHandles h_force, h_moment;  // of sources.force and sources.moment (points null: none)
  float peak = 0;  // the watchdog's largest velocity magnitude of the block (watch_velocity)
  starpu_data_handle_t h_peak = nullptr;
  std::array<starpu_data_handle_t, kDirections> h_velocity_out{}, h_stress_out{};
  std::vector<StationSlot> station_slots;  // sampled by its compute_stress (at most kMaxStressSlots)
  BlockPlacement place;  // where its tasks run (the plan's), set once at start-up
  HaloRoutes routes;     // how its halos travel (tasks/), set once at start-up
};

// The floats of a block's material buffer: the arrays and planes' factors, then its node classes if any.
inline int64_t material_floats(const BlockData& b) {
  const BlockShape& s = b.info.shape;
  return b.node_classes ? s.node_material_floats(b.node_classes) : s.material_floats();
}

// Bytes a block needs (fields, material, PML, anelastic memory, boundary buffers), for `check` and the logs.
size_t block_bytes(const Case& c, const BlockInfo& b);

// Whether every plane of a block's material (padded planes 0 to nz, those the stencils of planes
// 0 to nz - 1 read, ghost rows and columns included) holds one value per component, bit for bit: a
// homogeneous or horizontally layered medium without a 3D model, water or topography in the block.
bool uniform_planes(const BlockShape& s, const float* mat);
// Whether every such plane repeats with period 2 along x and y, bit for bit: a layered medium of
// coarse-grained attenuation (its cubes' unrelaxed moduli), without a 3D model, water or topography.
bool periodic_planes(const BlockShape& s, const float* mat);

// Allocates the arrays of the blocks `rank` owns and fills them (physics/grid_setup: material, PML
// cells and profiles, source points), and the receive copies of the boundary buffers other ranks send it.
// Indexed by block id.
// pinned[id] (empty: every block) pins the block's field and material arrays (BlockData::pinned).
std::vector<BlockData> build_blocks(const Case& c, const Decomposition& d, const RankMap& map, int rank,
                                    const std::vector<bool>& pinned = {});
void register_handles(std::vector<BlockData>& blocks);
// Global index (k * ny + j) * nx + i of each of a block's PML cells, in the block's order, from
// its PML buffer (the block's own, or one received from its owner).
std::vector<int64_t> global_pml_cells(const BlockInfo& b, const char* pml, int64_t count, const Grid& g);

// Unregisters (bringing the data back to main memory) and frees.
void release_blocks(std::vector<BlockData>& blocks);

}  // namespace ondes
