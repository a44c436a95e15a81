// Plain-loop baseline: the same CUDA kernels over the whole grid (one block), launched in a loop on
// one stream with no task runtime, to measure StarPU's overhead against. The arrays are prepared
// by the same set-up code as a run (StarPU is started with one CPU worker only for starpu_malloc),
// then copied to the GPU by hand - the one place the application copies data itself.
//   plain_loop CASE.toml [STEPS]
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "codelets/compute.hpp"
#include "codelets/source.hpp"
#include "codelets/stations.hpp"
#include "engine/runtime.hpp"
#include "io/case/case_reader.hpp"
#include "io/case/tuning.hpp"
#include "partition/block_data.hpp"
#include "partition/stations.hpp"
#include "physics/grid_setup.hpp"
#include "tasks/compute.hpp"

using namespace ondes;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}

template <class T>
T* to_device(const T* host, size_t count) {
  if (count == 0) return nullptr;
  void* d = nullptr;
  check(cudaMalloc(&d, count * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(d, host, count * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return static_cast<T*>(d);
}

// The block's arrays, sources and stations on the GPU (never freed: the program ends with them).
struct DeviceBlock {
  float *v, *s, *mat;
  char* pml;
  SourceArgs force, moment;
  std::vector<StationPoint*> stations;
  std::vector<float*> traces;
};

SourceArgs sources_to_device(const SourceSet& set) {
  double* values = nullptr;
  if (!set.emitters.empty()) check(cudaMalloc(&values, set.emitters.size() * sizeof(double)), "cudaMalloc");
  return SourceArgs{to_device(set.points.data(), set.points.size()), int64_t(set.points.size()),
                    to_device(set.emitters.data(), set.emitters.size()), int64_t(set.emitters.size()),
                    to_device(set.samples.data(), set.samples.size()), values,
                    to_device(set.runs.data(), set.runs.size()), int64_t(set.runs.size())};
}

DeviceBlock upload(const BlockData& b, const std::vector<StationGroup>& groups) {
  const int64_t n = b.info.shape.cells();
  DeviceBlock d{to_device(b.velocity, kVelocityComponents * n), to_device(b.stress, kStressComponents * n),
                to_device(b.material, material_floats(b)), to_device(b.pml, b.pml_bytes),
                sources_to_device(b.sources.force), sources_to_device(b.sources.moment), {}, {}};
  for (const StationGroup& g : groups) {
    d.stations.push_back(to_device(g.points.data(), g.points.size()));
    d.traces.push_back(to_device(g.traces.data(), g.traces.size()));
  }
  return d;
}

// Seconds that steps [first, last) take on `stream`, from an idle stream to their end.
template <class Step>
double timed(const Step& step, int first, int last, cudaStream_t stream) {
  check(cudaStreamSynchronize(stream), "before the steps");
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = first; it < last; ++it) step(it);
  check(cudaStreamSynchronize(stream), "the steps");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CASE.toml [STEPS] [march=TYxKZxB[xR]]\n", argv[0]);
    return 2;
  }
  Case c = read_case(argv[1]);
  if (argc > 2) c.time.steps = std::stoi(argv[2]);
  if (argc > 3) apply_tuning(c.tuning, argv[3], "plain_loop");  // the march geometry, as --tune takes it
  const MarchGeometry& march = c.tuning.march;
  c.run.set_blocks(1, 1);
  validate_case(c);
  Runtime rt("", 1, 0);
  const Decomposition whole = decompose(c.grid, 1, 1);
  const RankMap one_rank = map_blocks(c.grid, whole, 1, Mapping::Tiles);
  std::vector<BlockData> blocks = build_blocks(c, whole, one_rank, 0);
  std::vector<StationGroup> groups = build_station_groups(c, whole, c.time.steps, one_rank, 0);
  const BlockData& b = blocks[0];
  const DeviceBlock d = upload(b, groups);
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "stream");
  const StepParams p = block_params(b, step_params(c));
  StationBlocks vb{};
  vb.v[0] = d.v;
  vb.cells[0] = p.shape.cells();
  auto step = [&](int it) {
    const double t = it * c.time.dt;
    cuda::compute_velocity(p, {d.v, d.s, d.mat, d.pml, nullptr}, BoundaryBuffers{}, BoundaryBuffers{}, march, stream);
    cuda::apply_sources(d.v, d.force, t, stream);
    cuda::compute_stress(p, {d.s, d.v, d.mat, d.pml, nullptr}, BoundaryBuffers{}, BoundaryBuffers{}, march, stream);
    cuda::apply_sources(d.s, d.moment, t + 0.5 * c.time.dt, stream);
    for (size_t g = 0; g < groups.size(); ++g)
      cuda::record(vb, d.stations[g], groups[g].points.size(), it, c.time.steps, d.traces[g], stream);
  };
  const int warm = std::min(10, c.time.steps / 2), steps = c.time.steps - warm;
  timed(step, 0, warm, stream);
  const double wall = timed(step, warm, c.time.steps, stream);
  const double cells = double(c.grid.nx) * c.grid.ny * c.grid.nz;
  std::printf("plain loop: %d steps (after %d warm-up) in %.4f s: %.4g cell-updates/s, %.3f ms per step\n", steps,
              warm, wall, cells * steps / wall, 1e3 * wall / steps);
  std::fflush(stdout);
  release_station_groups(groups);
  release_blocks(blocks);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}
