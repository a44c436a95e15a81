// The resolved plan of a run: built once from the case and the launch (ranks, GPUs, workers), and
// read by every command that needs it: `check` prints it, the memory checks judge it, Simulation
// allocates, places and submits by it, the run's metadata names its layout. What a block is
// (cuts, owner, its GPU, where its compute may run, its priority) is decided here and nowhere else;
// what the run finds only at run time (StarPU's worker ids, memory nodes) is Simulation's.
#pragma once
#include <cstdint>
#include <string>
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
  bool simulated = false;  // StarPU with SimGrid: tasks take their models' times, fields stay zero
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
  bool blocks_chosen = false;   // by plan_blocks for the launch, not given by the case or --blocks
  RankMap ranks;                // blocks to ranks
  std::vector<BlockPlan> blocks;  // by block id
  ExecutionPolicy policy;
  StepParams step;              // the step's numerics (shape, PmlBox set per block)
  StationSampling sampling = StationSampling::Ranks;
  bool samples_in_stress = false;  // the stress tasks sample the stations' corners
  bool small_tasks_on_gpus = false;  // run.small_tasks: saves, sources, records stay on the GPUs
  int watchdog_every = 0;            // run.watchdog_every; 0 in a simulated run (its fields stay zero)
  MemoryNeeds memory;
};

// The plan of case c on launch l. Throws CaseError when the blocks cannot be shared by the ranks.
RunPlan plan_run(const Case& c, const Launch& l);

// The blocks of case c on launch l (the one rule): the case's nbx x nby unless it leaves them to the
// run (run.choose_blocks); then a block per rank (1 x ranks) on several ranks, and on one process a
// block per GPU (1 x G), else two per CPU worker (2 x W; 1 x 2W on Ondes3D's surface), fewer where
// the grid is too small for them.
std::pair<int, int> plan_blocks(const Case& c, const Launch& l);

// The plan as lines of text, its execution policy beside the defaults included: what `check`
// prints and `run` logs and writes into its output (/run/plan), the same words for the same plan.
std::vector<std::string> describe_plan(const Case& c, const RunPlan& p);


}  // namespace ondes
