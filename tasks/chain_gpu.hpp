// Shared by tasks/chain.cpp (the windows) and tasks/chain_route.cpp (their set-up); not an
// interface of its own. Chained steps on GPUs need the CUDA codelets and real GPUs (not the SimGrid
// builds); on CPU workers (chain_on_cpus) neither.
#pragma once
#include "tasks/codelet.hpp"  // ONDES_CUDA_CODELETS

#if defined(ONDES_CUDA_CODELETS) && !defined(STARPU_SIMGRID)
#define ONDES_CHAINED_STEPS 1
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

namespace ondes::chain_gpu {

void check_cuda(cudaError_t e, const char* what);
// Whether the CUDA driver offers the stream memory operations (cuStreamWaitValue32, cuStreamWriteValue32).
bool stream_memory_operations();
}  // namespace ondes::chain_gpu
#endif

namespace ondes {
// StarPU's watchdog hook (arg: the run's std::vector<BlockData>): what each chained block heard
// from its neighbours (on its GPU, or in main memory with chain_on_cpus).
void report_chain_stall(void* arg);
}  // namespace ondes
