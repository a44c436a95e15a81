// How a run executes, apart from what it computes: the tuning choices that change speed, never the
// results (every value gives the same seismograms, bit for bit: test_invariance, test_lab). Set by
// the case's [tuning] table and `--tune KEY=VALUE` (io/case/tuning.cpp reads both); defaults are the best
// measured (docs/performance.md). Kernels and tasks receive it in their arguments; nothing reads
// the environment for it.
#pragma once

namespace ondes {

// The launch geometry of the CUDA z-marching kernels (codelets/march.hpp): tile rows (8 with 3-4
// thread blocks an SM, or 16 with 2), planes a thread block walks (0: 2 or 4 by the register bound)
// and the order of the thread blocks: bands of `rows` tile rows of a 1D grid, 0 a 3D grid, -1 about
// one wave's rows, kDeviceRows the GPU's own default (bands of 32 rows below 4 TB/s of DRAM).
constexpr int kDeviceRows = -2;
struct MarchGeometry {
  int ty = 8, kz = 0, min_blocks = 4, rows = kDeviceRows;
};

// Where a block's edges are saved: by a copy after its update (Apart), by the update itself
// (Update), or Auto: on CUDA workers apart for a block with no x neighbour, by the update otherwise;
// on CPU workers by the update (tasks/compute.hpp: edges_apart).
enum class EdgeSaving { Auto, Apart, Update };

// The station groups a compute_stress task samples at most (its arguments hold their slot numbers).
// A block can be in more groups (any set of blocks of a 2 x 2 square around it holding a station's
// corners, up to 25): sample_stations tasks take the slots beyond.
constexpr int kMaxStressSlots = 12;

// The iterations a chained window runs at most (ExecutionPolicy::chain_steps).
constexpr int kMaxChainSteps = 64;

struct ExecutionPolicy {
  MarchGeometry march;
  EdgeSaving edges = EdgeSaving::Auto;
  // One process with several GPUs keeps each block's tasks on one GPU (false: the scheduler places
  // them; scheduler studies).
  bool gpu_affinity = true;
  // With gpu_affinity, a block's kernels write the boundary buffer a neighbour on another GPU of the
  // process reads straight into that GPU's memory (peer writes over NVLink or PCIe; tasks/
  // peer_halos.hpp), where the two GPUs can reach each other, and ranks of one node do the same
  // through CUDA IPC (tasks/ipc_halos.hpp); false: into its own GPU's memory, and StarPU (or
  // StarPU-MPI, through host memory) copies the buffer to the neighbour's.
  bool peer_halos = true;
  // CPU workers that no task may use sleep while the steps run (tasks/park.hpp).
  bool park_cpus = true;
  // A run of one block runs its iterations in windows, as chained blocks do (tasks/chain.hpp): up
  // to chain_steps iterations a task (one where a task reads the velocity every step), rather than
  // the two compute tasks and the record task of each iteration.
  bool lone_block_step = true;
  // Station groups each compute_stress samples in a run of several blocks; the others are sampled
  // by tasks of their own. 0: every group by record tasks reading the blocks' velocity.
  int stress_station_slots = kMaxStressSlots;
  // Where every block has a GPU of its own (peer halos: one process, or ranks of one node by CUDA
  // IPC), a block runs up to this many iterations as one task, the GPUs ordering the halos between
  // them (tasks/chain.hpp); 0: a task per block and half step (a lone block: a window a step). 8:
  // the gain levels off beyond it (docs/performance.md, Decisions: chained steps).
  int chain_steps = 8;
  // In a chained window, a block's PML cells run on a second stream of its GPU beside the march
  // over the rest of its cells, and its station samples beside its stress update (tasks/chain.cpp):
  // fewer kernel ends a step that the GPU waits through; false: one stream.
  bool chain_side_stream = true;
  // Chained windows on CPU workers: each block's window a task on a CPU worker of its own, the halo
  // channels and their counters in main memory, ordered by the same code as on the GPUs (tasks/
  // chain.cpp). Slower than the task graph on CPUs: it lets a machine without GPUs (CI) run the
  // protocol of the default multi-GPU path. One process; a CPU worker a block.
  bool chain_on_cpus = false;
};

}  // namespace ondes
