#!/bin/bash
# 4x4 launch-geometry and stream sweep on one GPU (after s33): ONDES_CUDA_MARCH=TYxKZxB[xR] and
# STARPU_NWORKER_PER_CUDA, two rounds alternated, with ONDES_CUDA_SAVE_BLOCKS=3.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
export STARPU_NCPU=0 STARPU_NCUDA=1 ONDES_CUDA_SAVE_BLOCKS=3
starpu_ab ONDES_CUDA_MARCH "8x0x4 8x8x4 8x16x4 8x2x4 8x4x4x0 8x8x4x0 8x4x4x-1 8x8x4x8 16x4x2 16x8x2" 4x4
starpu_ab STARPU_NWORKER_PER_CUDA "1 2 4 8" 4x4
