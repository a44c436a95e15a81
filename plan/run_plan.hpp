// The resolved plan of a run: built once from the case and the launch (ranks, GPUs, workers), and
// read by every command that needs it: `check` prints it, the memory checks judge it, Simulation
// allocates, places and submits by it, the run's metadata names its layout. What a block is
// (cuts, owner, its GPU, where its compute may run, its priority) is decided here and nowhere else;
// what the run finds only at run time (StarPU's worker ids, memory nodes) is Simulation's.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/case.hpp"
#include "core/layout.hpp"
#include "partition/decomposition.hpp"
#include "partition/mapping.hpp"
#include "partition/stations.hpp"

namespace ondes {

// What the run is launched on: MPI ranks, and this process's GPUs and workers.
struct Launch {
  int ranks = 1;
  int gpus = 0;          // CUDA devices this process drives
  int cuda_workers = 0;  // StarPU's CUDA workers (several a GPU)
  int cpu_workers = 0;
};

// Memory the run needs per rank (the most loaded one) and in all (fields, material, PML, buffers,
// seismograms), and for the largest single block (what one task must hold on a GPU), in bytes.
struct MemoryNeeds {
  double per_rank = 0, largest_block = 0, total = 0;
  // The arrays of the blocks computed on the fullest GPU (the blocks of a rank with a GPU each, or
  // of one of the process's GPUs when it drives several): what the GPU holds once they are there.
  double per_gpu = 0;
};

struct BlockPlan {
  double bytes = 0;     // host memory of its arrays (partition/block_data.hpp: block_bytes)
  int rank = 0;         // the rank that owns it
  int gpu = -1;         // one process with several GPUs: the GPU (index among the process's) its tasks
                        // stay on; -1: any worker
  bool cpu_compute = true;  // CPU workers may run its compute tasks (run.cpu_compute)
  int priority = 0;         // 1: a frontier block (a neighbour with another owner: rank or GPU)
};

struct RunPlan {
  Launch launch;
  Decomposition decomposition;  // the cuts, edge strips included
  RankMap ranks;                // blocks to ranks
  std::vector<BlockPlan> blocks;  // by block id
  ExecutionPolicy policy;
  StepParams step;              // the step's numerics (shape, PmlBox set per block)
  StationSampling sampling = StationSampling::Ranks;
  bool samples_in_stress = false;  // the stress tasks sample the stations' corners
  bool small_tasks_on_gpus = false;  // run.small_tasks: saves, sources, records stay on the GPUs
  MemoryNeeds memory;
};

// The plan of case c on launch l. Throws CaseError when the blocks cannot be shared by the ranks.
RunPlan plan_run(const Case& c, const Launch& l);

// The blocks a run without run.blocks or --blocks uses on one process's workers: a block per GPU
// (1 x G), else two blocks per CPU worker (2 x W), fewer where the grid is too small for them.
std::pair<int, int> default_blocks(const Case& c, const Launch& l);

// The blocks of d tiled over `groups` groups (GPUs) as ranks tile them, cyclic where tiles do not
// fit: each block's group.
std::vector<int> tile_groups(const Grid& g, const Decomposition& d, int groups);

}  // namespace ondes
