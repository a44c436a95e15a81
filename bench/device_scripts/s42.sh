#!/bin/bash
# The ghost copy run in the march's launch (edges.hpp GhostCopy: thread blocks after the march's
# own, march.hpp fuses_copy), the march reading the x and y faces from the buffers: test_gpu; StarPU
# A/B on one build, alternated: ONDES_CUDA_FACES = default (fused) / xy (the copy a launch of its
# own) / x (x faces only), against HEAD's binary (bin/ondes3d_head, 2b35541), at 1x1, 1x2, 1x2 with
# 16-cell strips, 2x2, 4x4, one GPU; per-kernel ncu of a 4x4 step, fused.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
head_ab ONDES_CUDA_FACES "fused xy x" 1x1 1x2 1x2+16 2x2 4x4
ncu_step 4x4 fused
