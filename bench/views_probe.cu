// Probe of blocks as views (issue 16, one GPU at 4x4 blocks): a grid's fields as one array per field
// kind, registered with StarPU as a 3D block and partitioned into the blocks' x-y boxes, after the
// array was fetched to the GPU, so that every block's GPU copy lies inside the grid's one allocation;
// a block's task then reads its ghosts where they are, in its neighbours' cells, with the neighbours'
// handles declared read-only for the dependencies: no edge buffers, no saves, no ghost copies.
// StarPU runs march.hpp's two kernels (the lone block's, as at 1x1) over each block's box, one task
// a block and half step, against the same over the whole grid as one task (1x1).
//   views_probe [NX NY NZ] [STEPS] [LAYOUT...]      (layouts BXxBY, default 2x2 4x4)
// Then the same launches without StarPU (raw streams). Checked bit for bit: every layout's fields after
// the run, with StarPU and without, against the 1x1 StarPU run's. VIEWS_DEPS=off leaves the neighbours'
// handles out of the tasks (what the dependencies cost; timing only). Workers, streams and policy: StarPU's
// variables (STARPU_NCUDA, STARPU_NWORKER_PER_CUDA, STARPU_SCHED). Results: bench/results/gpu_h100_views_probe.txt.
// What it leaves out: PML, free surface, sources, several GPUs or ranks (a view is valid only where
// the whole array is allocated), CPU workers.
#define ONDES_DEFINE_CUDA_KERNELS
#include <cuda_runtime.h>
#include <starpu.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe_state.hpp"
#include "codelets/march.hpp"

using namespace ondes;
using probe::check;

namespace {

constexpr int kPad = kGhost;

// A block's box in the padded frame of the grid (the child handle's cells): its interior cells, and
// the grid's padding where the block touches the grid's face.
struct View {
  int px0, px1, py0, py1;  // padded x and y ranges of the child
  PmlBox box;              // the interior cells the block updates, in the grid's interior coordinates
};

struct Layout {
  int bx = 1, by = 1;
  std::vector<View> views;
};

Layout cut(const BlockShape& g, int bx, int by) {
  Layout l{bx, by, {}};
  for (int j = 0; j < by; ++j)
    for (int i = 0; i < bx; ++i) {
      const int x0 = g.nx * i / bx, x1 = g.nx * (i + 1) / bx, y0 = g.ny * j / by, y1 = g.ny * (j + 1) / by;
      View v;
      v.px0 = i == 0 ? 0 : x0 + kPad, v.px1 = i == bx - 1 ? g.nx + 2 * kPad : x1 + kPad;
      v.py0 = j == 0 ? 0 : y0 + kPad, v.py1 = j == by - 1 ? g.ny + 2 * kPad : y1 + kPad;
      v.box = PmlBox{};
      v.box.lo[0] = x0, v.box.hi[0] = x1, v.box.lo[1] = y0, v.box.hi[1] = y1, v.box.lo[2] = 0, v.box.hi[2] = g.nz;
      l.views.push_back(v);
    }
  return l;
}

// StarPU filter: child `id` is views[id]'s x-y box of the parent block, all its z (planes x components).
void view_filter(void* parent, void* child, starpu_data_filter* f, unsigned id, unsigned) {
  const auto* p = static_cast<starpu_block_interface*>(parent);
  auto* c = static_cast<starpu_block_interface*>(child);
  const View& v = static_cast<const Layout*>(f->filter_arg_ptr)->views[id];
  const size_t offset = (size_t(v.px0) + size_t(v.py0) * p->ldy) * p->elemsize;
  c->id = p->id;
  c->nx = v.px1 - v.px0, c->ny = v.py1 - v.py0, c->nz = p->nz;
  c->elemsize = p->elemsize;
  if (p->dev_handle) {
    if (p->ptr) c->ptr = p->ptr + offset;
    c->ldy = p->ldy, c->ldz = p->ldz;
    c->dev_handle = p->dev_handle;
    c->offset = p->offset + offset;
  }
}

struct TaskArgs {
  StepParams p;
  PmlBox box;
  int64_t origin;  // the child's first element in the padded frame: its pointer minus the frame's
  int velocity;
};

// buffers: 0 the block's field it updates (RW), 1 the other field (R), 2 the material (R), then the
// neighbours' other field (R, for the dependencies only: their cells are read through buffer 1's frame).
void march_task(void* buffers[], void* arg) {
  TaskArgs a;
  starpu_codelet_unpack_args(arg, &a);
  float* out = reinterpret_cast<float*>(STARPU_BLOCK_GET_PTR(buffers[0])) - a.origin;
  const float* in = reinterpret_cast<const float*>(STARPU_BLOCK_GET_PTR(buffers[1])) - a.origin;
  const float* mat = reinterpret_cast<const float*>(STARPU_VECTOR_GET_PTR(buffers[2]));
  cudaStream_t st = starpu_cuda_get_local_stream();
  if (a.velocity)
    ondes::cuda::march::march_block<ondes::cuda::march::Velocity>("velocity_march", a.p, a.box, out, in, mat, BoundaryBuffers{},
                                                    XHalo{}, st);
  else
    ondes::cuda::march::march_block<ondes::cuda::march::Stress>("stress_march", a.p, a.box, out, in, mat, BoundaryBuffers{},
                                                  XHalo{}, st);
}

starpu_codelet make_codelet() {
  starpu_codelet cl;
  std::memset(&cl, 0, sizeof cl);
  cl.where = STARPU_CUDA;
  cl.cuda_funcs[0] = march_task;
  cl.cuda_flags[0] = STARPU_CUDA_ASYNC;
  cl.nbuffers = STARPU_VARIABLE_NBUFFERS;
  cl.name = "march";
  return cl;
}

// The step's parameters over the whole grid, no PML.
StepParams interior_params(const BlockShape& g) {
  PmlBox all;
  all.hi[0] = g.nx, all.hi[1] = g.ny, all.hi[2] = g.nz;
  return probe::step_params(g, all);
}

// Whether a block's tasks declare its neighbours' handles (VIEWS_DEPS=off: no, for timing only; the
// results are then not checked).
bool dependencies() {
  const char* e = std::getenv("VIEWS_DEPS");
  return !e || std::strcmp(e, "off") != 0;
}

struct Fields {
  std::vector<float> v, s;
};

// STEPS steps (after 10 warm-up steps) of layout bx x by; returns the fields after them and prints the rate.
Fields run(const BlockShape& g, const probe::HostBlock& init, int bx, int by, int steps) {
  static starpu_codelet cl = make_codelet();
  const int64_t n = g.cells();
  float *v, *s, *mat;
  starpu_malloc(reinterpret_cast<void**>(&v), 3 * n * sizeof(float));
  starpu_malloc(reinterpret_cast<void**>(&s), 6 * n * sizeof(float));
  starpu_malloc(reinterpret_cast<void**>(&mat), init.mat.size() * sizeof(float));
  std::memcpy(v, init.v.data(), 3 * n * sizeof(float));
  std::memcpy(s, init.s.data(), 6 * n * sizeof(float));
  std::memcpy(mat, init.mat.data(), init.mat.size() * sizeof(float));
  const uint32_t px = g.nx + 2 * kPad, py = g.ny + 2 * kPad, pz = g.nz + 2 * kPad;
  starpu_data_handle_t hv, hs, hm;
  starpu_block_data_register(&hv, STARPU_MAIN_RAM, uintptr_t(v), px, px * py, px, py, 3 * pz, sizeof(float));
  starpu_block_data_register(&hs, STARPU_MAIN_RAM, uintptr_t(s), px, px * py, px, py, 6 * pz, sizeof(float));
  starpu_vector_data_register(&hm, STARPU_MAIN_RAM, uintptr_t(mat), init.mat.size(), sizeof(float));

  const Layout l = cut(g, bx, by);
  const int nb = bx * by;
  std::vector<starpu_data_handle_t> cv(nb, hv), cs(nb, hs);
  const bool views = nb > 1;
  if (views) {
    // The whole arrays on the GPU first: the children then point into that allocation there.
    const int worker = starpu_worker_get_by_type(STARPU_CUDA_WORKER, 0);
    const unsigned node = starpu_worker_get_memory_node(worker);
    starpu_data_fetch_on_node(hv, node, 0);
    starpu_data_fetch_on_node(hs, node, 0);
    starpu_data_fetch_on_node(hm, node, 0);
    starpu_data_filter f;
    std::memset(&f, 0, sizeof f);
    f.filter_func = view_filter;
    f.nchildren = nb;
    f.filter_arg_ptr = const_cast<Layout*>(&l);
    starpu_data_partition(hv, &f);
    starpu_data_partition(hs, &f);
    for (int b = 0; b < nb; ++b) cv[b] = starpu_data_get_sub_data(hv, 1, b), cs[b] = starpu_data_get_sub_data(hs, 1, b);
  }
  const StepParams p = interior_params(g);

  const bool deps = dependencies();
  auto submit = [&](bool velocity) {
    for (int b = 0; b < nb; ++b) {
      const int i = b % bx, j = b / bx;
      const View& w = l.views[b];
      TaskArgs a{p, w.box, int64_t(w.px0) + int64_t(w.py0) * px, velocity};
      auto& out = velocity ? cv : cs;
      auto& in = velocity ? cs : cv;
      starpu_data_descr d[7];
      int k = 0;
      d[k++] = {out[b], STARPU_RW};
      d[k++] = {in[b], STARPU_R};
      d[k++] = {hm, STARPU_R};
      if (deps) {  // else timing only: the neighbours' handles left out
        if (i > 0) d[k++] = {in[b - 1], STARPU_R};
        if (i < bx - 1) d[k++] = {in[b + 1], STARPU_R};
        if (j > 0) d[k++] = {in[b - bx], STARPU_R};
        if (j < by - 1) d[k++] = {in[b + bx], STARPU_R};
      }
      const int rc = starpu_task_insert(&cl, STARPU_DATA_MODE_ARRAY, d, k, STARPU_VALUE, &a, sizeof a, 0);
      if (rc != 0) std::fprintf(stderr, "task_insert: %d\n", rc), std::exit(2);
    }
  };
  for (int t = 0; t < 10; ++t) submit(true), submit(false);
  starpu_task_wait_for_all();
  const auto t0 = std::chrono::steady_clock::now();
  for (int t = 0; t < steps; ++t) submit(true), submit(false);
  starpu_task_wait_for_all();
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cells = double(g.nx) * g.ny * g.nz;
  std::printf("%dx%d %s: %.3f ms a step, %.2f G cell-updates/s\n", bx, by, views ? "views" : "one block",
              1e3 * sec / steps, cells * steps / sec / 1e9);
  if (views) starpu_data_unpartition(hv, STARPU_MAIN_RAM), starpu_data_unpartition(hs, STARPU_MAIN_RAM);
  starpu_data_unregister(hv), starpu_data_unregister(hs), starpu_data_unregister(hm);
  Fields out{std::vector<float>(v, v + 3 * n), std::vector<float>(s, s + 6 * n)};
  starpu_free(v), starpu_free(s), starpu_free(mat);
  return out;
}

// The same marches without StarPU: the views' boxes of one device array, block b's launches on
// stream b mod 4, all streams joined between the halves (what the dependencies come to at most).
Fields run_raw(const BlockShape& g, const probe::HostBlock& init, int bx, int by, int steps) {
  const int64_t n = g.cells();
  float *v, *s, *mat;
  check(cudaMalloc(&v, 3 * n * sizeof(float)), "malloc");
  check(cudaMalloc(&s, 6 * n * sizeof(float)), "malloc");
  check(cudaMalloc(&mat, init.mat.size() * sizeof(float)), "malloc");
  check(cudaMemcpy(v, init.v.data(), 3 * n * sizeof(float), cudaMemcpyHostToDevice), "upload");
  check(cudaMemcpy(s, init.s.data(), 6 * n * sizeof(float), cudaMemcpyHostToDevice), "upload");
  check(cudaMemcpy(mat, init.mat.data(), init.mat.size() * sizeof(float), cudaMemcpyHostToDevice), "upload");
  probe::Streams st;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  const Layout l = cut(g, bx, by);
  const StepParams p = interior_params(g);
  auto step = [&] {
    for (size_t b = 0; b < l.views.size(); ++b)
      ondes::cuda::march::march_block<ondes::cuda::march::Velocity>("velocity_march", p, l.views[b].box, v, s, mat,
                                                                    BoundaryBuffers{}, XHalo{}, st[b]);
    st.join();
    for (size_t b = 0; b < l.views.size(); ++b)
      ondes::cuda::march::march_block<ondes::cuda::march::Stress>("stress_march", p, l.views[b].box, s, v, mat,
                                                                  BoundaryBuffers{}, XHalo{}, st[b]);
    st.join();
  };
  for (int t = 0; t < 10; ++t) step();
  check(cudaDeviceSynchronize(), "warm-up");
  cudaEventRecord(e0, st[0]);
  st.join();
  for (int t = 0; t < steps; ++t) step();
  cudaEventRecord(e1, st[0]);
  check(cudaEventSynchronize(e1), "steps");
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  const double cells = double(g.nx) * g.ny * g.nz;
  std::printf("%dx%d raw streams, no runtime: %.3f ms a step, %.2f G cell-updates/s\n", bx, by, ms / steps,
              cells * steps / (ms * 1e-3) / 1e9);
  Fields out{std::vector<float>(3 * n), std::vector<float>(6 * n)};
  check(cudaMemcpy(out.v.data(), v, 3 * n * sizeof(float), cudaMemcpyDeviceToHost), "download");
  check(cudaMemcpy(out.s.data(), s, 6 * n * sizeof(float), cudaMemcpyDeviceToHost), "download");
  cudaEventDestroy(e0), cudaEventDestroy(e1);
  cudaFree(v), cudaFree(s), cudaFree(mat);
  return out;
}

// Values of the grid's interior cells that differ between two runs' fields.
int64_t differ(const BlockShape& g, const std::vector<float>& a, const std::vector<float>& b, int comps) {
  int64_t d = 0;
  for (int c = 0; c < comps; ++c)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          const int64_t q = c * g.cells() + g.idx(i, j, k);
          d += std::memcmp(&a[q], &b[q], sizeof(float)) != 0;
        }
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  BlockShape g{512, 512, 256};
  int steps = 100;
  if (argc >= 4) g = BlockShape{std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])};
  if (argc >= 5) steps = std::atoi(argv[4]);
  std::vector<std::pair<int, int>> layouts;
  for (int a = 5; a < argc; ++a) {
    int bx = 0, by = 0;
    if (std::sscanf(argv[a], "%dx%d", &bx, &by) == 2 && bx > 0 && by > 0) layouts.push_back({bx, by});
  }
  if (layouts.empty()) layouts = {{2, 2}, {4, 4}};
  if (starpu_init(nullptr) != 0 || starpu_cuda_worker_get_count() == 0) {
    std::fprintf(stderr, "views_probe: StarPU with a CUDA worker needed\n");
    return 2;
  }
  std::printf("%dx%dx%d, %d steps, %u CUDA workers, scheduler %s\n", g.nx, g.ny, g.nz, steps,
              starpu_cuda_worker_get_count(), std::getenv("STARPU_SCHED") ? std::getenv("STARPU_SCHED") : "default");
  probe::Random rnd;
  const probe::HostBlock init = probe::host_block(g, rnd);
  int failures = 0;
  for (int round = 0; round < 2; ++round) {
    const Fields one = run(g, init, 1, 1, steps);
    const int64_t moved = differ(g, init.v, one.v, 3) + differ(g, init.s, one.s, 6);
    std::printf("  1x1 against the initial fields: %lld values differ\n", (long long)moved);
    if (moved == 0) ++failures;  // a run that updates nothing would pass every comparison
    std::vector<std::pair<int, int>> all = layouts;
    all.insert(all.begin(), {1, 1});
    for (auto [bx, by] : all) {  // without the runtime, 1x1 included
      const Fields f = run_raw(g, init, bx, by, steps);
      const int64_t d = differ(g, one.v, f.v, 3) + differ(g, one.s, f.s, 6);
      if (d) ++failures;
      std::printf("  %dx%d raw against 1x1: %lld values differ\n", bx, by, (long long)d);
    }
    for (auto [bx, by] : layouts) {
      const Fields f = run(g, init, bx, by, steps);
      const int64_t dv = differ(g, one.v, f.v, 3), ds = differ(g, one.s, f.s, 6);
      if ((dv || ds) && dependencies()) ++failures;
      std::printf("  %dx%d against 1x1: %lld velocity and %lld stress values differ\n", bx, by, (long long)dv,
                  (long long)ds);
    }
  }
  starpu_shutdown();
  std::printf("%s\n", failures ? "FAILED" : "all equal");
  return failures ? 1 : 0;
}
