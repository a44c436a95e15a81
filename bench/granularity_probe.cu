// Probe of the march kernels' granularity (issue 16: one H200 runs 4x4 blocks of benchmark.toml at
// 0.83 of one block, its marches at 2.68 TB/s against 3.3-3.4): march.hpp's two kernels over one
// NX x NY x NZ block against the same cells cut into BX x BY blocks, their launches spread over 4
// streams (what StarPU's four workers a GPU do), without any runtime; then with what StarPU's tasks
// add for a block with four neighbours, piece by piece: its edges saved by the march, its x faces'
// ghosts read from the buffers (XPatch), the other ghosts copied in first.
//   granularity_probe [NX NY NZ] [STEPS] [BX BY]
// What it covers: the blocks' whole interiors (no PML), material uniform by plane, ghost buffers of
// random values. Checked bit for bit: the x ghosts read from the buffers against all ghosts copied.
// Results: bench/results/gpu_h100_granularity_probe.txt, gpu_h100_edges_from_registers.txt.
#define ONDES_DEFINE_CUDA_KERNELS
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_state.hpp"
#include "codelets/march.hpp"

using namespace ondes;
using probe::check;

namespace {

struct Block {
  StepParams p;
  PmlBox box;
  float *v, *s, *mat;
  BoundaryBuffers edges[2], ghosts[2];  // by field kind (velocity, stress): all four directions
};

Block make_block(const BlockShape& sh) {
  Block b;
  const int64_t n = sh.cells();
  probe::Random rnd;
  const probe::HostBlock h = probe::host_block(sh, rnd);
  check(cudaMalloc(&b.v, 3 * n * sizeof(float)), "malloc");
  check(cudaMalloc(&b.s, 6 * n * sizeof(float)), "malloc");
  check(cudaMalloc(&b.mat, h.mat.size() * sizeof(float)), "malloc");
  check(cudaMemcpy(b.v, h.v.data(), 3 * n * sizeof(float), cudaMemcpyHostToDevice), "upload");
  check(cudaMemcpy(b.s, h.s.data(), 6 * n * sizeof(float), cudaMemcpyHostToDevice), "upload");
  check(cudaMemcpy(b.mat, h.mat.data(), h.mat.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
  b.box.hi[0] = sh.nx, b.box.hi[1] = sh.ny, b.box.hi[2] = sh.nz;
  b.p = probe::step_params(sh, b.box);
  for (int kind = 0; kind < 2; ++kind)
    for (int dir = 0; dir < kDirections; ++dir) {
      const size_t bytes = box_floats(sh, kHaloComponents, edge_box(sh, dir)) * sizeof(float);
      check(cudaMalloc(&b.edges[kind].at[dir], bytes), "malloc");
      check(cudaMalloc(&b.ghosts[kind].at[dir], bytes), "malloc");
      std::vector<float> g(bytes / sizeof(float));
      for (auto& f : g) f = rnd();
      check(cudaMemcpy(b.ghosts[kind].at[dir], g.data(), bytes, cudaMemcpyHostToDevice), "upload");
    }
  return b;
}

// What a block's update does besides the march (mode, bits): 1 its edges saved by the march, 2 its
// x faces' ghosts read from the buffers (XHalo), 4 the other ghosts copied in first (load_ghosts;
// all of them without 2). 7 is what StarPU's tasks do for a block with four neighbours.
enum { kSave = 1, kPatch = 2, kCopy = 4 };
int mode = 0;
void velocity(const Block& b, cudaStream_t st) {
  const XHalo h = mode & kPatch ? ondes::cuda::march::x_halo(b.p.shape, b.box, b.ghosts[1]) : XHalo{};
  if (mode & kCopy) ondes::cuda::load_ghosts(b.p.shape, kStressKind, b.ghosts[1], b.s, st, h);
  ondes::cuda::march::march_block<ondes::cuda::march::Velocity>("velocity_march", b.p, b.box, b.v, b.s, b.mat,
                                                                mode & kSave ? b.edges[0] : BoundaryBuffers{}, h, st);
}
void stress(const Block& b, cudaStream_t st) {
  const XHalo h = mode & kPatch ? ondes::cuda::march::x_halo(b.p.shape, b.box, b.ghosts[0]) : XHalo{};
  if (mode & kCopy) ondes::cuda::load_ghosts(b.p.shape, kVelocityKind, b.ghosts[0], b.v, st, h);
  ondes::cuda::march::march_block<ondes::cuda::march::Stress>("stress_march", b.p, b.box, b.s, b.v, b.mat,
                                                              mode & kSave ? b.edges[1] : BoundaryBuffers{}, h, st);
}

}  // namespace

int main(int argc, char** argv) {
  BlockShape whole{512, 512, 256};
  int steps = 100, bx = 4, by = 4;
  if (argc >= 4) whole = BlockShape{std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])};
  if (argc >= 5) steps = std::atoi(argv[4]);
  if (argc >= 7) bx = std::atoi(argv[5]), by = std::atoi(argv[6]);
  const BlockShape part{whole.nx / bx, whole.ny / by, whole.nz};
  const Block one = make_block(whole);
  std::vector<Block> parts;
  for (int b = 0; b < bx * by; ++b) parts.push_back(make_block(part));
  probe::Streams streams;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  const double cells = double(whole.nx) * whole.ny * whole.nz;
  std::printf("device %s; %dx%dx%d as one block and as %dx%d blocks of %dx%dx%d, %d steps\n", prop.name, whole.nx,
              whole.ny, whole.nz, bx, by, part.nx, part.ny, part.nz, steps);

  // A step: every velocity march, then (after all of them, as the halo exchange requires) every
  // stress march; block b's launches go to stream b mod 4, and the streams are joined between the
  // two halves.
  auto step_parts = [&] {
    for (int half = 0; half < 2; ++half) {
      for (size_t b = 0; b < parts.size(); ++b) (half ? stress : velocity)(parts[b], streams[b]);
      streams.join();
    }
  };
  auto time = [&](const char* what, auto&& step) {
    for (int it = 0; it < 5; ++it) step();
    check(cudaDeviceSynchronize(), what);
    cudaEventRecord(e0, streams[0]);
    streams.join();
    for (int it = 0; it < steps; ++it) step();
    streams.join();
    cudaEventRecord(e1, streams[0]);
    check(cudaEventSynchronize(e1), what);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    std::printf("%-48s %.3f ms a step, %.2f G cell-updates/s\n", what, ms / steps, cells * steps / (ms * 1e-3) / 1e9);
  };
  // Bit for bit: one step of every block with the x ghosts read from the buffers (XPatch) and with
  // all ghosts copied into the fields first, from the same state.
  int failures = 0;
  {
    auto fields = [&](const Block& b) {
      const int64_t n = b.p.shape.cells();
      std::vector<float> a(9 * n);
      check(cudaMemcpy(a.data(), b.v, 3 * n * sizeof(float), cudaMemcpyDeviceToHost), "copy back");
      check(cudaMemcpy(a.data() + 3 * n, b.s, 6 * n * sizeof(float), cudaMemcpyDeviceToHost), "copy back");
      return a;
    };
    std::vector<std::vector<float>> start, with_patch;
    for (const Block& b : parts) start.push_back(fields(b));
    auto restore = [&] {
      for (size_t i = 0; i < parts.size(); ++i) {
        const int64_t n = parts[i].p.shape.cells();
        check(cudaMemcpy(parts[i].v, start[i].data(), 3 * n * sizeof(float), cudaMemcpyHostToDevice), "upload");
        check(cudaMemcpy(parts[i].s, start[i].data() + 3 * n, 6 * n * sizeof(float), cudaMemcpyHostToDevice), "upload");
      }
    };
    for (int way = 0; way < 2; ++way) {
      mode = way == 0 ? kSave | kPatch | kCopy : kSave | kCopy;
      restore();
      step_parts();
      check(cudaDeviceSynchronize(), "check step");
      int64_t differ = 0;
      for (size_t i = 0; i < parts.size(); ++i) {
        const auto a = fields(parts[i]);
        if (way == 0) with_patch.push_back(a);
        else {  // the interior cells only: the copy fills the ghosts the patch leaves stale
          const BlockShape& sh = parts[i].p.shape;
          for (int c = 0; c < 9; ++c)
            for (int k = 0; k < sh.nz; ++k)
              for (int j = 0; j < sh.ny; ++j)
                for (int ii = 0; ii < sh.nx; ++ii) {
                  const int64_t q = c * sh.cells() + sh.idx(ii, j, k);
                  differ += std::memcmp(&a[q], &with_patch[i][q], sizeof(float)) != 0;
                }
        }
      }
      if (way == 1) std::printf("x ghosts from the buffers vs copied: %lld values differ\n", (long long)differ);
      failures += differ != 0;
    }
    restore();
  }
  const int modes[] = {0, kSave, kPatch, kSave | kPatch, kPatch | kCopy, kSave | kPatch | kCopy};
  auto label = [](int m) {
    static char text[64];
    std::snprintf(text, sizeof text, "%s%s%s", m ? "" : "marches", m & kSave ? "save " : "", m & kPatch ? "xpatch " : "");
    if (m & kCopy) std::strcat(text, "copies");
    return text;
  };
  for (int rep = 0; rep < 2; ++rep) {
    mode = 0;
    time("one block", [&] { velocity(one, streams[0]), stress(one, streams[0]); });
    char name[96];
    for (int m : modes) {
      mode = m;
      std::snprintf(name, sizeof name, "%dx%d, %s, 4 streams", bx, by, label(m));
      time(name, step_parts);
    }
  }
  std::printf("%s\n", failures ? "FAILED" : "all equal");
  return failures ? 1 : 0;
}
