#!/bin/bash
# For a reverted build (bench/results/gpu_h100_yfaces_attempt.patch applied on ff27c1b, whose s28.sh
# also sets ONDES_CUDA_FACES and takes MODES): the march reads the y faces' ghosts from the buffers
# too (FaceHalo / FacePatch over four faces):
# test_gpu, StarPU 1x1 and 2x2 / 4x4 with ONDES_CUDA_FACES = on (all faces) / x (x faces only, the
# previous build's behaviour) / off (every ghost by the copy kernel) alternated, per-kernel ncu of
# 4x4 and 2x2 (on / x), then gpu_check correctness + benchmark.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
test_gpu_run
export STARPU_NCPU=0 STARPU_NCUDA=1
starpu_ab ONDES_CUDA_FACES "on x off" 1x1 2x2 4x4
unset STARPU_NCPU STARPU_NCUDA
MODES="on x" bash s28.sh "$o" | grep -v "^NVIDIA"
CHECK_LIMIT=${CHECK_LIMIT:-240} check_table
