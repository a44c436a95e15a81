#!/bin/bash
# The kept build: ghost copies of 8 planes a thread (edges.hpp halo_kernel), the march as in
# ff27c1b. test_gpu, StarPU A/B of ONDES_CUDA_HALO_PLANES 8 / 1 / 16 (1x1: 8 only), per-kernel ncu
# of a 4x4 step with 8 and 1, then gpu_check correctness + benchmark.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
starpu_ab ONDES_CUDA_HALO_PLANES "8 1 16" 1x1 2x2 4x4
for p in 8 1; do ncu_step 4x4 $p ONDES_CUDA_HALO_PLANES=$p; done
unset STARPU_NCPU STARPU_NCUDA
check_table
