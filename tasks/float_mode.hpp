// The floating-point mode of the workers. The wavefield ahead of every front decays through
// float32 subnormals, which x86 cores handle far slower than normal numbers (docs/performance.md,
// Decisions: subnormals). FD codes flush them to zero; here every
// CPU worker does (FTZ and DAZ in MXCSR; FZ in FPCR on Arm), and the CUDA kernels are compiled with
// nvcc --ftz=true, so that CPU and GPU still round every operation alike.
#pragma once

namespace ondes {

// Sets flush-to-zero (outputs) and denormals-are-zero (inputs) on every CPU worker of the live
// StarPU; a worker's mode stays for its lifetime.
void flush_subnormals_on_cpu_workers();

// How many CPU workers have that mode now (read on each worker).
int cpu_workers_flushing_subnormals();

}  // namespace ondes
