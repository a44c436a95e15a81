// The analytic cost model of an iteration: what a grid, a block layout, worker counts and ranks
// should cost on a machine described by a few measured figures. Used to predict the points of a
// sweep (tools/sweep.py) before running them, and to explain the measured ones.
//
// Per block and iteration: bytes = 120 per cell (the fewest a step moves: velocity 13 floats read
// or written, stress 17) + 160 per PML cell (18 memory variables read and written, two indices)
// + the boundary layers saved to and loaded from the buffers; tasks = 2 compute, which add the
// block's sources and save its edges too. A block on a worker of kind k takes bytes / bandwidth_k
// + tasks x task_overhead_k.
// Blocks are placed largest first on the worker that would finish them first (what a
// performance-aware scheduler aims at); iterations overlap (StarPU keeps a window of them in
// flight), so a worker's time per iteration is the sum of its blocks'. A boundary buffer read on
// another memory node than it was written costs latency + bytes / bandwidth of the link (twice
// between two GPUs: through the host); one sent to another rank, the MPI latency + bytes / MPI
// bandwidth, not overlapped with compute (measured so: the halo exchange is on the critical path).
#pragma once
#include <string>
#include <vector>

#include "partition/decomposition.hpp"
#include "partition/mapping.hpp"
#include "core/case.hpp"

namespace ondes {

// Measured figures of a machine (ondes3d calibrate), stored as TOML.
struct MachineModel {
  std::string name;
  double cpu_gbs = 0;        // effective bandwidth of one CPU worker on the stencils, all workers busy
  double cpu_task_s = 0;     // runtime cost per task on a CPU worker
  int cpu_workers = 0;       // CPU workers during the calibration (cpu_gbs holds for that many)
  double cuda_gbs = 0;       // effective bandwidth of one GPU on the stencils
  double cuda_task_s = 0;    // runtime cost per task on a CUDA worker
  double cuda_memory_bytes = 0;
  double link_latency_s = 10e-6, link_gbs = 25;  // host <-> GPU (StarPU's bus calibration)
  double mpi_latency_s = 5e-6, mpi_gbs = 5;      // between ranks (not measured by calibrate)
};

MachineModel read_machine(const std::string& path);  // throws CaseError naming file and key
void write_machine(const std::string& path, const MachineModel& m);

struct WorkerConfig {
  int ncpu = 1, ncuda = 0, ranks = 1;  // workers per rank
};

// The cost of each block per iteration, independent of where it runs.
struct BlockCost {
  double bytes = 0;
  int tasks = 0;
  double boundary_bytes[kDirections] = {};  // the buffer a neighbour in each direction reads
};
std::vector<BlockCost> block_costs(const Case& c, const Decomposition& d);

struct Prediction {
  double seconds_per_iteration = 0;
  double compute_s = 0;   // the busiest worker's bytes / bandwidth
  double overhead_s = 0;  // the busiest worker's task overheads
  double transfer_s = 0;  // host <-> GPU and MPI on the slowest rank
  double cpu_cell_share = 0;  // fraction of the cells placed on CPU workers
  int tasks_per_iteration = 0;
};

// c.run.nbx x c.run.nby blocks, c.run.mapping over w.ranks ranks.
Prediction predict(const Case& c, const WorkerConfig& w, const MachineModel& m);
// The same for blocks d mapped to ranks by map (a run's plan: plan/run_plan.hpp).
Prediction predict(const Case& c, const Decomposition& d, const RankMap& map, const WorkerConfig& w,
                   const MachineModel& m);

// The bytes and tasks of the busiest worker (the one that sets the time per iteration) when
// `workers` identical workers of one kind share the blocks: what calibration solves for.
struct Load {
  double bytes = 0;
  int tasks = 0;
};
Load busiest_worker(const Case& c, int workers);

// Which of a rank's blocks (ids in `mine`) CPU workers may compute beside `gpus` GPUs (result
// indexed by block id; false for the others): those one CPU worker finishes within half the GPUs'
// time per iteration, from the blocks' bytes and the bandwidths of m (calibrated, or the defaults:
// kDefaultCpuWorkerGBs, kDefaultGpuGBs). A larger block on a CPU delays every iteration that needs
// it, and a performance-aware scheduler learns that only after it has tried (docs/performance.md,
// Decisions: CPU workers beside GPUs).
constexpr double kDefaultCpuWorkerGBs = 5, kDefaultGpuGBs = 1500;
std::vector<bool> cpu_may_compute(const Case& c, const Decomposition& d, const std::vector<int>& mine, int gpus,
                                  double cpu_gbs = kDefaultCpuWorkerGBs, double gpu_gbs = kDefaultGpuGBs);

// From two measured times per iteration at two layouts (busiest-worker loads a and b), the
// bandwidth (GB/s) and per-task cost (s) with t = bytes / bandwidth + tasks x cost. A negative
// cost (noise) is taken as zero.
void solve_kind(const Load& a, double ta, const Load& b, double tb, double& gbs, double& task_s);

}  // namespace ondes
