#!/bin/bash
# Saving / x-face marches at 4 thread blocks an SM (march.hpp EdgeCell, use_full_blocks) and ghost
# copies of 8 planes a thread (edges.hpp halo_kernel): test_gpu, StarPU A/B of
# ONDES_CUDA_SAVE_BLOCKS auto / 3 / 4 (2x2, 4x4) and ONDES_CUDA_HALO_PLANES 8 / 1 (4x4), per-kernel
# ncu of a 4x4 step (new defaults, and the old design: SAVE_BLOCKS=3 HALO_PLANES=1), then
# gpu_check correctness + benchmark (s29 for the CPU + GPU rows).
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
starpu_ab ONDES_CUDA_SAVE_BLOCKS "auto 3 4" 1x1 2x2 4x4
starpu_ab ONDES_CUDA_HALO_PLANES "8 1" 4x4
ncu_step 4x4 new
ncu_step 4x4 old ONDES_CUDA_SAVE_BLOCKS=3 ONDES_CUDA_HALO_PLANES=1
unset STARPU_NCPU STARPU_NCUDA
check_table
