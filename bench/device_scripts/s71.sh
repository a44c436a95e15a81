#!/bin/bash
# The stress march back to per-cell moduli (the velocity march and PML kernels keep the planes'
# factors), old/ = the build before the factors: test_gpu, plain loop x3 and StarPU 1x1 / 2x2 /
# 4x4 x2, alternated.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
test_gpu_run
old_new_ab 1x1 2x2 4x4
