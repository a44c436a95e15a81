#!/bin/bash
# The y faces read from the neighbours' buffers too (edges.hpp FaceHalo, march.hpp FacePatch: one
# element a thread; the ghost copies launched over the planes the march does not serve): test_gpu;
# StarPU A/B on one build, alternated: ONDES_CUDA_FACES = xy (new default) / x (x faces only) / off,
# against HEAD's binary (bin/ondes3d_head, 2b35541) at 1x1, 1x2, 1x2 with 16-cell strips, 2x2, 4x4; per-kernel ncu of a 4x4
# step with xy and x and of a 1x1 step; then gpu_check correctness + benchmark.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
head_ab ONDES_CUDA_FACES "xy x off" 1x1 1x2 1x2+16 2x2 4x4
for f in xy x; do ncu_step 4x4 $f ONDES_CUDA_FACES=$f; done
ncu_step 1x1 xy
unset STARPU_NCPU STARPU_NCUDA
check_table
