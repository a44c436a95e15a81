// What every codelet of tasks/ shares. A codelet lives in one header of this folder, as in
// StarPU's examples and Chameleon: its argument struct, its CPU and CUDA entry points (thin
// wrappers over the numerics of codelets/), its performance model, its definition and the
// function that submits it. tasks/iteration.cpp, the one place that builds the task graph,
// includes them.
#pragma once
#include <starpu.h>

#include <cstring>
#include <initializer_list>

#include "partition/handles.hpp"
#include "perfmodels/models.hpp"
#include "tasks/profile.hpp"

// CUDA entry points exist when StarPU has CUDA and the CUDA kernels are built.
#if defined(STARPU_USE_CUDA) && defined(ONDES_HAVE_CUDA_KERNELS)
#define ONDES_CUDA_CODELETS 1
#define ONDES_CUDA_ENTRY(f) f<OnCuda>
#else
#define ONDES_CUDA_ENTRY(f) nullptr
#endif

namespace ondes {

// The arguments a task was submitted with (STARPU_VALUE), as its entry points and model read them.
template <class Args>
Args task_args(void* cl_arg) {
  Args a;
  starpu_codelet_unpack_args(cl_arg, &a);
  return a;
}

// The data of vector buffer b of a task, and its element count.
template <class T>
T* vector_data(void* b) {
  return reinterpret_cast<T*>(STARPU_VECTOR_GET_PTR(b));
}
inline int64_t vector_count(void* b) { return STARPU_VECTOR_GET_NX(b); }

// Where an entry point runs. A codelet writes one entry template over these and calls its
// kernels through ONDES_RUN, which picks cpu::kernel(args...) or cuda::kernel(args..., stream).
struct OnCpu {
  static constexpr bool cuda = false;
};
#ifdef ONDES_CUDA_CODELETS
// The stream of this worker's kernels: StarPU's, or within a PriorityScope its priority stream.
cudaStream_t cuda_stream();
struct OnCuda {
  static constexpr bool cuda = true;
  static cudaStream_t stream() { return cuda_stream(); }
};
// The calling thread's current CUDA device is `device` for the scope's life, the one before it again
// at its end (set-up code that allocates or maps memory on a block's GPU from the main thread).
class ScopedDevice {
 public:
  explicit ScopedDevice(int device) {
    cudaGetDevice(&previous_);
    cudaSetDevice(device);
  }
  ~ScopedDevice() { cudaSetDevice(previous_); }
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};
// A task of priority above 0 (a frontier block: its halo leaves for another GPU or rank) launches
// its kernels on a stream of the GPU's highest priority for the scope's life, tied to StarPU's
// stream by events at both ends, so that its kernels take the SMs as soon as thread blocks of the
// kernels already running (another block's march) finish, instead of after those kernels. Why: a
// strip's task waited behind the big block's march on its GPU (docs/performance.md, Decisions:
// frontier stream priority).
class PriorityScope {
 public:
  PriorityScope();
  ~PriorityScope();
  PriorityScope(const PriorityScope&) = delete;
  PriorityScope& operator=(const PriorityScope&) = delete;

 private:
  int worker_ = -1;
  cudaStream_t starpu_ = nullptr;
};
#endif
#define ONDES_RUN(B, kernel, ...)                          \
  do {                                                     \
    if constexpr (B::cuda)                                 \
      ::ondes::cuda::kernel(__VA_ARGS__, B::stream());     \
    else                                                   \
      ::ondes::cpu::kernel(__VA_ARGS__);                   \
  } while (0)
// The same for a kernel whose CUDA launch takes the march geometry (codelets/compute.hpp) before
// its stream; its CPU loops take none.
#define ONDES_RUN_TUNED(B, march, kernel, ...)                 \
  do {                                                         \
    if constexpr (B::cuda)                                     \
      ::ondes::cuda::kernel(__VA_ARGS__, march, B::stream());  \
    else                                                       \
      ::ondes::cpu::kernel(__VA_ARGS__);                       \
  } while (0)

using TaskFunc = void (*)(void*[], void*);

// A codelet running `cpu` on CPU workers and `cuda` (asynchronously, on StarPU's stream) on CUDA
// workers; cuda null: CPU only. modes empty: given per task (STARPU_VARIABLE_NBUFFERS).
inline starpu_codelet make_codelet(const char* name, TaskFunc cpu, TaskFunc cuda, starpu_perfmodel* model,
                                   std::initializer_list<starpu_data_access_mode> modes) {
  starpu_codelet cl;
  std::memset(&cl, 0, sizeof(cl));
  cl.name = name;
  cl.cpu_funcs[0] = cpu;
  cl.cpu_funcs_name[0] = name;
  if (cuda) {
    cl.cuda_funcs[0] = cuda;
    cl.cuda_flags[0] = STARPU_CUDA_ASYNC;
  }
  cl.nbuffers = modes.size() ? static_cast<int>(modes.size()) : STARPU_VARIABLE_NBUFFERS;
  int i = 0;
  for (auto m : modes) cl.modes[i++] = m;
  cl.model = model;
#ifdef STARPU_SIMGRID
  // A codelet without a model does no work of its own (prefetch_ghosts: its buffers' copies are the
  // point); StarPU's SimGrid mode, which times tasks by their models, runs it instead (on CUDA
  // workers only a synchronous one).
  if (!model) {
    cl.flags |= STARPU_CODELET_SIMGRID_EXECUTE;
    cl.cuda_flags[0] = 0;
  }
#endif
  cl.callback_func = profile::task_ended;  // for tasks without a callback of their own
  return cl;
}

}  // namespace ondes
