#!/bin/bash
# The final build on an H100: gpu_check.sh correctness (test_gpu, robust, analytic, anelastic on
# CUDA workers, CUDA = CPU bitwise) and benchmark (plain loop, StarPU 1x1 / 2x2 / 4x4, the floor
# table), 300 steps.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
CHECK_LIMIT=560 check_table
