#!/bin/bash
# XHalo with the face columns in their own instantiation (march.hpp velocity_column / stress_column):
# test_gpu, StarPU 1x1 and 2x2 / 4x4 with XHalo on and off alternated, then s28's per-kernel ncu.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
starpu_ab ONDES_CUDA_XHALO "on off" 1x1 2x2 4x4
bash s28.sh "$o" | grep -v "^NVIDIA"
